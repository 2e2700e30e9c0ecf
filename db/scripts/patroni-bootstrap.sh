#!/usr/bin/env bash
# Patroni's post_bootstrap for docker-compose.ha.yml: run once, on the node that initialised
# the cluster, while it is the only one. Patroni passes a connection string to the new
# primary as the first argument; it has created the superuser, replication and rewind roles.
# This adds the service's role and database and pg_stat_statements, as init-primary.sh does
# for the plain deployment:
#   APP_DB_DATABASE   the application's database (default profiles)
#   APP_DB_USERNAME   the application's role, owner of that database (default profiles)
#   APP_DB_PASSWORD   its password (required)
set -Eeuo pipefail
: "${1:?usage: patroni-bootstrap.sh CONNECTION_STRING (Patroni passes it)}"
: "${APP_DB_PASSWORD:?APP_DB_PASSWORD is required}"
app_database=${APP_DB_DATABASE:-profiles}
app_username=${APP_DB_USERNAME:-profiles}

psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password)

# psql variables quote names (:"x") and literals (:'x'), so the password needs no escaping.
"${psql[@]}" --dbname "$1" --set app_database="$app_database" --set app_username="$app_username" \
	--set app_password="$APP_DB_PASSWORD" <<-'SQL'
	SELECT format('CREATE ROLE %I LOGIN', :'app_username')
	WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_username') \gexec
	ALTER ROLE :"app_username" PASSWORD :'app_password';
	GRANT pg_monitor TO :"app_username";
	SELECT format('CREATE DATABASE %I OWNER %I', :'app_database', :'app_username')
	WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'app_database') \gexec
	\connect :app_database
	CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
	SQL
echo "patroni-bootstrap: role $app_username, database $app_database"
