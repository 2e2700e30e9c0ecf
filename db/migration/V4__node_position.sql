-- node_position: the node's WAL position and whether it is a replica, the one definition the
-- service reads them by (routing/NodePosition). Every read selects these two columns first,
-- with its result (db/queries), so that the service learns where each node is from the reads
-- themselves; the node monitor reads the view alone.
--
-- On a replica the position is what it has replayed; on the primary what it has flushed,
-- which every synchronous commit is below before anyone sees it, and which a replica can
-- reach (WAL inserted but not flushed is not sent yet). The functions are volatile: evaluated
-- while the statement runs, after its snapshot was taken, so the snapshot holds nothing after
-- the position. (A transaction committed with synchronous_commit = off, which the service
-- never does, is visible on the primary before it is flushed.) A view is expanded into the
-- statement that names it before planning: it costs no call and no round trip.
CREATE VIEW node_position AS
SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()
             ELSE pg_current_wal_flush_lsn() END - '0/0')::bigint AS position,
       pg_is_in_recovery() AS standby;

-- The runtime role reads it (V2's default privileges grant SELECT, and INSERT, which a view
-- without a table cannot take).
