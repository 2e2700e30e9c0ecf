#!/usr/bin/env bash
# Trains class-data archives for the production jar, for bench/cold-start.py to compare:
#   target/aot/app.aot   Java 25's ahead-of-time cache (JEP 483 classes loaded and linked,
#                        JEP 515 method profiles), from a training run under load;
#   target/aot/app17.jsa Java 17's dynamic CDS archive, from the same kind of run.
# Both need the jar extracted (the JVM does not map classes out of nested jars):
# target/aot/user-profiles-0.1.0-SNAPSHOT.jar with its lib/ beside it. Each training run
# joins the running embedded cluster's nodes on port 18380 (with a throw-away token key, which
# a service without the embedded cluster needs), takes the keep-alive load of
# bench/get-user.lua for TRAIN_SECONDS (default 60), and writes its archive when it exits.
#
#   bench/aot-cache.sh          then, for example:
#   /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -XX:AOTCache=target/aot/app.aot \
#       -jar target/aot/user-profiles-0.1.0-SNAPSHOT.jar
set -euo pipefail
cd "$(dirname "$0")/.."

JAVA17=${JAVA17:-java}
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
TRAIN_SECONDS=${TRAIN_SECONDS:-60}
PORT=18380
jar=target/user-profiles-0.1.0-SNAPSHOT.jar
out=target/aot

[[ -f $jar ]] || { echo "aot-cache: $jar is missing; run ./mvnw package first" >&2; exit 1; }
command -v wrk >/dev/null || { echo "aot-cache: wrk is missing (apt-get install wrk)" >&2; exit 1; }
rm -rf "$out"
"$JAVA17" -Djarmode=tools -jar "$jar" extract --destination "$out" >/dev/null

train() { # train NAME JAVA FLAG...
	local name=$1 java=$2
	shift 2
	"$java" "$@" -jar "$out/$(basename "$jar")" --app.cluster.enabled=false --server.port=$PORT \
		--management.server.port=$((PORT + 1)) --app.auth.token-keys="bench:$(head -c 32 /dev/urandom | base64)" \
		>"$out/$name-training.log" 2>&1 &
	local pid=$! i
	for i in $(seq 1 600); do
		[[ $(curl -s -o /dev/null -w '%{http_code}' \
			http://127.0.0.1:$PORT/user/00000000-0000-0000-0000-000000000000) == 404 ]] && break
		kill -0 $pid 2>/dev/null || { echo "aot-cache: $name training run ended; see $out/$name-training.log" >&2; exit 1; }
		sleep 0.2
	done
	wrk -t2 -c16 -d"${TRAIN_SECONDS}s" -s bench/get-user.lua http://127.0.0.1:$PORT >/dev/null
	kill -TERM $pid
	wait $pid || true
}

train app25 "$JAVA25" -XX:AOTCacheOutput="$out/app.aot"
train app17 "$JAVA17" -XX:ArchiveClassesAtExit="$out/app17.jsa"
ls -l "$out/app.aot" "$out/app17.jsa"
