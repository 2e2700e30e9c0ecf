-- What the service's runtime role (app.db.username; ${runtime_role} is its quoted name) may do
-- with the tables: read and insert users, nothing else. No UPDATE or DELETE: the service never
-- changes or removes a row. Migrations run as the role that owns the schema (app.db.migration.*),
-- so only it may create, alter, truncate or drop; with one role configured, the grants are to
-- the owner itself and change nothing.
--
-- Here rather than where the roles are created (init-primary.sh, patroni-bootstrap.sh, the
-- embedded cluster): the grants then travel with the tables they are about, reach every
-- deployment and an existing cluster with no step by hand, and Flyway's own history table,
-- created before this migration ran, gets none (a default set when the roles were made would
-- have granted on it too).
GRANT SELECT, INSERT ON users TO ${runtime_role};

-- A table a later migration creates in this schema gets the same, so it cannot be forgotten;
-- a migration whose table the service must not read or insert revokes that there.
ALTER DEFAULT PRIVILEGES IN SCHEMA "${flyway:defaultSchema}" GRANT SELECT, INSERT ON TABLES TO ${runtime_role};
