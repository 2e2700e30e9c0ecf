#!/usr/bin/env bash
# Who may log in, with which password and from where, derived from the secrets and the
# environment as they are now: the part of a node's set-up that must follow a changed secret or
# network, so it runs on every start, not only on the first. db/scripts/primary.sh runs it
# before each start of the primary, against a temporary server on a private Unix socket only
# (init-primary.sh runs it first when it initialises); db/scripts/replica.sh runs
# "derive-access.sh pg_hba" before each start of a replica that is given DB_ALLOWED_CIDR.
#
#   derive-access.sh          the roles' passwords, then pg_hba.conf
#   derive-access.sh pg_hba   pg_hba.conf alone: a standby cannot write its catalog, and has
#                             its roles and passwords from the primary
#
# The roles are created if missing and given their current passwords: the migration role, the
# runtime role, the replication role, and the superuser when POSTGRES_PASSWORD is given.
# pg_hba.conf is written anew, whatever an older script or a hand left in it. Connection
# settings come from libpq's variables (PGHOST, PGPORT), the rest from these:
#   PGDATA                      the data directory (set by the image)
#   POSTGRES_USER               superuser to connect as (default postgres)
#   POSTGRES_PASSWORD           its password for TCP (optional: kept as it is when unset)
#   APP_DB_DATABASE             the application's database (default profiles)
#   APP_DB_USERNAME             the service's runtime role (default profiles)
#   APP_DB_PASSWORD             its password (required, not for pg_hba)
#   APP_DB_MIGRATION_USERNAME   the migration role (default ${APP_DB_USERNAME}_owner)
#   APP_DB_MIGRATION_PASSWORD   its password (required, not for pg_hba)
#   REPLICATION_USER            the streaming role (default replicator)
#   REPLICATION_PASSWORD        its password (required, not for pg_hba)
#   DB_ALLOWED_CIDR             the network the service connects from (required): the only one
#                               from which the runtime role may log in, and only to the
#                               application's database; the compose network's subnet, or samenet
#   DB_MIGRATION_CIDR           the network the migrations run from (default DB_ALLOWED_CIDR):
#                               the only one from which the migration role may log in, and only
#                               to the application's database; a one-shot migration container on
#                               a network of its own names that network here
#   DB_REPLICATION_CIDR         the network the replicas stream from (default DB_ALLOWED_CIDR):
#                               the database network's subnet
# Every password may come from a file instead (X_FILE=/run/secrets/..., db/scripts/file-env.sh).
# The superuser is accepted over the Unix socket and the loopback addresses only, never from a
# network. On success it prints one line, what it derived (never a password), and nothing else.
set -Eeuo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/file-env.sh"

mode=${1:-all}
case $mode in
	all | pg_hba) ;;
	*)
		echo "derive-access: unknown mode '$mode': give none, or pg_hba" >&2
		exit 1
		;;
esac
: "${PGDATA:?PGDATA must name the data directory}"
if [ "$mode" = all ]; then
	file_env POSTGRES_PASSWORD
	file_env APP_DB_PASSWORD required
	file_env APP_DB_MIGRATION_PASSWORD required
	file_env REPLICATION_PASSWORD required
fi
: "${DB_ALLOWED_CIDR:?DB_ALLOWED_CIDR must name the network clients connect from}"
migration_cidr=${DB_MIGRATION_CIDR:-$DB_ALLOWED_CIDR}
replication_cidr=${DB_REPLICATION_CIDR:-$DB_ALLOWED_CIDR}
superuser=${POSTGRES_USER:-postgres}
app_database=${APP_DB_DATABASE:-profiles}
app_username=${APP_DB_USERNAME:-profiles}
migration_username=${APP_DB_MIGRATION_USERNAME:-${app_username}_owner}
replication_user=${REPLICATION_USER:-replicator}

# pg_hba.conf quotes these names and has no escape for a double quote inside one.
for name in "$app_database" "$app_username" "$migration_username" "$replication_user"; do
	case $name in
		*'"'* | *$'\n'* | '')
			echo "derive-access: database and role names must be non-empty, without double quotes or line breaks: '$name'" >&2
			exit 1
			;;
	esac
