-- The point read: one user by id. Read by user/ProfileQueries.
-- The first two columns are the node's WAL position and role (the view node_position,
-- db/migration/V4__node_position.sql), read after the statement's snapshot was taken, so the
-- row, or its absence, is no newer than that position. One row always: an unknown id has nulls
-- for the profile.
SELECT n.position, n.standby,
       u.id::text, u.first_name, u.second_name, u.birthdate::text, u.biography, u.city
FROM node_position n
LEFT JOIN users u ON u.id = ?
