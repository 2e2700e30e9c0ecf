#!/usr/bin/env bash
# CPU of the service per refused request: the service on its embedded cluster with an admission
# limit of one request at a time and no wait, wrk -t2 -c32 as fast as it goes (after 10 s discarded),
# so that most requests are refused, each on a connection of its own (a refusal closes it). Prints,
# per round, the requests, the refusals (admission_shed_total) and the service's CPU per request from
# /proc/<pid>/stat. Needs wrk, a build (./mvnw package -DskipTests; ./mvnw test-compile) and the
# seeded ids (.data/user-ids.csv). Uses the README's ports 8080 and 8081.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
classpath=$(cat target/local-classpath.txt)
hz=$(getconf CLK_TCK)
for round in $(seq "$rounds"); do
  java -cp "target/test-classes:target/classes:$classpath" dev.highload.profiles.LocalProfilesApplication \
    --app.admission.min-limit=1 --app.admission.max-limit=1 --app.admission.waiting-max=0 \
    --app.warm-up.max-time=40s >target/refusal-cost-service.log 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' EXIT
  until [ "$(curl -s -o /dev/null -w '%{http_code}' localhost:8081/actuator/health/readiness)" = 200 ]; do
    kill -0 "$pid" || { tail -30 target/refusal-cost-service.log; exit 1; }
    sleep 1
  done
  wrk -t2 -c32 -d10s -s bench/get.lua http://127.0.0.1:8080 >/dev/null 2>&1
  shed() { curl -s localhost:8081/actuator/prometheus | awk '/^admission_shed_total/ {s += $2} END {print s}'; }
  shed0=$(shed)
  read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  requests=$(wrk -t2 -c32 -d20s -s bench/get.lua http://127.0.0.1:8080 2>&1 | awk '/requests in/ {print $1}')
  read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$pid/stat")
  shed1=$(shed)
  python3 -c "
user, system, requests = ($u1 - $u0) * 1e6 / $hz, ($s1 - $s0) * 1e6 / $hz, $requests
print(f'round $round: {requests} requests, {$shed1 - $shed0:.0f} refused; service CPU per request '
      f'{(user + system) / requests:.1f} us (user {user / requests:.1f}, sys {system / requests:.1f})')"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
