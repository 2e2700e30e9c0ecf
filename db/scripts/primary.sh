#!/usr/bin/env bash
# Entrypoint of the primary (docker-compose.yml's primary). The project's own, not the
# official image's, so that the official postgres image and a stand-in built from Debian's
# packages (docker/local-images.sh) start the same way.
#
# An empty data directory is initialised first: initdb (UTF-8, locale C.UTF-8, the superuser's
# password for TCP, trust on the container's own Unix socket as in the official image), a
# temporary server on a private Unix socket only, db/scripts/init-primary.sh against it
# (roles, database, slots, pg_hba.conf, the shared settings), and a clean stop. A data
# directory that exists already gets the same kind of temporary server and
# db/scripts/derive-access.sh against it: the roles' passwords (the superuser's too, when
# POSTGRES_PASSWORD is given) and pg_hba.conf are derived again from the secrets and the
# environment, so a volume made by older scripts or with older passwords follows the current
# ones, before anyone else can connect. Both kinds of start then run db/scripts/monitoring.sh
# (the runtime role's read of the standbys, and no more). (A data directory that holds a standby gets its
# pg_hba.conf alone: its catalog is its primary's.) Then postgres itself. Extra arguments go
# to postgres.
#
#   PGDATA             the data directory (set by the image)
#   POSTGRES_PASSWORD  the superuser's password (required at initialisation; at a later start,
#                      given again when set, kept as it is when not)
#   POSTGRES_USER      the superuser (default postgres)
#   and the variables of init-primary.sh and derive-access.sh
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

scripts=$(dirname "${BASH_SOURCE[0]}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The temporary server: no TCP, a socket in a directory only this user may enter, no
# synchronous standby to wait for (none can connect to it), and no statement text in its log
# (a failed ALTER ROLE would show a password). It waits as long as crash recovery takes: pg_ctl
# returns at once if the server fails.
start_private() {
	mkdir -p "$work/socket"
	pg_ctl -D "$PGDATA" -w -t 86400 -o "-c listen_addresses='' -c unix_socket_directories=$work/socket -c port=5432 \
		-c synchronous_standby_names='' -c log_min_error_statement=panic" start >&2
}
stop_private() {
	pg_ctl -D "$PGDATA" -w -t 86400 -m fast stop >&2
}
on_private() {
	PGHOST="$work/socket" PGPORT=5432 POSTGRES_USER="$superuser" "$@"
}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	file_env POSTGRES_PASSWORD required
	log "initialising an empty data directory in $PGDATA"
	printf '%s\n' "$POSTGRES_PASSWORD" > "$work/password"
	initdb -D "$PGDATA" -U "$superuser" --pwfile="$work/password" --auth-local=trust --auth-host=scram-sha-256 \
		--encoding=UTF8 --locale=C.UTF-8 >&2
	rm -f "$work/password"
	start_private
	if ! on_private bash "$scripts/init-primary.sh"; then
		stop_private || true
		log "init-primary.sh failed; removing the half-initialised $PGDATA so that the next start begins again"
		find "$PGDATA" -mindepth 1 -delete
		exit 1
	fi
	if ! monitoring=$(on_private bash "$scripts/monitoring.sh"); then
		stop_private || true
		log "monitoring.sh failed; removing the half-initialised $PGDATA so that the next start begins again"
		find "$PGDATA" -mindepth 1 -delete
		exit 1
	fi
	stop_private
	log "initialised; $monitoring"
elif [ -e "$PGDATA/standby.signal" ] || [ -e "$PGDATA/recovery.signal" ]; then
	access=$(bash "$scripts/derive-access.sh" pg_hba)
	log "re-derived from the environment, this node being a standby: $access"
else
	start_private
	if ! access=$(on_private bash "$scripts/derive-access.sh"); then
		stop_private || true
		log "derive-access.sh failed; not starting postgres with the access of an older start"
		exit 1
	fi
	if ! monitoring=$(on_private bash "$scripts/monitoring.sh"); then
		stop_private || true
		log "monitoring.sh failed; not starting postgres with the privileges of an older start"
		exit 1
	fi
	stop_private
	log "re-derived from the secrets: $access; $monitoring"
fi
rm -rf "$work"
unset "${secrets[@]}"
exec postgres -D "$PGDATA" "$@"
