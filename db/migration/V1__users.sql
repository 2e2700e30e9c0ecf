-- Names use the "C" collation: prefix search turns a prefix into a byte range
-- (first_name >= 'Ив' AND first_name < 'Иг'), which a btree answers whatever plan the
-- driver's prepared statement gets, generic or custom. A LIKE 'Ив%' pattern would need a
-- custom plan to use an index.
CREATE TABLE users (
    id            uuid        PRIMARY KEY,
    first_name    text        COLLATE "C" NOT NULL,
    second_name   text        COLLATE "C" NOT NULL,
    birthdate     date        NOT NULL,
    biography     text,
    city          text,
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- id as a key column lets the search pick its page of ids from the index alone
-- (index-only scan), and fetch only those rows from the table.
CREATE INDEX users_name_prefix_idx ON users (first_name, second_name, id);
