-- The runtime role may read Flyway's history table: a service started with
-- app.db.migrations=validate checks, as that role, that every migration has been applied and
-- none changed since (database/MigrationConfiguration). The table was created before V2's
-- default privileges, so it got none; reading it tells nothing that the code does not.
GRANT SELECT ON "${flyway:defaultSchema}"."${flyway:table}" TO ${runtime_role};
