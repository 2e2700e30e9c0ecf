#!/usr/bin/env bash
# Saturation benchmark: how much of the database's read capacity the service turns into
# HTTP throughput. One run measures, one after the other (never at the same time, so they
# do not fight over the two cores):
#
#   1. the service at a fixed concurrency with wrk (after a discarded warm-up run);
#   2. the same database work with pgbench, same duration and client count, straight
#      against the two replicas;
#
# in ROUNDS adjacent pairs, alternating which side goes first, and prints the median
# round's service req/s / pgbench TPS against a target. (The VM's speed drifts by tens of
# percent within minutes; a single pair measured a minute apart gave ratios from 0.71 to
# 0.87 for the same code.) Modes:
#
#   get     GET /user/{id}, ids uniform at random from IDS_FILE (bench/get-user.lua).
#           Target: ratio >= 0.50 (0.40 before the CPU-per-request work).
#   search  GET /user/search with (first_name, last_name) prefix pairs drawn at random
#           from gatling/data/search-prefixes.csv (bench/search-user.lua). Target: ratio >= 0.90 (0.80 before).
#
# What pgbench measures, and why it is the fair counterpart:
#
#   * Both replicas, half the clients each, TPS summed: the service's read pool balances
#     over both replicas, so one replica alone would be half the capacity it draws on.
#     pgbench runs on this machine like wrk does, so both sides pay for their load
#     generator's CPU.
#   * Prepared statements (-M prepared), as pgjdbc uses them after a few executions.
#   * get: each transaction is ONE statement, one round trip:
#         SELECT id, first_name, second_name, birthdate, biography, city
#         FROM users WHERE id = (SELECT id FROM bench_ids WHERE n = :n)
#     i.e. the service's primary-key lookup of one profile, plus an index-only probe of
#     bench_ids (a dense int -> seeded uuid map, loaded from IDS_FILE) because pgbench can
#     only draw random integers. The probe is the only work the service does not do. On the
#     2-core dev machine it was not measurable: the bare `WHERE id = $1` lookup, fed with
#     uuids fetched 64 at a time, gave the same TPS within run-to-run noise (about 10 %).
#   * search: each transaction fetches a random row of bench_prefixes (the prefix ranges,
#     loaded from the prefixes file) with \gset, then runs the service's exact SEARCH statement,
#     read from ProfileQueries.java at run time, as one prepared statement with the same
#     six parameters (after = the zero uuid, limit 100) so it gets the same plan-cache
#     treatment as the service's. The \gset statement is an extra round trip the service
#     does not make; it lowers pgbench's TPS and so would flatter the ratio. A 2-second
#     1-client pgbench run after the measurement measures its share of a transaction's time
#     (per-statement latencies, -r; under saturation those latencies are mostly queueing
#     and would overstate it), about 3 % on the dev machine, and the verdict is taken on
#     the ratio corrected by that share: ratio x (1 - share), as if pgbench had run the
#     search alone. (Two ways to avoid the round trip were worse. Scalar sub-selects in
#     the SQL hide the prefixes from the planner. One statement per prefix pair, with the
#     values as literals, gets a fresh custom plan on every connection and measured about
#     20 % fewer TPS than the parameterised statement the service and this script prepare:
#     a different workload.)
#   * Neither side's numbers include connection set-up, and both are warmed up first.
#
# What the service adds on top, and what the ratio is about: HTTP, routing, the read-only
# transaction around each read, JPA, JSON.
#
# Side effects: creates and fills tables bench_ids and bench_prefixes on the primary (they
# replicate), generates gatling/data/search-prefixes.csv if it is missing (from a sample of the
# seeded users), appends one CSV line to bench/results/. Drop the tables with
#   DROP TABLE bench_ids, bench_prefixes;
# Needs wrk, curl, psql and pgbench; says what to install when one is missing.
set -euo pipefail

