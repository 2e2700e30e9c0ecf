#!/usr/bin/env bash
# Regenerates the figures of docs/load-tests/ (the load-test report, docs/reports/load-testing.md, cites them). For each profile, RUNS times (default 3):
#
#   1. starts the packaged service (same JVM flags as ./mvnw spring-boot:run, same .data/
#      cluster, which must hold the 1,000,000 seeded users);
#   2. measures the machine: pgbench's built-in point select (-S, prepared, 8 clients
#      split over the two replicas, TPS summed) on a 100,000-row table of its own, so a
#      slower machine can be told from a slower service;
#   3. warms the service up with wrk until its throughput levels off (see warm_up);
#   4. runs the Gatling simulation and stops the service.
#
# Each run's summary, latency CSV, CPU CSV and chart go to
# docs/load-tests/<simulation>-<users>[-<label>]/run-<n>/, one line per run to runs.csv
# there, and the median of every figure with its min-max to medians.md. Every run is kept,
# failed ones too. Gatling's HTML reports stay in target/gatling/.
#
#   bench/load-test.sh                                      # every profile below
#   RUNS=1 bench/load-test.sh GetUserSimulation:250000      # one profile, one run
#   bench/load-test.sh GetUserSimulation:250000:primary-only:--app.db.read-from-replicas=false
#
# A profile is SIMULATION:USERS[:LABEL[:SERVICE_ARGUMENT...]] (service arguments separated by
# spaces). Environment: RUNS [3]; SERVICE_JAVA, the java that runs the service [java on the
# PATH]; GATLING_JAVA_HOME, the JDK that runs Gatling [JAVA_HOME]; GATLING_OPTS, more -D
# options for the simulation, e.g. "-Dwindow=60 -Dramp=0" for a short trial. The script exits non-zero
# at the end if any run failed its assertions.
#
# Needs wrk, psql and pgbench (Debian: apt-get install wrk postgresql-client); it says so
# and stops if one is missing. Side effect: a schema "calibration" with pgbench's tables in
# the profiles database (DROP SCHEMA calibration CASCADE removes it).
set -uo pipefail
cd "$(dirname "$0")/.."

DEFAULT_PROFILES=(
  "GetUserSimulation:250000"
  "GetUserSimulation:500000"
  "GetUserSimulation:250000:primary-only:--app.db.read-from-replicas=false"
  "SearchUserSimulation:25000"
  "RegisterUserSimulation:6000"
  "MixedSimulation:250000"
  "MixedSimulation:500000"
)
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] || profiles=("${DEFAULT_PROFILES[@]}")

[ -s .data/user-ids.csv ] || { echo "Seed first: ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=1000000" >&2; exit 2; }
if curl -s -o /dev/null http://127.0.0.1:8080/ || curl -s -o /dev/null http://127.0.0.1:8081/; then
  echo "Something already serves http://127.0.0.1:8080 or :8081: stop it first, this script starts its own service." >&2
  exit 2
fi
for tool in wrk psql pgbench; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: on Debian, apt-get install wrk postgresql-client" >&2; exit 2; }
done
RUNS=${RUNS:-3}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "RUNS must be a positive number, not '$RUNS'" >&2; exit 2; }
./mvnw -B -ntp -q package -DskipTests -Dspring-javaformat.validate.skip=true || exit 2
# The local jar: the production one carries no embedded cluster.
JAR=$(ls target/user-profiles-*-local.jar | head -1)

# The simulations register thousands of users from 16 loopback addresses (RegisterUserSimulation
# 6,000 in 10 minutes), far past the registration-flood limit meant for real clients (20 per
# address per hour): it is switched off explicitly for these runs. No simulation logs in.
THROTTLE_ARGS=(--app.auth.throttle.registrations-per-address=0)

service=
stop_service() {
  [ -n "$service" ] || return 0
  kill "$service" 2>/dev/null
  wait "$service" 2>/dev/null
  service=
}
trap stop_service EXIT

