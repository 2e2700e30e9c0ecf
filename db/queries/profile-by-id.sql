-- The point read: one user by id. Read by user/ProfileQueries.
-- The first two columns are the node's WAL position and role (routing/ReadRouter.POSITION),
-- read after the statement's snapshot was taken, so the row, or its absence, is no newer than
-- that position. One row always: an unknown id has nulls for the profile.
SELECT n.position, n.standby,
       u.id::text, u.first_name, u.second_name, u.birthdate::text, u.biography, u.city
FROM (SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()
                   ELSE pg_current_wal_flush_lsn() END - '0/0')::bigint AS position,
             pg_is_in_recovery() AS standby) n
LEFT JOIN users u ON u.id = ?