usage() {
	cat <<'EOF'
Usage: bench/saturation.sh [get|search] [--help]

Measures the service's maximum throughput with wrk, then the database's with pgbench on
both replicas, and prints the ratio service req/s / pgbench TPS against its target
(get: >= 0.50, search: >= 0.90). Appends the figures to bench/results/saturation.csv
(get) or bench/results/saturation-search.csv (search).

Modes:
  get      GET /user/{id}, random seeded ids (default)
  search   GET /user/search, random prefix pairs from gatling/data/search-prefixes.csv
           (generated from the seeded data when missing; delete it to draw a new sample)

Environment (defaults in brackets):
  BASE_URL        service                       [http://127.0.0.1:8080]
  MANAGEMENT_URL  its Actuator (for its JVM version) [BASE_URL's host, port 8081]
  PGHOST          database host                 [127.0.0.1]
  PRIMARY_PORT    primary port                  [15432]
  REPLICA1_PORT   replica1 port                 [15433]
  REPLICA2_PORT   replica2 port                 [15434]
  PGUSER          database user; it creates the bench tables, so the schema's owner,
                  not the service's runtime role      [profiles_owner]
  PGPASSWORD      its password                  [profiles_owner]
  PGDATABASE      database                      [profiles]
  DURATION        seconds measured, each side, each round [20]
  ROUNDS          measured rounds, sides alternating      [3]
  WARMUP          seconds of discarded warm-up  [10]
  CONNECTIONS     wrk connections = pgbench clients, split over the replicas [16]
  THREADS         wrk threads = pgbench threads, split over the replicas     [2]
  IDS_FILE        seeded ids, header "id"       [.data/user-ids.csv]
  PREFIXES_FILE   search prefix pairs           [gatling/data/search-prefixes.csv]
  RESULTS_DIR     where the CSV goes            [bench/results]

Exit status: 0 after a completed measurement, PASS or FAIL alike (the verdict is printed);
non-zero when something could not be measured.
EOF
}

MODE="get"
for arg in "$@"; do
	case "$arg" in
	-h | --help)
		usage
		exit 0
		;;
	get | search) MODE=$arg ;;
	*)
		echo "unknown argument: $arg" >&2
		usage >&2
		exit 2
		;;
	esac
done

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

BASE_URL=${BASE_URL:-http://127.0.0.1:8080}
BASE_URL=${BASE_URL%/}
MANAGEMENT_URL=${MANAGEMENT_URL:-$(sed -E 's#^(https?://[^/:]+).*#\1:8081#' <<<"$BASE_URL")}
export PGHOST=${PGHOST:-127.0.0.1}
export PGUSER=${PGUSER:-profiles_owner}
export PGPASSWORD=${PGPASSWORD:-profiles_owner}
export PGDATABASE=${PGDATABASE:-profiles}
PRIMARY_PORT=${PRIMARY_PORT:-15432}
REPLICA1_PORT=${REPLICA1_PORT:-15433}
REPLICA2_PORT=${REPLICA2_PORT:-15434}
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-10}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-2}
IDS_FILE=$(realpath -m "${IDS_FILE:-.data/user-ids.csv}")
PREFIXES_FILE=$(realpath -m "${PREFIXES_FILE:-gatling/data/search-prefixes.csv}")
RESULTS_DIR=$(realpath -m "${RESULTS_DIR:-bench/results}")
# The Lua scripts read these; relative paths would depend on wrk's working directory.
export IDS_FILE PREFIXES_FILE

log() { printf '[%s] %s\n' "$(date +%T)" "$*"; }
die() {
	echo "error: $*" >&2
	exit 1
}

for knob in PRIMARY_PORT REPLICA1_PORT REPLICA2_PORT DURATION ROUNDS WARMUP CONNECTIONS THREADS; do
	[[ ${!knob} =~ ^[0-9]+$ ]] || die "$knob must be a whole number, not '${!knob}'"
done
((DURATION > 0)) || die "DURATION must be positive"
((ROUNDS > 0)) || die "ROUNDS must be positive"
((CONNECTIONS >= 2)) || die "CONNECTIONS must be at least 2: pgbench splits its clients over two replicas"
((THREADS >= 1 && THREADS <= CONNECTIONS)) || die "THREADS must be between 1 and CONNECTIONS"

WORK=$(mktemp -d)
cleanup() {
	rm -rf "$WORK"
}
trap cleanup EXIT

