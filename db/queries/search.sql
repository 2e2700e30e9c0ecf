-- Prefix search as byte ranges on the C-collated name columns (user/PrefixRange). The
-- materialized CTE collects the matching ids from users_name_prefix_idx alone (an index-only
-- scan); without that fence the planner may walk the primary key in id order and filter every
-- row, which is fast only when matches are dense. Ranges, unlike LIKE $1, keep the index usable
-- in a generic plan. Parameters: first-name range, last-name range, the id to start after, the
-- page size. Read by user/ProfileQueries and bench/saturation.py.
-- The first two columns are the node's WAL position and role, as in profile-by-id.sql; an
-- empty page is one row of nulls after them.
WITH matches AS MATERIALIZED (
    SELECT id FROM users
    WHERE first_name >= ? AND first_name < ?
      AND second_name >= ? AND second_name < ?
      AND id > ?),
page AS (
    SELECT u.id, u.first_name, u.second_name, u.birthdate, u.biography, u.city
    FROM users u
    WHERE u.id IN (SELECT id FROM matches ORDER BY id LIMIT ?))
SELECT n.position, n.standby,
       p.id::text, p.first_name, p.second_name, p.birthdate::text, p.biography, p.city
FROM node_position n
LEFT JOIN page p ON true
ORDER BY p.id
