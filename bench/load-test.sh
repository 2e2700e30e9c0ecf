#!/usr/bin/env bash
# Regenerates the figures of docs/load-testing.md. For each profile it starts the packaged
# service (same JVM flags as ./mvnw spring-boot:run, same .data/ cluster, which must hold the
# 1,000,000 seeded users), warms it up for 30 s with wrk, runs the Gatling simulation, stops
# the service, and copies the run's summary, latency CSV, CPU CSV and CPU chart into
# docs/load-tests/<simulation>-<users>[-<label>]/. Gatling's HTML reports stay in target/gatling/.
#
#   bench/load-test.sh                                      # every profile below
#   bench/load-test.sh GetUserSimulation:250000             # one profile
#   bench/load-test.sh GetUserSimulation:250000:primary-only:--app.db.read-from-replicas=false
#
# A profile is SIMULATION:USERS[:LABEL[:SERVICE_ARGUMENT...]] (service arguments separated by
# spaces). A profile whose assertions fail is still copied: the report shows misses too. The
# script exits non-zero at the end if any profile failed.
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
command -v wrk >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk; }
./mvnw -B -ntp -q package -DskipTests -Dspring-javaformat.validate.skip=true || exit 2
JAR=$(ls target/user-profiles-*.jar | grep -v original | head -1)

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

failed=0
for profile in "${profiles[@]}"; do
  IFS=: read -r simulation users label service_args <<<"$profile"
  name="${simulation,,}-$users${label:+-$label}"
  echo "== $name (service arguments: ${service_args:-none})"
  # shellcheck disable=SC2086 # service arguments are meant to split on spaces
  java -jar "$JAR" "${THROTTLE_ARGS[@]}" $service_args > "target/$name-service.log" 2>&1 &
  service=$!
  for _ in $(seq 1 120); do
    curl -fs -o /dev/null http://127.0.0.1:8081/actuator/health/readiness && break
    sleep 1
  done
  # JIT warm-up, not measured: 30 s of point reads over 16 keep-alive connections.
  wrk -t2 -c16 -d30s -s bench/get-user.lua http://127.0.0.1:8080 | grep Requests/sec
  ./mvnw -B -ntp gatling:test -Dspring-javaformat.validate.skip=true \
    -Dgatling.simulationClass="dev.highload.profiles.gatling.$simulation" -Dusers="$users" \
    > "target/$name-gatling.log" 2>&1
  status=$?
  [ $status -eq 0 ] || failed=1
  stop_service
  run=$(ls -td target/gatling/"${simulation,,}"-*/ | head -1)
  out="docs/load-tests/$name"
  mkdir -p "$out"
  cp "$run"/*-summary.txt "$run"/*-latency.csv "$run"/*-cpu.csv "$run"/*-cpu.png "$out"/
  grep -E "^(Global|Details)|: (true|false)" "target/$name-gatling.log" > "$out/assertions.txt"
  cat "$out"/*-summary.txt "$out/assertions.txt"
  echo "(exit $status) copied to $out; Gatling report in $run"
done
exit $failed
