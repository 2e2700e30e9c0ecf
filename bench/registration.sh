#!/usr/bin/env bash
# Registration benchmark: how close registrations come to the password-hash ceiling, and what
# a registration storm does to the latency of reads. One run, against a running service:
#
#   1. warm-up (not measured): registrations and reads;
#   2. hash time: registrations one at a time; the service's own timer
#      profiles.password.hash{operation=hash} (time on the hashing thread, queueing excluded)
#      gives the mean time of one hash. Ceiling = the service's cores / that time;
#   3. reads alone: GET /user/{id} on READ_CONNECTIONS connections, each pausing PAUSE_MS after
#      every response (a steady light load, not saturation); p99 from wrk, in microseconds;
#   4. the storm: registrations as fast as REGISTER_CONNECTIONS connections go, and the same
#      reads at the same time. Registrations per second (2xx only) and the reads' p99.
#
# Prints: registration throughput / ceiling (target >= 0.8) and read p99 during the storm /
# read p99 alone (target <= 1.5). Appends both to bench/results/registration.csv.
#
# wrk's pacing (PAUSE_MS after each response) is not a constant arrival rate: a slow response
# delays the next request, so the p99 under the storm is if anything flattered, not inflated.
# Every registration creates a user named Bench...; they stay in the database.
#
# All registrations come from one address, thousands of them: start the service with the
# registration-flood limit off, e.g.
#   java -jar target/user-profiles-*-local.jar --app.auth.throttle.registrations-per-address=0
# (or APP_AUTH_THROTTLE_REGISTRATIONSPERADDRESS=0). The script stops if the service answers 429.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_URL=${BASE_URL:-http://127.0.0.1:8080}
BASE_URL=${BASE_URL%/}
MANAGEMENT_URL=${MANAGEMENT_URL:-$(sed -E 's#^(https?://[^/:]+).*#\1:8081#' <<<"$BASE_URL")}
DURATION=${DURATION:-20}
HASH_SECONDS=${HASH_SECONDS:-15}
WARMUP=${WARMUP:-10}
REGISTER_CONNECTIONS=${REGISTER_CONNECTIONS:-8}
READ_CONNECTIONS=${READ_CONNECTIONS:-4}
PAUSE_MS=${PAUSE_MS:-4}
IDS_FILE=$(realpath -m "${IDS_FILE:-.data/user-ids.csv}")
RESULTS_DIR=$(realpath -m "${RESULTS_DIR:-bench/results}")
export IDS_FILE

case "${1:-}" in
-h | --help)
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
	echo "Environment: BASE_URL, MANAGEMENT_URL, DURATION [20], HASH_SECONDS [15], WARMUP [10],"
	echo "REGISTER_CONNECTIONS [8], READ_CONNECTIONS [4], PAUSE_MS [4], IDS_FILE, RESULTS_DIR."
	exit 0
	;;
"") ;;
*)
	echo "unknown argument: $1 (try --help)" >&2
	exit 2
	;;
esac
for knob in DURATION HASH_SECONDS WARMUP REGISTER_CONNECTIONS READ_CONNECTIONS PAUSE_MS; do
	[[ ${!knob} =~ ^[0-9]+$ && ${!knob} -gt 0 ]] || { echo "$knob must be a positive whole number" >&2; exit 2; }
