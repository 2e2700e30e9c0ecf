#!/usr/bin/env bash
# Entrypoint of the primary (docker-compose.yml's primary). The project's own, not the
# official image's, so that the official postgres image and a stand-in built from Debian's
# packages (docker/local-images.sh) start the same way.
#
# An empty data directory is initialised first: initdb (UTF-8, locale C.UTF-8, the superuser's
# password for TCP, trust on the container's own Unix socket as in the official image), a
# temporary server on a private Unix socket only, db/scripts/init-primary.sh against it
# (roles, database, slots, pg_hba.conf, the shared settings), and a clean stop. Then, on every
# start, postgres itself. Extra arguments go to postgres.
#
#   PGDATA             the data directory (set by the image)
#   POSTGRES_PASSWORD  the superuser's password, used only at initialisation (required then)
#   POSTGRES_USER      the superuser (default postgres)
#   and the variables of init-primary.sh
# Every password may come from a file instead (X_FILE=/run/secrets/..., file-env.sh): they are
# read here, while the script may still run as root and read what only root may, and none of
# them stays in the environment of the server.
# The PostgreSQL binaries are found on PATH, as the image sets it.
set -Eeuo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/file-env.sh"
: "${PGDATA:?PGDATA must name the data directory}"
superuser=${POSTGRES_USER:-postgres}
secrets=(POSTGRES_PASSWORD APP_DB_PASSWORD APP_DB_MIGRATION_PASSWORD REPLICATION_PASSWORD)
for secret in "${secrets[@]}"; do
	file_env "$secret"
done

log() {
	printf '%s primary.sh: %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$*" >&2
}

# The image's default command; whatever follows it is for postgres too.
if [ "${1:-}" = postgres ]; then
	shift
fi
# PostgreSQL refuses to run as root. The image starts containers as root: hand the
# directories to postgres and continue as postgres, as replica.sh does.
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA"
	chown postgres:postgres "$(dirname "$PGDATA")"
	find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
	chmod 700 "$PGDATA"
	exec gosu postgres bash "${BASH_SOURCE[0]}" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	file_env POSTGRES_PASSWORD required
	log "initialising an empty data directory in $PGDATA"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	printf '%s\n' "$POSTGRES_PASSWORD" > "$work/password"
	initdb -D "$PGDATA" -U "$superuser" --pwfile="$work/password" --auth-local=trust --auth-host=scram-sha-256 \
		--encoding=UTF8 --locale=C.UTF-8 >&2
	rm -f "$work/password"
	mkdir "$work/socket"
	pg_ctl -D "$PGDATA" -w -t 60 -o "-c listen_addresses='' -c unix_socket_directories=$work/socket" start >&2
	if ! PGHOST="$work/socket" PGPORT=5432 POSTGRES_USER="$superuser" bash "$(dirname "${BASH_SOURCE[0]}")/init-primary.sh"; then
		pg_ctl -D "$PGDATA" -w -m fast stop >&2 || true
		log "init-primary.sh failed; removing the half-initialised $PGDATA so that the next start begins again"
		find "$PGDATA" -mindepth 1 -delete
		exit 1
	fi
	pg_ctl -D "$PGDATA" -w -m fast stop >&2
	log "initialised"
fi
unset "${secrets[@]}"
exec postgres -D "$PGDATA" "$@"