# ---------------------------------------------------------------------------- tools

# Debian ships pgbench with the server package, under /usr/lib/postgresql/<major>/bin, and
# /usr/bin/pgbench is postgresql-client-common's pg_wrapper, which exists (and fails) even
# when no pgbench is installed. Prefer the newest real binary, and check that it runs.
find_pgbench() {
	local bin
	for bin in $(compgen -G '/usr/lib/postgresql/*/bin/pgbench' | sort -rV) $(command -v pgbench || true); do
		if "$bin" --version >/dev/null 2>&1; then
			echo "$bin"
			return 0
		fi
	done
	return 1
}

# Says what to install instead of installing it.
ensure_tools() {
	local missing=()
	command -v wrk >/dev/null || missing+=(wrk)
	command -v curl >/dev/null || missing+=(curl)
	psql --version >/dev/null 2>&1 || missing+=(postgresql-client)
	# pgbench comes with the server package (postgresql-15 on Debian 12); installing it
	# creates and starts a "main" cluster on port 5432 unless create_main_cluster = false is
	# set in /etc/postgresql-common/createcluster.conf first.
	find_pgbench >/dev/null || missing+=(postgresql-15)
	((${#missing[@]} == 0)) || die "missing tools; on Debian: apt-get install ${missing[*]}"
}
ensure_tools
PGBENCH=$(find_pgbench)

# ------------------------------------------------------------------------- database

# psql without ~/.psqlrc, stopping at the first error, unaligned output, and without the
# NOTICEs of the idempotent CREATE ... IF NOT EXISTS.
sql() {
	local port=$1
	shift
	PGOPTIONS='-c client_min_messages=warning' psql -X -q -At -v ON_ERROR_STOP=1 -p "$port" "$@"
}

# Guards against swapped ports: pgbench against the primary would measure the wrong node.
check_nodes() {
	local port want role
	for port in "$PRIMARY_PORT" "$REPLICA1_PORT" "$REPLICA2_PORT"; do
		want=t
		[[ $port == "$PRIMARY_PORT" ]] && want=f
		role=$(sql "$port" -c 'SELECT pg_is_in_recovery()') || die "cannot connect to $PGHOST:$port as $PGUSER"
		[[ $role == "$want" ]] || die "$PGHOST:$port is $([[ $role == t ]] && echo a replica || echo the primary), expected otherwise"
	done
}

# Both replicas must have replayed the primary's writes, or pgbench would look up rows
# that are not there yet (synchronous_commit waits for one replica only).
wait_for_replicas() {
	local lsn port caught_up deadline=$((SECONDS + 120))
	lsn=$(sql "$PRIMARY_PORT" -c 'SELECT pg_current_wal_lsn()')
	for port in "$REPLICA1_PORT" "$REPLICA2_PORT"; do
		until caught_up=$(sql "$port" -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn") && [[ $caught_up == t ]]; do
			((SECONDS < deadline)) || die "replica on port $port has not replayed $lsn after 120 s"
			sleep 0.5
		done
	done
}

# bench_ids maps 1..N to the ids of IDS_FILE, in file order. It is reloaded only when it
# does not match the file (count, first and last id), since a million rows take a while.
prepare_ids() {
	[[ -s $IDS_FILE ]] || die "no ids file $IDS_FILE: seed first (see README, 'Seeding')"
	IDS_COUNT=$(awk 'END { print NR - 1 }' "$IDS_FILE")
	((IDS_COUNT > 0)) || die "$IDS_FILE has no ids"
	local first last loaded
	first=$(sed -n 2p "$IDS_FILE")
	last=$(tail -n 1 "$IDS_FILE")
	sql "$PRIMARY_PORT" -c 'CREATE TABLE IF NOT EXISTS bench_ids (
	        n  int  GENERATED BY DEFAULT AS IDENTITY,
	        id uuid NOT NULL,
	        PRIMARY KEY (n) INCLUDE (id))'
	loaded=$(sql "$PRIMARY_PORT" -c "SELECT count(*) || ' ' || coalesce((SELECT id::text FROM bench_ids WHERE n = 1), '-')
	        || ' ' || coalesce((SELECT id::text FROM bench_ids WHERE n = $IDS_COUNT), '-') FROM bench_ids")
	if [[ $loaded != "$IDS_COUNT $first $last" ]]; then
		log "loading $IDS_COUNT ids from $IDS_FILE into bench_ids on the primary"
		# One transaction: a failed load leaves the old table, never a half-filled one.
		sql "$PRIMARY_PORT" -1 -c 'TRUNCATE bench_ids RESTART IDENTITY' \
			-c '\copy bench_ids (id) FROM pstdin WITH (FORMAT csv, HEADER true)' <"$IDS_FILE"
		# Sets the visibility map, so the probe is an index-only scan.
		sql "$PRIMARY_PORT" -c 'VACUUM ANALYZE bench_ids'
	fi
	PGBENCH_COUNT=$IDS_COUNT
}

# A sample of real names cut to random lengths (1-4 letters of the first name, 1-5 of the
# last), so the mix has short, common prefixes with many matches and long, rare ones with
# few. Sampling users, not distinct names, draws common prefixes as often as real traffic
# would. Read on a replica: it scans the whole table.
generate_prefixes() {
	log "generating $PREFIXES_FILE from 200 random seeded users"
	mkdir -p "$(dirname "$PREFIXES_FILE")"
	sql "$REPLICA1_PORT" -c 'COPY (SELECT left(first_name, 1 + floor(random() * 4)::int) AS first_name,
	        left(second_name, 1 + floor(random() * 5)::int) AS last_name
	        FROM (SELECT first_name, second_name FROM users TABLESAMPLE BERNOULLI (0.1)
	              ORDER BY random() LIMIT 200) AS sample) TO STDOUT WITH (FORMAT csv, HEADER true)' \
		>"$WORK/prefixes.csv"
	(($(wc -l <"$WORK/prefixes.csv") > 1)) || die "no users to sample: seed first"
	mv "$WORK/prefixes.csv" "$PREFIXES_FILE"
}

# bench_prefixes holds the ranges the service would compute (PrefixRange: the prefix, and
# the prefix with its last code point incremented; right for the BMP letters of the data).
# 200 rows: reloaded every run, so it always matches the file wrk reads.
prepare_prefixes() {
	[[ -s $PREFIXES_FILE ]] || generate_prefixes
	sql "$PRIMARY_PORT" -c 'CREATE TABLE IF NOT EXISTS bench_prefixes (
	        n int PRIMARY KEY, first_from text NOT NULL, first_to text NOT NULL,
	        second_from text NOT NULL, second_to text NOT NULL)'
	sql "$PRIMARY_PORT" -1 -c 'TRUNCATE bench_prefixes' \
		-c 'CREATE TEMP TABLE prefix_pairs (first_name text, last_name text) ON COMMIT DROP' \
		-c '\copy prefix_pairs FROM pstdin WITH (FORMAT csv, HEADER true)' \
		-c "INSERT INTO bench_prefixes
		    SELECT row_number() OVER (), first_name, left(first_name, -1) || chr(ascii(right(first_name, 1)) + 1),
		           last_name, left(last_name, -1) || chr(ascii(right(last_name, 1)) + 1)
		    FROM prefix_pairs WHERE first_name <> '' AND last_name <> ''" <"$PREFIXES_FILE"
	PGBENCH_COUNT=$(sql "$PRIMARY_PORT" -c 'SELECT count(*) FROM bench_prefixes')
	((PGBENCH_COUNT > 0)) || die "no prefix pairs in $PREFIXES_FILE"
}

# The service's SQL, from the file the service reads too (db/queries), so the benchmark
# follows it when it changes.
# Its six ? placeholders, in order, become pgbench variables, bound as parameters under
# -M prepared.
search_sql() {
	local src=db/queries/search.sql text var
	text=$(grep -v '^--' "$src")
	for var in first_from first_to second_from second_to after lim; do
		text=${text/\?/:$var}
	done
	[[ $text == *"WITH matches"* && $text != *"?"* ]] || die "cannot read the search statement from $src"
	printf '%s;\n' "$text"
}

# Into $PGBENCH_SCRIPT.
write_pgbench_script() {
	local script=$PGBENCH_SCRIPT
	if [[ $MODE == get ]]; then
		cat >"$script" <<'EOF'
\set n random(1, :count)
SELECT id, first_name, second_name, birthdate, biography, city FROM users WHERE id = (SELECT id FROM bench_ids WHERE n = :n);
EOF
	else
		{
			echo '\set n random(1, :count)'
			echo 'SELECT first_from, first_to, second_from, second_to FROM bench_prefixes WHERE n = :n \gset'
			search_sql
		} >"$script"
	fi
}

# ---------------------------------------------------------------------------- loads

# Runs wrk for $1 seconds; leaves its output in $2.
run_wrk() {
	wrk -t "$THREADS" -c "$CONNECTIONS" -d "${1}s" -s "$WRK_SCRIPT" "$BASE_URL" >"$2" 2>&1 ||
		{
			cat "$2" >&2
			die "wrk failed"
		}
}

# Runs one pgbench per replica in parallel for $1 seconds, half the clients and threads
# each; leaves their outputs in $2.1 and $2.2.
run_pgbench() {
	local secs=$1 out=$2 i port clients jobs pids=() failed=false
	for i in 1 2; do
		if ((i == 1)); then
			port=$REPLICA1_PORT clients=$(((CONNECTIONS + 1) / 2)) jobs=$(((THREADS + 1) / 2))
		else
			port=$REPLICA2_PORT clients=$((CONNECTIONS / 2)) jobs=$((THREADS / 2))
		fi
		((jobs >= 1)) || jobs=1
		"$PGBENCH" -n -M prepared "${PGBENCH_EXTRA[@]}" -c "$clients" -j "$jobs" -T "$secs" -p "$port" \
			-D count="$PGBENCH_COUNT" -f "$PGBENCH_SCRIPT" >"$out.$i" 2>&1 &
		pids+=($!)
	done
	for i in 0 1; do
		wait "${pids[$i]}" || failed=true
	done
	if [[ $failed == true ]]; then
		cat "$out".* >&2
		die "pgbench failed"
	fi
}

# ----------------------------------------------------------------------------- main

check_nodes
if [[ $MODE == get ]]; then
	prepare_ids
	WRK_SCRIPT=bench/get-user.lua
	PROBE_PATH="/user/$(sed -n 2p "$IDS_FILE")"
	PGBENCH_EXTRA=()
	TARGET=0.50
	CSV=$RESULTS_DIR/saturation.csv
	TITLE="GET /user/{id}"
else
	prepare_prefixes
	WRK_SCRIPT=bench/search-user.lua
	PROBE_PATH="/user/search?first_name=A&last_name=B&limit=1"
	PGBENCH_EXTRA=(-D after=00000000-0000-0000-0000-000000000000 -D lim=100)
	TARGET=0.90
	CSV=$RESULTS_DIR/saturation-search.csv
	TITLE="GET /user/search"
fi
wait_for_replicas
PGBENCH_SCRIPT=$WORK/pgbench.sql
write_pgbench_script

status=$(curl -s -o /dev/null -w '%{http_code}' "$BASE_URL$PROBE_PATH") || status=000
[[ $status == 200 ]] || die "service at $BASE_URL answered $status to GET $PROBE_PATH; is it up and seeded?"

log "$TITLE: $THREADS threads, $CONNECTIONS connections, $ROUNDS rounds of ${DURATION}s a side (warm-up ${WARMUP}s), $PGBENCH"
if ((WARMUP > 0)); then
	log "wrk warm-up, ${WARMUP}s (discarded)"
	run_wrk "$WARMUP" "$WORK/wrk-warmup.txt"
	log "pgbench warm-up, ${WARMUP}s (discarded)"
	run_pgbench "$WARMUP" "$WORK/pgbench-warmup"
fi

# The machine's speed drifts by tens of percent within minutes (a shared VM), so the two
# sides are measured in adjacent pairs, in alternating order (service first in odd rounds,
# pgbench first in even ones), and each round gives its own ratio. The verdict uses the
# median round.
measure_wrk() {
	log "round $1: wrk, ${DURATION}s"
	run_wrk "$DURATION" "$WORK/wrk.$1.txt"
	sed 's/^/    /' "$WORK/wrk.$1.txt"
}
measure_pgbench() {
	log "round $1: pgbench on replica1 and replica2, ${DURATION}s"
	run_pgbench "$DURATION" "$WORK/pgbench.$1"
	for i in 1 2; do
		echo "    replica$i:"
		grep -E '^(number of clients|number of threads|number of transactions actually processed|number of failed|latency average|tps)' \
			"$WORK/pgbench.$1.$i" | sed 's/^/      /'
	done
}

ROUND_LINES=()
ROUND_RATIOS=()
SERVICE_ERRORS=0
PG_FAILED=0
for ((round = 1; round <= ROUNDS; round++)); do
	if ((round % 2 == 1)); then
		measure_wrk "$round"
		measure_pgbench "$round"
	else
		measure_pgbench "$round"
		measure_wrk "$round"
	fi
	rps=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/wrk.$round.txt")
	p99=$(sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p' "$WORK/wrk.$round.txt")
	errors=$(sed -n 's/.*non-2xx\/3xx \([0-9]*\), socket errors \([0-9]*\).*/\1 \2/p' "$WORK/wrk.$round.txt" | awk '{ print $1 + $2 }')
	[[ -n $rps && -n $p99 && -n $errors ]] || die "cannot read wrk's figures (see above)"
	tps1=$(awk '/^tps = / { print $3 }' "$WORK/pgbench.$round.1")
	tps2=$(awk '/^tps = / { print $3 }' "$WORK/pgbench.$round.2")
	[[ -n $tps1 && -n $tps2 ]] || die "cannot read pgbench's TPS (see above)"
	failed=$(cat "$WORK/pgbench.$round.1" "$WORK/pgbench.$round.2" | awk '/^number of failed transactions:/ { n += $5 } END { print n + 0 }')
	tps=$(awk -v a="$tps1" -v b="$tps2" 'BEGIN { printf "%.1f", a + b }')
	ratio=$(awk -v s="$rps" -v p="$tps" 'BEGIN { printf "%.3f", (p > 0) ? s / p : 0 }')
	SERVICE_ERRORS=$((SERVICE_ERRORS + errors))
	PG_FAILED=$((PG_FAILED + failed))
	ROUND_RATIOS+=("$ratio")
	ROUND_LINES+=("$(printf 'round %d: service %s req/s (p99 %s ms, errors %s), pgbench %s tps (%.1f + %.1f, failed %s), ratio %s' \
		"$round" "$rps" "$p99" "$errors" "$tps" "$tps1" "$tps2" "$failed" "$ratio")")
	echo "$rps $p99 $tps $ratio" >>"$WORK/rounds.txt"
done

# Medians over the rounds (the lower middle one for an even count), and the worst p99.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
SERVICE_RPS=$(awk '{ print $1 }' "$WORK/rounds.txt" | median)
SERVICE_P99=$(awk '{ print $2 }' "$WORK/rounds.txt" | sort -g | tail -1)
PGBENCH_TPS=$(awk '{ print $3 }' "$WORK/rounds.txt" | median)
RATIO=$(printf '%s\n' "${ROUND_RATIOS[@]}" | median)

if [[ $MODE == search ]]; then
	log "pgbench calibration: 1 client, 2s, replica1, per-statement latencies"
	"$PGBENCH" -n -M prepared -r "${PGBENCH_EXTRA[@]}" -c 1 -j 1 -T 2 -p "$REPLICA1_PORT" \
		-D count="$PGBENCH_COUNT" -f "$PGBENCH_SCRIPT" >"$WORK/calibration.txt" 2>&1 ||
		{
			cat "$WORK/calibration.txt" >&2
			die "pgbench calibration failed"
		}
	# -r lists each statement's mean latency in ms: the \gset fetch, then the search.
	read -r HELPER_MS SEARCH_MS < <(awk '
		/^ +[0-9.]+ +[0-9]+ +SELECT first_from/ { helper = $1 }
		/^ +[0-9.]+ +[0-9]+ +WITH matches/      { search = $1 }
		END { print helper + 0, search + 0 }' "$WORK/calibration.txt")
	awk -v h="$HELPER_MS" -v s="$SEARCH_MS" 'BEGIN { exit !(h > 0 && s > 0) }' ||
		die "cannot read the per-statement latencies of the calibration run (see $WORK/calibration.txt)"
	GSET_SHARE=$(awk -v h="$HELPER_MS" -v s="$SEARCH_MS" 'BEGIN { printf "%.3f", h / (h + s) }')
	RAW_RATIO=$RATIO
	RATIO=$(awk -v r="$RAW_RATIO" -v f="$GSET_SHARE" 'BEGIN { printf "%.3f", r * (1 - f) }')
fi

# A run with errors is not a throughput figure: failed requests are cheap and fast.
if [[ $SERVICE_ERRORS -gt 0 || $PG_FAILED -gt 0 ]]; then
	VERDICT="FAIL (errors: service $SERVICE_ERRORS, pgbench $PG_FAILED)"
elif awk -v r="$RATIO" -v t="$TARGET" 'BEGIN { exit !(r >= t) }'; then
	VERDICT=PASS
else
	VERDICT=FAIL
fi

echo
echo "== $TITLE saturation, $THREADS threads, $CONNECTIONS connections, $ROUNDS rounds of ${DURATION}s a side =="
printf '%s\n' "${ROUND_LINES[@]}"
printf 'service (wrk), median:       %s req/s, worst p99 %s ms, errors %s\n' "$SERVICE_RPS" "$SERVICE_P99" "$SERVICE_ERRORS"
printf 'database (pgbench, 2 repl.): median %s tps, failed %s\n' "$PGBENCH_TPS" "$PG_FAILED"
if [[ $MODE == search ]]; then
	printf 'pgbench \\gset prefix fetch:  %s ms of %s ms in a 1-client transaction (share %s); the service\n' \
		"$HELPER_MS" "$(awk -v h="$HELPER_MS" -v s="$SEARCH_MS" 'BEGIN { printf "%.3f", h + s }')" "$GSET_SHARE"
	printf '                             does not make it\n'
	printf 'ratio service/pgbench:       %s (median round), %s corrected for the \\gset share\n' "$RAW_RATIO" "$RATIO"
else
	printf 'ratio service/pgbench:       %s (median round)\n' "$RATIO"
fi
echo "target: ratio >= $TARGET $VERDICT"

# The service's own JVM, from its metrics; the local java only if those are not exposed.
JAVA_VERSION=$(curl -s "$MANAGEMENT_URL/actuator/metrics/jvm.info" |
	sed -n 's/.*"tag":"version","values":\["\([^"]*\)".*/\1/p')
[[ -n $JAVA_VERSION ]] || JAVA_VERSION="local-$(java -version 2>&1 | sed -n '1s/.*"\(.*\)".*/\1/p')"
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# Rows before rounds existed (single pair, one ratio) have an empty round_ratios. ratio is
# the judged one: for search, the median round's corrected by gset_share (empty before
# the correction existed, and for get).
CSV_HEADER='timestamp,commit,java_version,wrk_threads,connections,duration_s,service_rps,service_p99_ms,service_errors,pgbench_tps,ratio,round_ratios,gset_share'
# Figures from uncommitted code are marked as such (the results themselves do not count).
[[ $COMMIT == unknown || -z $(git status --porcelain --untracked-files=no -- . ":(exclude)bench/results" 2>/dev/null) ]] || COMMIT="$COMMIT-dirty"

mkdir -p "$RESULTS_DIR"
[[ -s $CSV ]] || echo "$CSV_HEADER" >"$CSV"
[[ $(head -1 "$CSV") == "$CSV_HEADER" ]] || die "$CSV has another header than $CSV_HEADER; move it away"
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ),$COMMIT,$JAVA_VERSION,$THREADS,$CONNECTIONS,$DURATION,$SERVICE_RPS,$SERVICE_P99,$SERVICE_ERRORS,$PGBENCH_TPS,$RATIO,${ROUND_RATIOS[*]},${GSET_SHARE:-}" >>"$CSV"
echo "results appended to ${CSV#"$REPO"/}"
