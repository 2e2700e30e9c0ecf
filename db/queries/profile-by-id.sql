-- The point read: one user by id. Read by user/ProfileQueries and bench/saturation.sh.
SELECT id::text, first_name, second_name, birthdate::text, biography, city FROM users WHERE id = ?
