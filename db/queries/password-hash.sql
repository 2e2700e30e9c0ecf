-- A login's read: the password hash of one user by id. Read by user/ProfileQueries.
-- The node's WAL position and role first, as in profile-by-id.sql; an unknown id has a null
-- hash, in one row all the same, so that it costs what a known one does.
SELECT n.position, n.standby, u.password_hash
FROM node_position n
LEFT JOIN users u ON u.id = ?
