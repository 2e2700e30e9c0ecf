#!/usr/bin/env bash
# Patroni's post_bootstrap for docker-compose.ha.yml: run once, on the node that initialised
# the cluster, while it is the only one. Patroni passes a connection string to the new
# primary as the first argument; it has created the superuser, replication and rewind roles.
# This adds the service's two roles, its database and pg_stat_statements, with the privileges
# init-primary.sh gives them in the plain deployment:
#   APP_DB_DATABASE             the application's database (default profiles)
#   APP_DB_USERNAME             the service's runtime role (default profiles): it may connect,
#                               read and insert, and owns nothing
#   APP_DB_PASSWORD             its password (required)
#   APP_DB_MIGRATION_USERNAME   the migration role (default ${APP_DB_USERNAME}_owner): owner of
#                               the database and its schema, the role Flyway runs as
#   APP_DB_MIGRATION_PASSWORD   its password (required)
# Either password may come from a file instead (X_FILE=/run/secrets/..., file-env.sh), which
# Patroni's user (postgres) must be able to read. Who may connect from where is pg_hba in
# docker/ha/patroni.yml.
set -Eeuo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/file-env.sh"
: "${1:?usage: patroni-bootstrap.sh CONNECTION_STRING (Patroni passes it)}"
file_env APP_DB_PASSWORD required
file_env APP_DB_MIGRATION_PASSWORD required
app_database=${APP_DB_DATABASE:-profiles}
app_username=${APP_DB_USERNAME:-profiles}
migration_username=${APP_DB_MIGRATION_USERNAME:-${app_username}_owner}

psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password)

# The passwords reach psql in its environment (file_env exported them), which only its own user
# can read, and become psql variables with \getenv: never on a command line, which every user
# of the host can read in /proc while psql runs. psql variables quote names (:"x") and literals
# (:'x'), so the passwords need no escaping. The same statements as init-primary.sh; the
# service's tables are granted by its migrations.
"${psql[@]}" --dbname "$1" --set app_database="$app_database" --set app_username="$app_username" \
	--set migration_username="$migration_username" <<-'SQL'
	\getenv app_password APP_DB_PASSWORD
	\getenv migration_password APP_DB_MIGRATION_PASSWORD
	SELECT format('CREATE ROLE %I LOGIN', :'migration_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'migration_username') \gexec
	ALTER ROLE :"migration_username" PASSWORD :'migration_password';
	SELECT format('CREATE ROLE %I LOGIN', :'app_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_username') \gexec
	ALTER ROLE :"app_username" PASSWORD :'app_password';
	SELECT format('CREATE DATABASE %I OWNER %I', :'app_database', :'migration_username')
	WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'app_database') \gexec
	REVOKE ALL ON DATABASE :"app_database" FROM PUBLIC;
	GRANT CONNECT ON DATABASE :"app_database" TO :"app_username";
	\connect :"app_database"
	ALTER SCHEMA public OWNER TO :"migration_username";
	REVOKE ALL ON SCHEMA public FROM PUBLIC;
	GRANT USAGE ON SCHEMA public TO :"app_username";
	CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
	SQL
# The runtime role's read of the standbys (patroni-roles.sh runs it again at every start).
bash "$(dirname "${BASH_SOURCE[0]}")/monitoring.sh" "$1"
echo "patroni-bootstrap: roles $migration_username (owner of database $app_database) and $app_username (runtime)"
