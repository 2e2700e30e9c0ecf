#!/usr/bin/env bash
# First start of the primary: roles, database, privileges, replication slots,
# pg_stat_statements, pg_hba.conf and the shared settings. db/scripts/primary.sh, the primary's
# entrypoint, runs it once, after initdb and while a temporary server listens on a private Unix
# socket only; ComposeScriptsIntegrationTests runs it through primary.sh too. Connection
# settings come from libpq's variables (PGHOST, PGPORT), the rest from these:
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
#   DB_ALLOWED_CIDR             the network the service connects from (required): the only one
#                               from which the two application roles may log in, and only to
#                               the application's database; the compose network's subnet, or
#                               samenet
#   DB_REPLICATION_CIDR         the network the replicas stream from (default DB_ALLOWED_CIDR):
#                               the database network's subnet
#   CLUSTER_CONF                settings file included by postgresql.conf
#                               (default /etc/postgresql/cluster.conf)
#   REPLICA_NAMES               one replication slot each (default "replica1 replica2")
# Every password may come from a file instead (X_FILE=/run/secrets/..., db/scripts/file-env.sh).
# The superuser is accepted over the Unix socket and the loopback addresses only, never from a
# network.
set -Eeuo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/file-env.sh"

: "${PGDATA:?PGDATA must name the data directory}"
file_env APP_DB_PASSWORD required
file_env APP_DB_MIGRATION_PASSWORD required
file_env REPLICATION_PASSWORD required
: "${DB_ALLOWED_CIDR:?DB_ALLOWED_CIDR must name the network clients connect from}"
replication_cidr=${DB_REPLICATION_CIDR:-$DB_ALLOWED_CIDR}
app_database=${APP_DB_DATABASE:-profiles}
app_username=${APP_DB_USERNAME:-profiles}
migration_username=${APP_DB_MIGRATION_USERNAME:-${app_username}_owner}
replication_user=${REPLICATION_USER:-replicator}
cluster_conf=${CLUSTER_CONF:-/etc/postgresql/cluster.conf}
replica_names=${REPLICA_NAMES:-replica1 replica2}

if [ ! -r "$cluster_conf" ]; then
	echo "init-primary: $cluster_conf is missing: mount db/postgresql/cluster.conf there" >&2
	exit 1
fi
# pg_hba.conf quotes these names and has no escape for a double quote inside one.
for name in "$app_database" "$app_username" "$migration_username" "$replication_user"; do
	case $name in
		*'"'* | *$'\n'* | '')
			echo "init-primary: database and role names must be non-empty, without double quotes or line breaks: '$name'" >&2
			exit 1
			;;
	esac
done

psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password --username "${POSTGRES_USER:-postgres}")

# psql variables quote names (:"x") and literals (:'x'), so passwords need no escaping here.
# The same privileges as patroni-bootstrap.sh and the embedded cluster (cluster/EmbeddedCluster);
# the service's own tables are granted by its migrations (db/migration).
"${psql[@]}" --dbname postgres \
	--set app_database="$app_database" --set app_username="$app_username" \
	--set app_password="$APP_DB_PASSWORD" --set migration_username="$migration_username" \
	--set migration_password="$APP_DB_MIGRATION_PASSWORD" --set replication_user="$replication_user" \
	--set replication_password="$REPLICATION_PASSWORD" --set replica_names="$replica_names" <<-'SQL'
	SELECT format('CREATE ROLE %I LOGIN', :'migration_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'migration_username') \gexec
	ALTER ROLE :"migration_username" PASSWORD :'migration_password';
	SELECT format('CREATE ROLE %I LOGIN', :'app_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_username') \gexec
	ALTER ROLE :"app_username" PASSWORD :'app_password';
	-- The health details and the replication metrics read pg_stat_replication, whose columns
	-- other roles' sessions (the walsenders) show only to members of pg_read_all_stats.
	GRANT pg_read_all_stats TO :"app_username";
	SELECT format('CREATE DATABASE %I OWNER %I', :'app_database', :'migration_username')
	WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'app_database') \gexec
	-- PUBLIC may connect and create temporary tables by default: only the runtime role connects.
	REVOKE ALL ON DATABASE :"app_database" FROM PUBLIC;
	GRANT CONNECT ON DATABASE :"app_database" TO :"app_username";
	SELECT format('CREATE ROLE %I LOGIN REPLICATION', :'replication_user')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'replication_user') \gexec
	ALTER ROLE :"replication_user" PASSWORD :'replication_password';
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

# The image's entrypoint has appended "host all all all": replace the whole file. Inside the
# container (the socket, loopback) every role; from the networks, only the replication role
# (to stream) and the two application roles (to their database); anything else is refused.
hba() { printf '%-7s %-12s %-32s %-18s %s\n' "$@"; }
{
	echo '# Written by db/scripts/init-primary.sh; replicas copy it with their base backup.'
	hba '# TYPE' DATABASE USER ADDRESS METHOD
	hba local all all '' trust
	hba host all all 127.0.0.1/32 scram-sha-256
	hba host all all ::1/128 scram-sha-256
	hba host replication "\"$replication_user\"" 127.0.0.1/32 scram-sha-256
	hba host replication "\"$replication_user\"" ::1/128 scram-sha-256
	hba host replication "\"$replication_user\"" "$replication_cidr" scram-sha-256
	hba host "\"$app_database\"" "\"$app_username\",\"$migration_username\"" "$DB_ALLOWED_CIDR" scram-sha-256
	hba host all all all reject
	hba host replication all all reject
} > "$PGDATA/pg_hba.conf"

# The shared settings take effect at the real start that follows; a missing file must
# stop that start rather than be skipped.
printf "\n# The compose cluster's shared settings.\ninclude = '%s'\n" "$cluster_conf" >> "$PGDATA/postgresql.conf"

echo "init-primary: roles $migration_username (owner of database $app_database), $app_username (runtime) and $replication_user, slots ($replica_names); application roles from $DB_ALLOWED_CIDR, replication from $replication_cidr"
