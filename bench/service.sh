# Sourced by bench/smoke.sh and bench/schemathesis.sh: starts the packaged service in the
# background and waits until it is ready.
#
#   start_service LOG ARG...   runs `java -jar $JAR ARG...` with its output in LOG, sets
#                              SERVICE to its PID, stops it by that PID when the calling
#                              script exits, and returns once the readiness probe on
#                              $MANAGEMENT_PORT answers; exits 1 with the log's tail if the
#                              service dies or is not ready within 120 s, and exits 2 at
#                              once if $PORT or $MANAGEMENT_PORT already has a listener
#                              (another process's readiness would otherwise answer for it).
start_service() {
  local log=$1 port
  shift
  for port in "$PORT" "$MANAGEMENT_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "port $port is already in use: stop what listens there, or set PORT and MANAGEMENT_PORT" >&2
      exit 2
    fi
  done
  java -jar "$JAR" "$@" > "$log" 2>&1 &
  SERVICE=$!
  trap 'kill $SERVICE 2>/dev/null; wait $SERVICE 2>/dev/null || true' EXIT
  for _ in $(seq 1 120); do
    curl -fs -o /dev/null "http://127.0.0.1:$MANAGEMENT_PORT/actuator/health/readiness" && return 0
    kill -0 $SERVICE 2>/dev/null || { tail -50 "$log"; exit 1; }
    sleep 1
  done
  echo "the service was not ready after 120 s" >&2
  tail -50 "$log"
  exit 1
}
