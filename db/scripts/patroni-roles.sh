#!/usr/bin/env bash
# Patroni's on_start and on_role_change callback (docker/ha/patroni.yml): on the leader, sets
# every role's password from its secret file again, so that the passwords follow the secrets
# directory on every start and promotion, also on a volume made with other ones, and runs
# db/scripts/monitoring.sh (the runtime role's read of the standbys). Patroni calls
# it with the action, the node's new role and the cluster's name; on a replica it does nothing
# (a standby is read-only; its leader does it). It connects as the superuser over the node's
# Unix socket, where pg_hba trusts the container's own processes.
#   SUPERUSER_PASSWORD_FILE, REPLICATION_PASSWORD_FILE   postgres, replicator and rewinder
#   APP_DB_PASSWORD_FILE, APP_DB_MIGRATION_PASSWORD_FILE the service's two roles
#   APP_DB_USERNAME, APP_DB_MIGRATION_USERNAME           their names
# A role that does not exist yet (the first start, before patroni-bootstrap.sh made it) is
# left alone. Nothing is printed of a password.
set -Eeuo pipefail
action=${1:-} role=${2:-}
case $role in
	primary | master) ;;
	*) exit 0 ;;
esac
password() { cat "${!1:?$1 must name a file}"; }
# Patroni runs on_role_change as the promotion begins, while the node is still read-only, and
# on_start as soon as PostgreSQL accepts connections: wait until it is out of recovery (or give
# up after a minute: the next start or promotion tries again).
writable=
for _ in $(seq 1 60); do
	if [ "$(psql -h /var/run/postgresql -U postgres -d postgres -XAtqc 'SELECT NOT pg_is_in_recovery()' 2>/dev/null)" = t ]; then
		writable=1
		break
	fi
	sleep 1
done
if [ -z "$writable" ]; then
	echo "patroni-roles.sh ($action as $role): still read-only after 60 s; the passwords were not set" >&2
	exit 1
fi
# The passwords reach psql in its environment, which only its own user can read, and become
# psql variables with \getenv: never on a command line, which every user of the host can read
# in /proc while psql runs.
ROLES_POSTGRES_PASSWORD=$(password SUPERUSER_PASSWORD_FILE)
ROLES_REPLICATION_PASSWORD=$(password REPLICATION_PASSWORD_FILE)
ROLES_APP_PASSWORD=$(password APP_DB_PASSWORD_FILE)
ROLES_MIGRATION_PASSWORD=$(password APP_DB_MIGRATION_PASSWORD_FILE)
export ROLES_POSTGRES_PASSWORD ROLES_REPLICATION_PASSWORD ROLES_APP_PASSWORD ROLES_MIGRATION_PASSWORD
psql -h /var/run/postgresql -v ON_ERROR_STOP=1 --no-psqlrc --no-password -U postgres -d postgres -q \
	--set app_username="${APP_DB_USERNAME:-profiles}" \
	--set migration_username="${APP_DB_MIGRATION_USERNAME:-profiles_owner}" <<-'SQL'
	\getenv postgres_password ROLES_POSTGRES_PASSWORD
	\getenv replication_password ROLES_REPLICATION_PASSWORD
	\getenv app_password ROLES_APP_PASSWORD
	\getenv migration_password ROLES_MIGRATION_PASSWORD
	-- No statement is logged with its password: log_statement stays 'none' for this session.
	SET log_statement = 'none';
	-- Right after a promotion no standby may be connected yet: the change must not wait for one
	-- (a leader that dies before a standby has it is followed by one that runs this again).
	SET synchronous_commit = local;
	SELECT format('ALTER ROLE %I PASSWORD %L', r.name, r.password)
	FROM (VALUES ('postgres', :'postgres_password'), ('replicator', :'replication_password'),
	             ('rewinder', :'replication_password'), (:'app_username', :'app_password'),
	             (:'migration_username', :'migration_password')) AS r(name, password)
	WHERE EXISTS (SELECT FROM pg_roles WHERE rolname = r.name) \gexec
	SQL
unset ROLES_POSTGRES_PASSWORD ROLES_REPLICATION_PASSWORD ROLES_APP_PASSWORD ROLES_MIGRATION_PASSWORD
echo "patroni-roles.sh ($action as $role): the roles' passwords set from the secrets"
# The runtime role's read of the standbys, and no membership of pg_read_all_stats.
PGHOST=/var/run/postgresql POSTGRES_USER=postgres bash "$(dirname "${BASH_SOURCE[0]}")/monitoring.sh"