done
# A space or a line break would add fields or lines to the rules below.
for cidr in "$DB_ALLOWED_CIDR" "$migration_cidr" "$replication_cidr"; do
	case $cidr in
		*[[:space:]]* | '')
			echo "derive-access: a network must be one address with its mask, or samenet: '$cidr'" >&2
			exit 1
			;;
	esac
done

passwords=
if [ "$mode" = all ]; then
	# The passwords reach psql in its environment, which only its own user can read, and become
	# psql variables with \getenv: never on a command line, where every user of the host can
	# read them in /proc while psql runs. psql variables quote names (:"x") and literals (:'x'),
	# so passwords need no escaping here. The roles' privileges are given once, by
	# init-primary.sh and the migrations.
	psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password --quiet --username "$superuser" --dbname postgres)
	# The superuser's only when given (an empty one would be set as the password).
	unset DERIVED_SUPERUSER_PASSWORD
	if [ -n "${POSTGRES_PASSWORD:-}" ]; then
		export DERIVED_SUPERUSER_PASSWORD=$POSTGRES_PASSWORD
	fi
	"${psql[@]}" --set superuser="$superuser" \
		--set app_username="$app_username" --set migration_username="$migration_username" \
		--set replication_user="$replication_user" <<-'SQL'
	\getenv app_password APP_DB_PASSWORD
	\getenv migration_password APP_DB_MIGRATION_PASSWORD
	\getenv replication_password REPLICATION_PASSWORD
	\getenv superuser_password DERIVED_SUPERUSER_PASSWORD
	SELECT format('CREATE ROLE %I LOGIN', :'migration_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'migration_username') \gexec
	ALTER ROLE :"migration_username" PASSWORD :'migration_password';
	SELECT format('CREATE ROLE %I LOGIN', :'app_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_username') \gexec
	ALTER ROLE :"app_username" PASSWORD :'app_password';
	SELECT format('CREATE ROLE %I LOGIN REPLICATION', :'replication_user')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'replication_user') \gexec
	ALTER ROLE :"replication_user" PASSWORD :'replication_password';
	\if :{?superuser_password}
	ALTER ROLE :"superuser" PASSWORD :'superuser_password';
	\endif
	SQL
	unset DERIVED_SUPERUSER_PASSWORD
	passwords="passwords of $migration_username, $app_username, $replication_user"
	if [ -n "${POSTGRES_PASSWORD:-}" ]; then
		passwords+=" and $superuser"
	fi
	passwords+="; "
fi

# The whole file, whatever was there: initdb's, or one an older script or a hand left. Inside
# the container (the socket, loopback) every role; from the networks, only the replication
# role (to stream) and the two application roles (to their database, each from its own
# network); anything else is refused. Written beside and renamed, so a server never reads
# half a file.
hba() { printf '%-7s %-12s %-32s %-18s %s\n' "$@"; }
{
	echo '# Written by db/scripts/derive-access.sh at every start of the node, from its environment:'
	echo '# edits here are lost at the next start. Replicas copy it with their base backup.'
	hba '# TYPE' DATABASE USER ADDRESS METHOD
	hba local all all '' trust
	hba host all all 127.0.0.1/32 scram-sha-256
	hba host all all ::1/128 scram-sha-256
	hba host replication "\"$replication_user\"" 127.0.0.1/32 scram-sha-256
	hba host replication "\"$replication_user\"" ::1/128 scram-sha-256
	hba host replication "\"$replication_user\"" "$replication_cidr" scram-sha-256
	hba host "\"$app_database\"" "\"$app_username\"" "$DB_ALLOWED_CIDR" scram-sha-256
	hba host "\"$app_database\"" "\"$migration_username\"" "$migration_cidr" scram-sha-256
	hba host all all all reject
	hba host replication all all reject
} > "$PGDATA/pg_hba.conf.new"
chmod 600 "$PGDATA/pg_hba.conf.new"
mv "$PGDATA/pg_hba.conf.new" "$PGDATA/pg_hba.conf"

echo "${passwords}pg_hba.conf: $app_username from $DB_ALLOWED_CIDR, $migration_username from $migration_cidr, $replication_user from $replication_cidr"
