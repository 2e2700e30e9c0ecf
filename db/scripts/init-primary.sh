#!/usr/bin/env bash
# First start of the primary: roles and pg_hba.conf (db/scripts/derive-access.sh), then what is
# done once: the database, its privileges, replication slots, pg_stat_statements and the shared
# settings. db/scripts/primary.sh, the primary's entrypoint, runs it once, after initdb and while
# a temporary server listens on a private Unix socket only, and runs derive-access.sh alone at
# every later start, so the passwords and pg_hba.conf follow the secrets while what is made here
# stays as it was made; ComposeScriptsIntegrationTests runs both through primary.sh too.
# Connection settings come from libpq's variables (PGHOST, PGPORT), the rest from these:
#   PGDATA                      the data directory (set by the image)
#   POSTGRES_USER               superuser to connect as (default postgres)
#   APP_DB_DATABASE             the application's database (default profiles)
#   APP_DB_USERNAME             the service's runtime role (default profiles): it may connect,
#                               read and insert, and owns nothing
#   APP_DB_PASSWORD             its password (required)
#   APP_DB_MIGRATION_USERNAME   the migration role (default ${APP_DB_USERNAME}_owner): owner of
#                               the database and its schema, the role Flyway runs as
#   APP_DB_MIGRATION_PASSWORD   its password (required)
#   REPLICATION_USER            the streaming role (default replicator)
#   REPLICATION_PASSWORD        its password (required)
#   DB_ALLOWED_CIDR, DB_MIGRATION_CIDR, DB_REPLICATION_CIDR
#                               where each role may log in from: see derive-access.sh
#   CLUSTER_CONF                settings file included by postgresql.conf
#                               (default /etc/postgresql/cluster.conf)
#   REPLICA_NAMES               one replication slot each (default "replica1 replica2")
# Every password may come from a file instead (X_FILE=/run/secrets/..., db/scripts/file-env.sh).
set -Eeuo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/file-env.sh"

: "${PGDATA:?PGDATA must name the data directory}"
file_env APP_DB_PASSWORD required
file_env APP_DB_MIGRATION_PASSWORD required
file_env REPLICATION_PASSWORD required
: "${DB_ALLOWED_CIDR:?DB_ALLOWED_CIDR must name the network clients connect from}"
app_database=${APP_DB_DATABASE:-profiles}
app_username=${APP_DB_USERNAME:-profiles}
migration_username=${APP_DB_MIGRATION_USERNAME:-${app_username}_owner}
cluster_conf=${CLUSTER_CONF:-/etc/postgresql/cluster.conf}
replica_names=${REPLICA_NAMES:-replica1 replica2}

if [ ! -r "$cluster_conf" ]; then
	echo "init-primary: $cluster_conf is missing: mount db/postgresql/cluster.conf there" >&2
	exit 1
fi
# The roles with their passwords, and pg_hba.conf: the part that is derived again at every start.
access=$(bash "$(dirname "${BASH_SOURCE[0]}")/derive-access.sh")

psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password --username "${POSTGRES_USER:-postgres}")

# psql variables quote names (:"x") and literals (:'x'). The same privileges as
# patroni-bootstrap.sh and the embedded cluster (cluster/EmbeddedCluster); the service's own
# tables are granted by its migrations (db/migration).
"${psql[@]}" --dbname postgres \
	--set app_database="$app_database" --set app_username="$app_username" \
	--set migration_username="$migration_username" --set replica_names="$replica_names" <<-'SQL'
	SELECT format('CREATE DATABASE %I OWNER %I', :'app_database', :'migration_username')
	WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'app_database') \gexec
	-- PUBLIC may connect and create temporary tables by default: only the runtime role connects.
	REVOKE ALL ON DATABASE :"app_database" FROM PUBLIC;
	GRANT CONNECT ON DATABASE :"app_database" TO :"app_username";
	-- One slot per replica: the primary keeps the WAL a replica has not received yet.
	SELECT pg_create_physical_replication_slot(s.slot)
	FROM unnest(string_to_array(:'replica_names', ' ')) AS s(slot)
	WHERE s.slot <> '' AND NOT EXISTS (SELECT FROM pg_replication_slots r WHERE r.slot_name = s.slot) \g /dev/null
	\connect :"app_database"
	-- The migration role owns the schema; the runtime role may look up names in it, not create.
	ALTER SCHEMA public OWNER TO :"migration_username";
	REVOKE ALL ON SCHEMA public FROM PUBLIC;
	GRANT USAGE ON SCHEMA public TO :"app_username";
	CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
	SQL

# The shared settings take effect at the real start that follows; a missing file must
# stop that start rather than be skipped.
include="include = '$cluster_conf'"
if ! grep -qxF "$include" "$PGDATA/postgresql.conf"; then
	printf "\n# The compose cluster's shared settings.\n%s\n" "$include" >> "$PGDATA/postgresql.conf"
fi

echo "init-primary: database $app_database owned by $migration_username, $app_username its runtime role, slots ($replica_names); $access"