done
command -v wrk >/dev/null || { echo "wrk is missing; on Debian: apt-get install wrk" >&2; exit 2; }
[[ -s $IDS_FILE ]] || { echo "no ids in $IDS_FILE: seed first" >&2; exit 2; }
curl -fs -o /dev/null "$MANAGEMENT_URL/actuator/health" || { echo "no service at $MANAGEMENT_URL" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

metric() { # metric name [tag] -> "COUNT TOTAL_TIME" or "VALUE"
	curl -fs "$MANAGEMENT_URL/actuator/metrics/$1${2:+?tag=$2}" | python3 -c '
import json, sys
m = {x["statistic"]: x["value"] for x in json.load(sys.stdin)["measurements"]}
print(*(m[k] for k in ("COUNT", "TOTAL_TIME", "VALUE") if k in m))'
}
hash_timer() { metric profiles.password.hash operation:hash; }
reads() { PAUSE_MS=$PAUSE_MS wrk -t1 -c"$READ_CONNECTIONS" -d"${1}s" -s bench/get-user.lua "$BASE_URL" >"$2" 2>&1; }
registrations() { wrk -t"$(($1 < 2 ? $1 : 2))" -c"$1" -d"${2}s" -s bench/register-user.lua "$BASE_URL" >"$3" 2>&1; }
# wrk's summary line from the Lua done(): "p50 x ms, p90 x ms, p99 x ms, max x ms, non-2xx/3xx n, ..."
field() { grep -o -- "$2 [0-9.]*" "$1" | head -1 | awk '{print $2}'; }
requests() { awk '/requests in/ {print $1}' "$1"; }

log() { printf '[%s] %s\n' "$(date +%T)" "$*"; }

CORES=$(metric system.cpu.count)
CORES=${CORES%.*}
HASH_THREADS=$(metric executor.pool.core name:password-hash)
HASH_THREADS=${HASH_THREADS%.*}
log "warm-up: ${WARMUP}s of registrations, ${WARMUP}s of reads"
registrations "$REGISTER_CONNECTIONS" "$WARMUP" "$WORK/warm-register"
reads "$WARMUP" "$WORK/warm-reads"

throttled=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$BASE_URL/user/register" -H 'Content-Type: application/json' \
  -d '{"first_name":"Bench","second_name":"Probe","birthdate":"1990-05-17","password":"bench-password"}')
if [[ $throttled == 429 ]]; then
  echo "the service throttles registrations from this address: restart it with" >&2
  echo "  --app.auth.throttle.registrations-per-address=0" >&2
  exit 2
fi

log "hash time: registrations one at a time for ${HASH_SECONDS}s"
read -r c0 t0 <<<"$(hash_timer)"
registrations 1 "$HASH_SECONDS" "$WORK/sequential"
read -r c1 t1 <<<"$(hash_timer)"
HASH_MS=$(python3 -c "print(f'{($t1 - $t0) / ($c1 - $c0) * 1000:.2f}')")
CEILING=$(python3 -c "print(f'{$CORES / ($HASH_MS / 1000):.1f}')")

log "reads alone: ${DURATION}s, $READ_CONNECTIONS connections pausing ${PAUSE_MS} ms"
reads "$DURATION" "$WORK/reads-alone"

log "storm: registrations on $REGISTER_CONNECTIONS connections and the same reads, ${DURATION}s"
read -r c2 t2 <<<"$(hash_timer)"
registrations "$REGISTER_CONNECTIONS" "$DURATION" "$WORK/storm" &
storm=$!
reads "$DURATION" "$WORK/reads-storm"
wait "$storm" || { cat "$WORK/storm" >&2; exit 1; }
read -r c3 t3 <<<"$(hash_timer)"
STORM_HASH_MS=$(python3 -c "print(f'{($t3 - $t2) / ($c3 - $c2) * 1000:.2f}')")

storm_ok=$(($(requests "$WORK/storm") - $(field "$WORK/storm" non-2xx/3xx)))
RATE=$(python3 -c "print(f'{$storm_ok / $DURATION:.1f}')")
THROUGHPUT_RATIO=$(python3 -c "print(f'{$RATE / $CEILING:.3f}')")
P99_ALONE=$(field "$WORK/reads-alone" p99)
P99_STORM=$(field "$WORK/reads-storm" p99)
P99_RATIO=$(python3 -c "print(f'{$P99_STORM / $P99_ALONE:.2f}')")
verdict() { python3 -c "print('PASS' if $1 else 'FAIL')"; }

echo
echo "cores (service):                 $CORES, hashing threads $HASH_THREADS"
echo "hash time, one at a time:        $HASH_MS ms  -> ceiling $CEILING registrations/s"
echo "hash time during the storm:      $STORM_HASH_MS ms"
echo "registrations during the storm:  $RATE /s ($storm_ok ok, $(field "$WORK/storm" non-2xx/3xx) not 2xx, p99 $(field "$WORK/storm" p99) ms)"
echo "throughput / ceiling:            $THROUGHPUT_RATIO  (target >= 0.8: $(verdict "$THROUGHPUT_RATIO >= 0.8"))"
echo "reads alone:                     $(tail -1 "$WORK/reads-alone")"
echo "reads during the storm:          $(tail -1 "$WORK/reads-storm")"
echo "read p99 storm / alone:          $P99_RATIO  (target <= 1.5: $(verdict "$P99_RATIO <= 1.5"))"

mkdir -p "$RESULTS_DIR"
csv="$RESULTS_DIR/registration.csv"
[[ -s $csv ]] || echo "timestamp,commit,cores,hash_threads,hash_ms,ceiling_per_s,storm_hash_ms,registrations_per_s,throughput_ratio,read_p99_alone_ms,read_p99_storm_ms,p99_ratio,register_connections,read_connections,pause_ms,duration_s" >"$csv"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- . ':(exclude)bench/results' 2>/dev/null || commit="$commit-dirty"
echo "$(date -u +%FT%TZ),$commit,$CORES,$HASH_THREADS,$HASH_MS,$CEILING,$STORM_HASH_MS,$RATE,$THROUGHPUT_RATIO,$P99_ALONE,$P99_STORM,$P99_RATIO,$REGISTER_CONNECTIONS,$READ_CONNECTIONS,$PAUSE_MS,$DURATION" >>"$csv"
echo "appended to $csv"
