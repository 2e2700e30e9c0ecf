#!/usr/bin/env bash
# Start one benchmark control server in the background and wait until it is ready.
#
#   bench/controls/run-control.sh spring-jdbc|vertx-pg
#
# Builds the control first if its jar is missing or older than its sources, starts
# it with `java -jar`, waits until GET /user/<zero uuid> answers 404 (which needs
# the replicas up: the query has to run), then prints the PID on stdout and exits 0.
# The caller measures the control and stops it with `kill <pid>`. All other output
# goes to stderr; the server's own output goes to LOG_FILE.
#
# Environment:
#   PORT             port to listen on (default 18090 for spring-jdbc, 18091 for vertx-pg)
#   JAVA             java launcher (default: java)
#   JAVA_OPTS        extra JVM options, e.g. "-Xmx512m" (default: none)
#   STARTUP_TIMEOUT  seconds to wait for the 404 (default: 120)
#   PID_FILE         where the PID is written (default: bench/controls/NAME/target/control.pid)
#   LOG_FILE         server output (default: bench/controls/NAME/target/control.log)
# Also passed through to the control: PGPASSWORD, and REPLICAS (vertx-pg) or
# SPRING_DATASOURCE_URL (spring-jdbc) to point it at other replicas.
set -euo pipefail

die() { echo "run-control: $*" >&2; exit 1; }

name=${1:-}
case "$name" in
	spring-jdbc) jar_name=spring-jdbc-control.jar; default_port=18090 ;;
	vertx-pg) jar_name=vertx-pg-control.jar; default_port=18091 ;;
	*) die "usage: $0 spring-jdbc|vertx-pg" ;;
esac

controls_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_dir=$(cd "$controls_dir/../.." && pwd)
project_dir=$controls_dir/$name
jar=$project_dir/target/$jar_name
export PORT=${PORT:-$default_port}
java_cmd=${JAVA:-java}
timeout_s=${STARTUP_TIMEOUT:-120}
pid_file=${PID_FILE:-$project_dir/target/control.pid}
log_file=${LOG_FILE:-$project_dir/target/control.log}
probe_url="http://127.0.0.1:$PORT/user/00000000-0000-0000-0000-000000000000"

[[ $PORT =~ ^[0-9]+$ ]] || die "PORT must be a number, got '$PORT'"
command -v curl >/dev/null || die "curl is required"
command -v "$java_cmd" >/dev/null || die "JAVA '$java_cmd' not found"

# Refuse a taken port up front: otherwise the probe below could get its 404 from
# whatever already listens there and we would report someone else's server as ready.
port_in_use() {
	if command -v ss >/dev/null; then
		[[ -n $(ss -Hltn "sport = :$PORT" 2>/dev/null) ]]
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
	fi
}
if port_in_use; then
	command -v ss >/dev/null && ss -ltnp "sport = :$PORT" >&2 || true
	die "port $PORT is already in use; stop that process or choose another PORT=..."
fi

# Rebuild only when needed, so repeated runs start fast and measure the same jar.
if [[ ! -f $jar || -n $(find "$project_dir/src" "$project_dir/pom.xml" -newer "$jar" -print -quit) ]]; then
	echo "run-control: building $name ..." >&2
	"$repo_dir/mvnw" -f "$project_dir/pom.xml" -q package >&2 || die "build of $name failed"
fi

mkdir -p "$(dirname "$pid_file")" "$(dirname "$log_file")"
# Started from its own directory so Spring Boot cannot pick up a stray
# ./application.properties from the caller's working directory; exec keeps $! == java's PID.
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options on purpose
(cd "$project_dir" && exec nohup "$java_cmd" ${JAVA_OPTS:-} -jar "$jar" </dev/null >"$log_file" 2>&1) &
pid=$!
echo "$pid" >"$pid_file"
echo "run-control: started $name pid $pid on port $PORT (log $log_file)" >&2

# Stop what we started if we are interrupted or give up, so no server is left behind.
stop_started() {
	kill "$pid" 2>/dev/null || true
	# Give it a moment to release the port, so an immediate retry does not collide.
	for _ in {1..20}; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	rm -f "$pid_file"
}
trap 'stop_started; exit 130' INT TERM

deadline=$((SECONDS + timeout_s))
code=none
while ((SECONDS < deadline)); do
	if ! kill -0 "$pid" 2>/dev/null; then
		tail -n 20 "$log_file" >&2 || true
		rm -f "$pid_file"
		die "$name exited before it was ready (see $log_file)"
	fi
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$probe_url" || true)
	if [[ $code == 404 ]]; then
		trap - INT TERM
		echo "run-control: $name ready (GET /user/<zero uuid> -> 404)" >&2
		echo "$pid"
		exit 0
	fi
	sleep 0.5
done

tail -n 20 "$log_file" >&2 || true
stop_started
die "$name did not answer 404 within ${timeout_s}s (last HTTP status: $code; are the replicas up?); stopped pid $pid"
