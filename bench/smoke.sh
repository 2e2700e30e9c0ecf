#!/usr/bin/env bash
# Smoke run of every Gatling simulation against the real service, so that none of them rots:
# a few hundred users each, a few seconds each. Runs the packaged jar (build it first with
# ./mvnw package or verify) on its own cluster (ports 27432-27434, below Linux's ephemeral port
# range, data in target/smoke) and its own HTTP port, so it can run beside a developer's service;
# PORT, MANAGEMENT_PORT and CLUSTER_PORT (the primary's, the replicas' the next two) move it
# beside another smoke run. Thresholds are loose: a cold
# JVM is measured here, and the point is that every simulation runs to completion with 0 errors.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/service.sh

PORT=${PORT:-18080}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-18081}
CLUSTER_PORT=${CLUSTER_PORT:-27432}
DIR=target/smoke
# The local jar: the production one carries no embedded cluster.
JAR=$(ls target/user-profiles-*-local.jar | head -1)
APP_ARGS=(--app.cluster.base-dir=$DIR --app.cluster.primary-port=$CLUSTER_PORT
  --app.cluster.replica1-port=$((CLUSTER_PORT + 1)) --app.cluster.replica2-port=$((CLUSTER_PORT + 2))
  --app.cluster.shared-buffers=64MB --server.port=$PORT
  --management.server.port=$MANAGEMENT_PORT
  # The simulations register a few dozen users from 16 loopback addresses; raised explicitly so
  # that the default flood limit (20 per address per hour) never decides the outcome.
  --app.auth.throttle.registrations-per-address=1000)

echo "== seeding 5,000 users"
java -jar "$JAR" "${APP_ARGS[@]}" --app.seed.users=5000 --app.seed.ids-file=$DIR/user-ids.csv > $DIR-seed.log 2>&1 \
  || { tail -50 $DIR-seed.log; exit 1; }

echo "== starting the service on port $PORT"
start_service $DIR-service.log "${APP_ARGS[@]}"

run() {
  local simulation=$1; shift
  echo "== $simulation $*"
  ./mvnw -B -ntp -q gatling:test -Dspring-javaformat.validate.skip=true -Dgatling.simulationClass=dev.highload.profiles.gatling.$simulation \
    -DbaseUrl=http://127.0.0.1:$PORT -DmanagementUrl=http://127.0.0.1:$MANAGEMENT_PORT -DidsFile=$DIR/user-ids.csv -DclusterDir=$DIR/cluster \
    -Dwindow=5 -Dramp=0 -Dp99=2000 -DmaxFailed=0 "$@"
}
run GetUserSimulation -Dusers=300
run SearchUserSimulation -Dusers=200
run RegisterUserSimulation -Dusers=40
run MixedSimulation -Dusers=300 -DregisterPercent=5 -DregisterP99=2000
echo "== all simulations passed"
