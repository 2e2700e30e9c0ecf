#!/usr/bin/env bash
# First start of the primary: roles, database, replication slots, pg_stat_statements,
# pg_hba.conf and the shared settings. db/scripts/primary.sh, the primary's entrypoint, runs
# it once, after initdb and while a temporary server listens on a private Unix socket only;
# ComposeScriptsIntegrationTests runs it through primary.sh too. Connection settings
# come from libpq's variables (PGHOST, PGPORT), the rest from these:
#   PGDATA                 the data directory (set by the image)
#   POSTGRES_USER          superuser to connect as (default postgres)
#   APP_DB_DATABASE        the application's database (default profiles)
#   APP_DB_USERNAME        the application's role, owner of that database (default profiles)
#   APP_DB_PASSWORD        its password (required)
#   REPLICATION_USER       the streaming role (default replicator)
#   REPLICATION_PASSWORD   its password (required)
#   DB_ALLOWED_CIDR        the only network TCP clients may come from (required): the compose
#                          network's subnet, or samenet
#   CLUSTER_CONF           settings file included by postgresql.conf
#                          (default /etc/postgresql/cluster.conf)
#   REPLICA_NAMES          one replication slot each (default "replica1 replica2")
set -Eeuo pipefail

: "${PGDATA:?PGDATA must name the data directory}"
: "${APP_DB_PASSWORD:?APP_DB_PASSWORD is required}"
: "${REPLICATION_PASSWORD:?REPLICATION_PASSWORD is required}"
: "${DB_ALLOWED_CIDR:?DB_ALLOWED_CIDR must name the network clients connect from}"
app_database=${APP_DB_DATABASE:-profiles}
app_username=${APP_DB_USERNAME:-profiles}
replication_user=${REPLICATION_USER:-replicator}
cluster_conf=${CLUSTER_CONF:-/etc/postgresql/cluster.conf}
replica_names=${REPLICA_NAMES:-replica1 replica2}

if [ ! -r "$cluster_conf" ]; then
	echo "init-primary: $cluster_conf is missing: mount db/postgresql/cluster.conf there" >&2
	exit 1
fi

psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password --username "${POSTGRES_USER:-postgres}")

# psql variables quote names (:"x") and literals (:'x'), so passwords need no escaping here.
"${psql[@]}" --dbname postgres \
	--set app_database="$app_database" --set app_username="$app_username" \
	--set app_password="$APP_DB_PASSWORD" --set replication_user="$replication_user" \
	--set replication_password="$REPLICATION_PASSWORD" --set replica_names="$replica_names" <<-'SQL'
	SELECT format('CREATE ROLE %I LOGIN', :'app_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_username') \gexec
	ALTER ROLE :"app_username" PASSWORD :'app_password';
	-- Health details and the routing tests read pg_stat_replication and pg_stat_statements.
	GRANT pg_monitor TO :"app_username";
	SELECT format('CREATE DATABASE %I OWNER %I', :'app_database', :'app_username')
	WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'app_database') \gexec
	SELECT format('CREATE ROLE %I LOGIN REPLICATION', :'replication_user')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'replication_user') \gexec
	ALTER ROLE :"replication_user" PASSWORD :'replication_password';
	-- One slot per replica: the primary keeps the WAL a replica has not received yet.
	SELECT pg_create_physical_replication_slot(s.slot)
	FROM unnest(string_to_array(:'replica_names', ' ')) AS s(slot)
	WHERE s.slot <> '' AND NOT EXISTS (SELECT FROM pg_replication_slots r WHERE r.slot_name = s.slot) \g /dev/null
	SQL

"${psql[@]}" --dbname "$app_database" -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements'

# The image's entrypoint has appended "host all all all": replace the whole file, so TCP
# clients are accepted from the allowed network only. The socket stays inside the container.
hba() { printf '%-7s %-12s %-14s %-18s %s\n' "$@"; }
{
	echo '# Written by db/scripts/init-primary.sh; replicas copy it with their base backup.'
	hba '# TYPE' DATABASE USER ADDRESS METHOD
	hba local all all '' trust
	hba host all all 127.0.0.1/32 scram-sha-256
	hba host all all ::1/128 scram-sha-256
	hba host all all "$DB_ALLOWED_CIDR" scram-sha-256
	hba host replication "$replication_user" 127.0.0.1/32 scram-sha-256
	hba host replication "$replication_user" "$DB_ALLOWED_CIDR" scram-sha-256
} > "$PGDATA/pg_hba.conf"

# The shared settings take effect at the real start that follows; a missing file must
# stop that start rather than be skipped.
printf "\n# The compose cluster's shared settings.\ninclude = '%s'\n" "$cluster_conf" >> "$PGDATA/postgresql.conf"

echo "init-primary: roles $app_username and $replication_user, database $app_database, slots ($replica_names); TCP from $DB_ALLOWED_CIDR"
