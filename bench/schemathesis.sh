#!/usr/bin/env bash
# Schemathesis against the packaged service: property-based requests generated from the
# OpenAPI document the service serves (management port, /actuator/openapi), sent to the API
# port, each response checked for: no 5xx, a documented status code, a documented content
# type, a body matching the documented schema, documented headers. Any finding fails the run.
#
# Starts the packaged jar (build it first: ./mvnw package or verify) on its own cluster
# (ports CLUSTER_PORT to CLUSTER_PORT+2, 28432-28434 by default, below Linux's ephemeral range;
# data in target/schemathesis) and its own HTTP ports (API 18090, management 18091), like
# bench/smoke.sh, and stops it by its PID.
# Schemathesis comes from PyPI into a virtualenv under target/ (needs python3 with venv).
#
# The service runs with its default limits except registrations per address, raised here
# explicitly (--app.auth.throttle.registrations-per-address=0, i.e. off) so that the
# generated registrations keep reaching validation and the database; failed logins stay
# throttled at the defaults, so the 429 answers are checked against the document too.
#
# Knobs: PORT [18090], MANAGEMENT_PORT [18091], CLUSTER_PORT [28432], MAX_EXAMPLES [40] test cases per operation and phase, MAX_TIME [150] seconds for the
# whole run, SEED [20261122] (a fixed seed: the same cases every run), WORKERS [2].
# Settings for Schemathesis itself are in bench/schemathesis.toml. Reports (JUnit XML) go to
# target/schemathesis/report, the service's log to target/schemathesis-service.log.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/service.sh

SCHEMATHESIS_VERSION=4.32.5
PORT=${PORT:-18090}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-18091}
CLUSTER_PORT=${CLUSTER_PORT:-28432}
MAX_EXAMPLES=${MAX_EXAMPLES:-40}
MAX_TIME=${MAX_TIME:-150}
SEED=${SEED:-20261122}
WORKERS=${WORKERS:-2}
DIR=target/schemathesis
VENV=${SCHEMATHESIS_VENV:-target/schemathesis-venv}
# The local jar: the production one carries no embedded cluster.
JAR=$(ls target/user-profiles-*-local.jar | head -1)
APP_ARGS=(--app.cluster.base-dir=$DIR --app.cluster.primary-port=$CLUSTER_PORT
  --app.cluster.replica1-port=$((CLUSTER_PORT + 1)) --app.cluster.replica2-port=$((CLUSTER_PORT + 2))
  --app.cluster.shared-buffers=64MB --server.port=$PORT
  --management.server.port=$MANAGEMENT_PORT --app.auth.throttle.registrations-per-address=0)

if [ ! -x "$VENV/bin/st" ] || [ "$("$VENV/bin/st" --version 2>/dev/null)" != "st, version $SCHEMATHESIS_VERSION" ]; then
  echo "== installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV" || { echo "python3 -m venv failed: install python3-venv" >&2; exit 2; }
  "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

mkdir -p $DIR
echo "== starting the service on port $PORT (management $MANAGEMENT_PORT)"
start_service $DIR-service.log "${APP_ARGS[@]}"
curl -fs -o $DIR/openapi.json "http://127.0.0.1:$MANAGEMENT_PORT/actuator/openapi" \
  || { echo "no OpenAPI document" >&2; tail -50 $DIR-service.log; exit 1; }

# One real user, so that GET /user/me is exercised with a valid token too (every request
# carries it; the other endpoints ignore it).
API=http://127.0.0.1:$PORT
USER_ID=$(curl -fs -X POST "$API/user/register" -H 'Content-Type: application/json' \
  -d '{"first_name":"Schema","second_name":"Thesis","birthdate":"1990-01-01","password":"schemathesis-password"}' \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["user_id"])')
TOKEN=$(curl -fs -X POST "$API/login" -H 'Content-Type: application/json' \
  -d "{\"id\":\"$USER_ID\",\"password\":\"schemathesis-password\"}" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')

echo "== schemathesis: up to $MAX_EXAMPLES cases per operation and phase, at most ${MAX_TIME}s, seed $SEED"
status=0
"$VENV/bin/st" --config-file bench/schemathesis.toml --no-color run "http://127.0.0.1:$MANAGEMENT_PORT/actuator/openapi" \
  --url "$API" -H "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance,negative_data_rejection \
  --max-examples "$MAX_EXAMPLES" --max-time "$MAX_TIME" --seed "$SEED" --workers "$WORKERS" \
  --request-timeout 10 --generation-database none \
  --report junit --report-dir $DIR/report || status=$?
if grep -q 'Unexpected error' $DIR-service.log; then
  echo "the service logged an unexpected error (see $DIR-service.log)" >&2
  status=1
fi
[ $status -eq 0 ] && echo "== schemathesis: no findings" || echo "== schemathesis: findings (exit $status)" >&2
exit $status
