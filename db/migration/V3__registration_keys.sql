-- The Idempotency-Key of every registration (user/Registrations): the key, a SHA-256
-- fingerprint of the request without its password, and the user it created. The row is
-- written in the same transaction as the user, so a key is exactly as durable as the user it
-- names: a commit that survives a failover keeps both, one that is lost loses both. A retry
-- with the key then finds the user, or finds nothing and registers it once.
--
-- The password is not in the fingerprint: a fast hash of it in a table would be a gift to
-- anyone who reads the table. A retry's password is checked against the user's Argon2id hash.
--
-- key is compared byte by byte ("C"): keys are printable ASCII, and no collation may make two
-- of them equal. The length check repeats the API's limit (docs/api.md, "Idempotency-Key").
CREATE TABLE registration_keys (
    key         text        COLLATE "C" PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 255),
    fingerprint bytea       NOT NULL CHECK (length(fingerprint) = 32),
    user_id     uuid        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- When a retry last received this key's answer. The retry writes it so that its own
    -- commit waits for a synchronous standby, and with it everything the primary committed
    -- before, the first attempt included: a retry never acknowledges a user that only the
    -- primary has.
    replayed_at timestamptz
);

-- Keys expire (app.registration.idempotency-key-ttl); the cleanup deletes the oldest first,
-- in batches, through this index.
CREATE INDEX registration_keys_created_at_idx ON registration_keys (created_at);

-- The runtime role has SELECT and INSERT here already (V2's default privileges). It also needs:
-- - DELETE: the cleanup deletes expired keys, and a registration that meets an expired key
--   deletes it before storing the key anew;
-- - UPDATE of replayed_at, and of no other column: the retry's write above; and the cleanup
--   takes its batch with SELECT ... FOR UPDATE SKIP LOCKED, which PostgreSQL allows only to a
--   role that may update at least one column of the table. Neither a key, a fingerprint nor
--   a user id can be changed.
GRANT DELETE, UPDATE (replayed_at) ON registration_keys TO ${runtime_role};
