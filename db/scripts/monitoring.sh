#!/usr/bin/env bash
# The service's read of the primary's standbys (db/scripts/monitoring.sql), at every start of a
# primary: the function made or replaced, the runtime role allowed to call it, and its
# membership of pg_read_all_stats (which it had before the function existed) or pg_monitor
# revoked. Run by db/scripts/primary.sh on the plain deployment's primary, and by
# patroni-bootstrap.sh and patroni-roles.sh on the HA deployment's leader. Skips a cluster
# where the application's database or the runtime role does not exist yet.
#   monitoring.sh [CONNINFO]   connects with CONNINFO (Patroni's), else as POSTGRES_USER
#                              (default postgres) with libpq's variables (PGHOST, PGPORT)
#   APP_DB_DATABASE            the application's database (default profiles)
#   APP_DB_USERNAME            the service's runtime role (default profiles)
set -Eeuo pipefail
app_database=${APP_DB_DATABASE:-profiles}
app_username=${APP_DB_USERNAME:-profiles}
psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password --quiet)
if [ -n "${1:-}" ]; then
	psql+=(--dbname "$1")
else
	psql+=(--username "${POSTGRES_USER:-postgres}" --dbname postgres)
fi

# It runs as the superuser in the application's database, which the migration role owns: that
# role can give the database a search_path (ALTER DATABASE ... SET) that puts its own schema
# before pg_catalog, and its own types or functions would then stand for the built-in ones in
# this session. Each connection sets its own search_path first.
"${psql[@]}" --set app_database="$app_database" --set app_username="$app_username" \
	--set sql="$(dirname "${BASH_SOURCE[0]}")/monitoring.sql" <<-'SQL'
	SET search_path = pg_catalog, pg_temp;
	-- Right after a promotion no standby may be connected yet: the change must not wait for one.
	SET synchronous_commit = local;
	SELECT EXISTS (SELECT FROM pg_database WHERE datname = :'app_database')
	       AND EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_username') AS ready \gset
	\if :ready
	SELECT format('REVOKE %I FROM %I', g.rolname, :'app_username')
	FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u ON u.oid = m.member
	WHERE u.rolname = :'app_username' AND g.rolname IN ('pg_read_all_stats', 'pg_monitor') \gexec
	\connect :"app_database"
	SET search_path = pg_catalog, pg_temp;
	SET synchronous_commit = local;
	\i :sql
	GRANT USAGE ON SCHEMA monitoring TO :"app_username";
	GRANT EXECUTE ON FUNCTION monitoring.standbys() TO :"app_username";
	\echo monitoring: :app_username reads the standbys through monitoring.standbys()
	\else
	\echo monitoring: no database :app_database or role :app_username yet, nothing done
	\endif
	SQL
