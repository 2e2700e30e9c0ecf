#!/usr/bin/env bash
# Fails the compose deployment over to the freshest standby, after its primary died (or to
# take the primary out on purpose). The procedure of docs/reliability.md, as one command:
#
#   1. fence the failed primary: `docker compose stop`, so that it stays down (the containers
#      restart unless stopped, and a primary whose postgres was killed would come back writable);
#   2. compare the two standbys' received WAL positions and pick the higher;
#   3. on it: synchronous_standby_names for its future standbys, pg_promote, their slots;
#   4. re-point the other standby at it (a new container with PRIMARY_HOST set; its data stays);
#   5. delete the failed primary's volume and clone it again as a standby of the new primary
#      (it may hold WAL the new primary never saw, so it cannot simply follow);
#   6. wait until both standbys stream from the new primary as quorum standbys.
#
# The service needs nothing: its write pool lists every node and finds the new primary.
#
# Usage, with the compose options of your `up` (project, env files), never -f:
#   bash docker/failover.sh [compose options]
#   bash docker/failover.sh --env-file docker/local-images.env
#
# The new roles go into an override file (FAILOVER_FILE, default docker-compose.failover.yml
# next to docker-compose.yml, ignored by git). From then on pass it to every compose command:
#   docker compose -f docker-compose.yml -f docker-compose.failover.yml up -d
# The next failover reads the current primary from it ("# leader:" line), so failing over
# again, and again, works the same way.
set -Eeuo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
override=${FAILOVER_FILE:-$root/docker-compose.failover.yml}
nodes=(primary replica1 replica2)
began=$SECONDS

log() {
	printf '%s failover.sh [%3d s]: %s\n' "$(date -u '+%H:%M:%S')" "$((SECONDS - began))" "$*" >&2
}

files=(-f "$root/docker-compose.yml")
[ -s "$override" ] && files+=(-f "$override")
# The files, then the compose options given to this script, then the command.
options=("$@")
dc() {
	docker compose "${files[@]}" "${options[@]}" "$@"
}
sql() {
	local node=$1
	shift
	dc exec -T "$node" psql -U postgres -d postgres -XAtq -v ON_ERROR_STOP=1 -c "$1"
}

old=primary
if [ -s "$override" ]; then
	old=$(sed -n 's/^# leader: //p' "$override")
fi
standbys=()
for n in "${nodes[@]}"; do
	[ "$n" != "$old" ] && standbys+=("$n")
done
log "the primary to replace is $old; its standbys are ${standbys[*]}"

# 1. Fence.
dc stop "$old" >/dev/null 2>&1
log "stopped $old: it stays stopped until it is cloned again"

# 2. The freshest standby: the higher received position (what it holds, replayed or not).
#    An acknowledged commit reached at least one standby (ANY 1 with remote_apply), and both
#    received the same stream, so the fresher one holds every acknowledged commit.
declare -A received
for n in "${standbys[@]}"; do
	state=$(sql "$n" "SELECT pg_is_in_recovery() || ' ' || coalesce(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())") || {
		log "$n does not answer; it cannot be compared"
		state=""
	}
	if [ "${state%% *}" = true ]; then
		received[$n]=${state#* }
		log "$n: standby, received up to ${received[$n]}"
	elif [ -n "$state" ]; then
		log "$n is not in recovery: there is already a primary ($n); refusing to promote another"
		exit 1
	fi
done
[ ${#received[@]} -gt 0 ] || {
	log "no standby answers; nothing can be promoted"
	exit 1
}
chosen=
for n in "${standbys[@]}"; do
	[ -n "${received[$n]:-}" ] || continue
	if [ -z "$chosen" ]; then
		chosen=$n
	elif [ "$(sql "$chosen" "SELECT '${received[$n]}'::pg_lsn > '${received[$chosen]}'::pg_lsn")" = t ]; then
		chosen=$n
	fi
done
other=
for n in "${standbys[@]}"; do
	[ "$n" != "$chosen" ] && other=$n
done
log "promoting $chosen"

# 3. Promote. The standby names go first: postgresql.auto.conf wins over cluster.conf, and
#    the new primary's standbys are the other one and, once cloned, the old primary.
sql "$chosen" "ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 ($other, $old)'" >/dev/null
sql "$chosen" "SELECT pg_reload_conf()" >/dev/null
[ "$(sql "$chosen" "SELECT pg_promote(true, 60)")" = t ] || {
	log "pg_promote on $chosen did not finish within 60 s"
	exit 1
}
for slot in "$other" "$old"; do
	sql "$chosen" "SELECT pg_create_physical_replication_slot('$slot') WHERE NOT EXISTS (SELECT FROM pg_replication_slots WHERE slot_name = '$slot')" >/dev/null
done
log "$chosen is the primary; commits wait until $other streams from it"

# The new roles. Every node runs replica.sh, which starts a data directory without
# standby.signal as a primary. The new primary keeps the upstream it was started with, so
# compose sees an unchanged service and leaves its container (and its postgres) running.
{
	echo "# Written by docker/failover.sh on $(date -u '+%Y-%m-%d %H:%M:%S UTC'): $old failed, $chosen promoted."
	echo "# Pass it to every compose command after docker-compose.yml."
	echo "# leader: $chosen"
	echo "services:"
	for n in "${nodes[@]}"; do
		upstream=$chosen
		[ "$n" = "$chosen" ] && upstream=$old
		cat <<-YAML
		  $n:
		    entrypoint: ["bash", "/db/scripts/replica.sh"]
		    environment:
		      REPLICA_NAME: $n
		      PRIMARY_HOST: db-$upstream
		      REPLICATION_PASSWORD_FILE: /run/secrets/replication-password
		YAML
	done
} >"$override.new"
mv "$override.new" "$override"
files=(-f "$root/docker-compose.yml" -f "$override")
log "wrote $override"

# 4. Re-point the other standby: a new container, the same volume.
dc up -d --no-deps "$other" >/dev/null 2>&1
log "re-created $other with $chosen as its upstream"

# 5. Clone the old primary again.
container=$(dc ps -a -q "$old")
volume=$(docker inspect -f '{{range .Mounts}}{{if eq .Destination "/var/lib/postgresql"}}{{.Name}}{{end}}{{end}}' "$container")
dc rm -sf "$old" >/dev/null 2>&1
docker volume rm "$volume" >/dev/null
dc up -d --no-deps "$old" >/dev/null 2>&1
log "deleted $old's volume $volume; it is being cloned from $chosen"

# 6. Both standbys stream from the new primary.
for _ in $(seq 1 300); do
	state=$(sql "$chosen" "SELECT string_agg(application_name || ' ' || state || ' ' || sync_state, ', ' ORDER BY application_name) FROM pg_stat_replication" 2>/dev/null || true)
	if [ "$(grep -o 'streaming quorum' <<<"$state" | wc -l)" = 2 ]; then
		log "done: $chosen is the primary; standbys: $state"
		echo "$chosen"
		exit 0
	fi
	sleep 1
done
log "the standbys did not both stream within 300 s: ${state:-none}"
exit 1