# JIT warm-up, not measured: point reads over 16 keep-alive connections in 20 s rounds until
# a round gains less than 5 % on the one before (at least 3 rounds, at most WARMUP_MAX
# seconds, default 300). A fixed 30 s was enough on a fast machine; on a slow one the JIT
# needed about 3 minutes of load before C2 had replaced the profiled C1 code, and the
# service's throughput rose from 1,800 to 6,700 req/s in that time (docs/reports/load-testing.md).
warm_up() {
  # Stops on a plateau: after at least 60 s, once a 20 s round is within 5 % of the one before.
  # A drop is not a plateau (a fresh JVM dips while C2 recompiles and GC sizes its heap), so it
  # keeps going then, up to WARMUP_MAX seconds [300].
  local record=$1 previous=0 rps elapsed=0
  : > "$record"
  while ((elapsed < ${WARMUP_MAX:-300})); do
    rps=$(wrk -t2 -c16 -d20s -s bench/get-user.lua http://127.0.0.1:8080 | awk '/^Requests\/sec/ {printf "%.0f", $2}')
    rps=${rps:-0}
    elapsed=$((elapsed + 20))
    echo "warm-up ${elapsed}s: $rps req/s" | tee -a "$record"
    if ((elapsed >= 60 && previous > 0 && rps * 100 >= previous * 95 && rps * 100 <= previous * 105)); then
      echo "warm-up: plateau after ${elapsed}s" | tee -a "$record"
      return
    fi
    previous=$rps
  done
  echo "warm-up: no plateau within ${elapsed}s, measuring anyway" | tee -a "$record"
}

failed=0
for profile in "${profiles[@]}"; do
  IFS=: read -r simulation users label service_args <<<"$profile"
  name="${simulation,,}-$users${label:+-$label}"
  echo "== $name (service arguments: ${service_args:-none})"
  # shellcheck disable=SC2086 # service arguments are meant to split on spaces
  out="docs/load-tests/$name"
  rm -rf "$out"
  mkdir -p "$out"
  for n in $(seq 1 "$RUNS"); do
    echo "-- $name, run $n of $RUNS"
    log="target/$name-run-$n"
    # shellcheck disable=SC2086 # service arguments are meant to split on spaces
    "${SERVICE_JAVA:-java}" -jar "$JAR" "${THROTTLE_ARGS[@]}" $service_args > "$log-service.log" 2>&1 &
    service=$!
    for _ in $(seq 1 120); do
      curl -fs -o /dev/null http://127.0.0.1:8081/actuator/health/readiness && break
      sleep 1
    done
    started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    calibration=$(bash bench/calibrate.sh) || { echo "calibration failed" >&2; calibration=; }
    echo "calibration: pgbench point select $calibration TPS"
    warm_up "$out/run-$n-warm-up.txt"
    JAVA_HOME=${GATLING_JAVA_HOME:-${JAVA_HOME:-}} ./mvnw -B -ntp gatling:test -Dspring-javaformat.validate.skip=true \
      -Dgatling.simulationClass="dev.highload.profiles.gatling.$simulation" -Dusers="$users" ${GATLING_OPTS:-} \
      > "$log-gatling.log" 2>&1
    status=$?
    [ $status -eq 0 ] || failed=1
    java_version=$(curl -s http://127.0.0.1:8081/actuator/metrics/jvm.info |
      sed -n 's/.*"tag":"version","values":\["\([^"]*\)".*/\1/p')
    stop_service
    run=$(ls -td target/gatling/"${simulation,,}"-*/ | head -1)
    mkdir -p "$out/run-$n"
    mv "$out/run-$n-warm-up.txt" "$out/run-$n/warm-up.txt"
    cp "$run"/*-summary.txt "$run"/*-latency.csv "$run"/*-cpu.csv "$run"/*-cpu.png "$out/run-$n"/
    grep -E "^(Global|Details)|: (true|false)" "$log-gatling.log" > "$out/run-$n/assertions.txt"
    cat "$out/run-$n"/*-summary.txt "$out/run-$n/assertions.txt"
    python3 bench/load-runs.py row "$out/run-$n" "$n" "$started" "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src gatling pom.xml || echo -dirty)" \
      "${java_version:-unknown}" "$calibration" "$status" >> "$out/runs.csv.part"
    echo "(exit $status) copied to $out/run-$n; Gatling report in $run"
  done
  { python3 bench/load-runs.py header; cat "$out/runs.csv.part"; } > "$out/runs.csv" && rm "$out/runs.csv.part"
  python3 bench/load-runs.py medians "$out/runs.csv" "$name" | tee "$out/medians.md"
done
exit $failed
