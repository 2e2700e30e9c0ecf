#!/usr/bin/env bash
# Entrypoint of a streaming replica (docker-compose.yml's replica1 and replica2).
#
# An empty data directory is cloned from the primary with pg_basebackup, waiting and retrying
# while the primary is not up yet. A data directory that already holds a standby is just
# started, so restarting or recreating the container keeps its volume and needs no rebuild.
# A data directory without standby.signal belongs to a replica that was promoted: it starts as
# it is. Every start passes primary_conninfo on the command line, so a new host or password
# in the environment takes effect at the next restart. Extra arguments go to postgres.
#
#   PGDATA                the data directory (set by the image); its parent must be writable,
#                         since the base backup is taken next to it and renamed into place
#   REPLICA_NAME          application_name and replication slot, e.g. replica1 (required)
#   REPLICATION_PASSWORD  password of the streaming role (required), or REPLICATION_PASSWORD_FILE
#                         naming a file that holds it (/run/secrets/...; file-env.sh), read
#                         while the script may still run as root
#   REPLICATION_USER      the streaming role (default replicator)
#   PRIMARY_HOST          (default primary)
#   PRIMARY_PORT          (default 5432)
#   REPLICATION_PASSFILE  where the password file for libpq is written at every start
#                         (default /tmp/replication-$REPLICA_NAME.pgpass)
#   RETRY_SECONDS         pause between attempts to reach the primary (default 2)
#   BOOTSTRAP_TIMEOUT     give up cloning after this many seconds; 0 never does (default 0)
#   DB_ALLOWED_CIDR       when set, pg_hba.conf is written anew at every start, as the primary
#                         writes its own (db/scripts/derive-access.sh pg_hba, which names the
#                         other variables it reads: DB_MIGRATION_CIDR, DB_REPLICATION_CIDR, the
#                         database and role names); when not, the copy of the primary's that the
#                         base backup brought stays as it is, however old
# The PostgreSQL binaries are found on PATH, as the image sets it.
set -Eeuo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/file-env.sh"

: "${PGDATA:?PGDATA must name the data directory}"
: "${REPLICA_NAME:?REPLICA_NAME must name this replica, e.g. replica1}"
file_env REPLICATION_PASSWORD required
replication_user=${REPLICATION_USER:-replicator}
primary_host=${PRIMARY_HOST:-primary}
primary_port=${PRIMARY_PORT:-5432}
passfile=${REPLICATION_PASSFILE:-/tmp/replication-$REPLICA_NAME.pgpass}
retry_seconds=${RETRY_SECONDS:-2}
bootstrap_timeout=${BOOTSTRAP_TIMEOUT:-0}

log() {
	printf '%s replica.sh %s: %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$REPLICA_NAME" "$*" >&2
}

# The image's default command; whatever follows it is for postgres too.
if [ "${1:-}" = postgres ]; then
	shift
fi

# PostgreSQL refuses to run as root. The image starts containers as root: hand the
# directories to postgres and continue as postgres, as the image's own entrypoint does.
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$(dirname "$PGDATA")"
	chown postgres:postgres "$(dirname "$PGDATA")"
	if [ -d "$PGDATA" ]; then
		find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
	fi
	exec gosu postgres bash "${BASH_SOURCE[0]}" "$@"
fi

# libpq reads the password from a file, so it appears neither in a command line nor in the
# data directory. Fields are escaped as the .pgpass format wants.
escaped_user=$(printf '%s' "$replication_user" | sed 's/[\\:]/\\&/g')
escaped_password=$(printf '%s' "$REPLICATION_PASSWORD" | sed 's/[\\:]/\\&/g')
(umask 077 && printf '*:*:*:%s:%s\n' "$escaped_user" "$escaped_password" > "$passfile")
unset REPLICATION_PASSWORD escaped_password
export PGPASSFILE=$passfile PGCONNECT_TIMEOUT=5

# Until postgres replaces this script, a stop request (docker stop sends SIGINT) must end
# it at once. As a container's PID 1, bash would ignore signals it does not trap, and it runs
# a trap only once a foreground command returns: commands run in the background and are
# waited for, which a trapped signal interrupts.
child=
on_stop() {
	log "stop requested before the standby started"
	if [ -n "$child" ]; then
		kill "$child" 2>/dev/null || true
	fi
	exit 143
}
trap on_stop INT TERM
interruptible() {
	"$@" &
	child=$!
	local status=0
	wait "$child" || status=$?
	child=
	return "$status"
}

bootstrap() {
	local staging="$PGDATA.bootstrap" started=$SECONDS attempt=0
	if [ -d "$PGDATA" ] && [ -n "$(ls -A "$PGDATA")" ]; then
		log "$PGDATA is not empty and holds no data directory (no PG_VERSION); refusing to overwrite it"
		exit 1
	fi
	while true; do
		attempt=$((attempt + 1))
		rm -rf "$staging"
		if interruptible pg_isready -q -h "$primary_host" -p "$primary_port" -t 5 \
			&& interruptible pg_basebackup -h "$primary_host" -p "$primary_port" -U "$replication_user" -w \
				-D "$staging" -X stream -S "$REPLICA_NAME" -c fast; then
			break
		fi
		if [ "$bootstrap_timeout" -gt 0 ] && [ $((SECONDS - started)) -ge "$bootstrap_timeout" ]; then
			log "no base backup from $primary_host:$primary_port within ${bootstrap_timeout}s; giving up"
			rm -rf "$staging"
			exit 1
		fi
		log "primary $primary_host:$primary_port not ready for a base backup (attempt $attempt); retrying in ${retry_seconds}s"
		interruptible sleep "$retry_seconds"
	done
	touch "$staging/standby.signal"
	# The complete copy appears under PGDATA in one rename: a container killed halfway leaves
	# only the staging directory, which the next attempt deletes.
	if [ -d "$PGDATA" ]; then
		rmdir "$PGDATA" || {
			log "cannot replace $PGDATA (a mount point?): mount the volume at its parent"
			exit 1
		}
	fi
	mv "$staging" "$PGDATA"
	log "cloned from $primary_host:$primary_port after $attempt attempt(s)"
}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	bootstrap
fi

# The roles and their passwords come from the primary with the WAL; pg_hba.conf does not, and
# serves this node's own clients (the service's reads, a standby streaming from it after a
# failover).
if [ -n "${DB_ALLOWED_CIDR:-}" ]; then
	access=$(bash "$(dirname "${BASH_SOURCE[0]}")/derive-access.sh" pg_hba)
	log "re-derived from the environment: $access"
else
	log "pg_hba.conf is the one the base backup copied: DB_ALLOWED_CIDR is not set"
fi

if [ -f "$PGDATA/standby.signal" ]; then
	log "starting as a standby of $primary_host:$primary_port"
	set -- -c "primary_conninfo=host=$primary_host port=$primary_port user=$replication_user application_name=$REPLICA_NAME passfile=$passfile connect_timeout=5" \
		-c "primary_slot_name=$REPLICA_NAME" "$@"
else
	log "no standby.signal in $PGDATA: this node was promoted, starting it as a primary"
fi
trap - INT TERM
exec postgres -D "$PGDATA" -c "cluster_name=$REPLICA_NAME" "$@"
