#!/usr/bin/env bash
# GetUserSimulation against the compose deployment, the reference report's own set-up (every
# node and the service in Docker on one machine), with the CPU of each container recorded in
# the same run. Start and seed the deployment first (README, "Docker Compose"):
#
#   bash docker/secrets.sh && docker compose --env-file docker/local-images.env up --build -d
#   docker compose run --rm --user "$(id -u):$(id -g)" -v "$PWD/.data:/app/.data" app --app.seed.users=1000000
#   bash bench/compose-load.sh 250000 500000
#
# For each user count: WARMUP (default 60) seconds of wrk to warm the service's JIT (not
# measured; the embedded runs of bench/load-test.sh take 30 s, at twice the rate), then
# `./mvnw gatling:test -Dusers=N` against 127.0.0.1:8080, while this script reads each
# container's CPU time from its cgroup (cgroup v1 cpuacct.usage or v2 cpu.stat) and that of
# the docker-proxy processes publishing the port, every 5 s. Its table (average and highest
# 5-s interval, in % of one core; two busy cores are 200 %) goes beside Gatling's summary into
# docs/load-tests/compose-getusersimulation-N/. COMPOSE_PROJECT_NAME picks the project
# (default: this directory's name, as compose does); WINDOW the seconds users keep arriving
# (default 600, the simulation's); LABEL a suffix for the output directory (for example
# no-userland-proxy). Exits non-zero if a run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 250000
for users in "$@"; do
  case "$users" in '' | *[!0-9]*) echo "usage: [WINDOW=s] [WARMUP=s] [LABEL=name] $0 USERS... (integers)" >&2; exit 2 ;; esac
done
for tool in docker curl wrk; do
  command -v "$tool" >/dev/null || { echo "$tool is needed (apt-get install $tool)" >&2; exit 2; }
done
[ -s .data/user-ids.csv ] || { echo "No .data/user-ids.csv: seed the compose deployment first (see the top of $0)" >&2; exit 2; }
curl -fs -o /dev/null http://127.0.0.1:8081/actuator/health/readiness \
  || { echo "The compose service does not answer on 127.0.0.1:8081: docker compose up first" >&2; exit 2; }
project=${COMPOSE_PROJECT_NAME:-$(basename "$PWD")}
project=$(tr 'A-Z' 'a-z' <<<"$project" | tr -cd 'a-z0-9_-')

# The containers of the project, as "name cgroup-file".
containers=()
for id in $(docker ps -q --filter "label=com.docker.compose.project=$project"); do
  name=$(docker inspect -f '{{index .Config.Labels "com.docker.compose.service"}}' "$id")
  pid=$(docker inspect -f '{{.State.Pid}}' "$id")
  v1=$(sed -n 's/^[0-9]*:[^:]*cpuacct[^:]*://p' "/proc/$pid/cgroup")
  v2=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
  if [ -n "$v1" ] && [ -r "/sys/fs/cgroup/cpuacct$v1/cpuacct.usage" ]; then
    containers+=("$name /sys/fs/cgroup/cpuacct$v1/cpuacct.usage")
  elif [ -r "/sys/fs/cgroup$v2/cpu.stat" ]; then
    containers+=("$name /sys/fs/cgroup$v2/cpu.stat")
  else
    echo "cannot find the cgroup of $name (pid $pid)" >&2
    exit 2
  fi
done
[ ${#containers[@]} -gt 0 ] || { echo "no running container of compose project '$project'" >&2; exit 2; }
# The processes that publish the service's ports on the host (one per port and address family).
proxies=()
for pid in /proc/[0-9]*; do
  [ "$(cat "$pid/comm" 2>/dev/null)" = docker-proxy ] || continue
  tr '\0' ' ' <"$pid/cmdline" | grep -q -- "-container-ip $(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "${project}-app-1" 2>/dev/null)" \
    && proxies+=("${pid#/proc/}")
done
hz=$(getconf CLK_TCK)

# CPU nanoseconds used so far, one line per series: name value.
counters() {
  local entry name file
  for entry in "${containers[@]}"; do
    read -r name file <<<"$entry"
    case "$file" in
      *cpuacct.usage) echo "$name $(cat "$file")" ;;
      *) echo "$name $(( $(awk '$1 == "usage_usec" { print $2 }' "$file") * 1000 ))" ;;
    esac
  done
  local ticks=0 pid
  for pid in "${proxies[@]}"; do
    # utime and stime: fields 14 and 15 of /proc/PID/stat, after the command in parentheses.
    ticks=$((ticks + $(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')))
  done
  echo "docker-proxy $((ticks * 1000000000 / hz))"
  # The whole machine: every CPU's busy time (all but idle and iowait).
  echo "machine $(( $(awk '/^cpu / { printf "%.0f", $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat) * 1000000000 / hz ))"
}

# Samples every 5 s into a CSV until killed: time_s,name,percent_of_a_core.
sample() {
  local csv=$1 began prev now t
  began=$(date +%s%N)
  declare -A last
  while read -r name value; do last[$name]=$value; done < <(counters)
  prev=$began
  echo "seconds,series,cpu_percent" >"$csv"
  while sleep 5; do
    now=$(date +%s%N)
    t=$(( (now - began) / 1000000000 ))
    while read -r name value; do
      echo "$t,$name,$(awk -v d=$((value - ${last[$name]})) -v w=$((now - prev)) 'BEGIN { printf "%.1f", 100 * d / w }')" >>"$csv"
      last[$name]=$value
    done < <(counters)
    prev=$now
  done
}

failed=0
for users in "$@"; do
  name="compose-getusersimulation-$users${LABEL:+-$LABEL}"
  out="docs/load-tests/$name"
  mkdir -p "$out" target
  echo "== $name: containers ${containers[*]%% *}; docker-proxy pids ${proxies[*]:-none}"
  wrk -t2 -c16 -d"${WARMUP:-60}s" -s bench/get-user.lua http://127.0.0.1:8080 | grep Requests/sec
  log="target/$name-gatling.log"
  # The nodes' CPU is recorded here; the sampler in Gatling must not look for an embedded cluster.
  ./mvnw -B -ntp gatling:test -Dspring-javaformat.validate.skip=true -Dusers="$users" -Dwindow="${WINDOW:-600}" \
    -DbaseUrl=http://127.0.0.1:8080 -DclusterDir=target/no-embedded-cluster >"$log" 2>&1 &
  gatling=$!
  sample "$out/containers-cpu.csv" &
  sampler=$!
  # The averages cover the simulation itself: from Gatling's "Simulation ... started" to the
  # simulation's own summary ("==== name ===="), printed as soon as the last user is done.
  declare -A before=() after=()
  phase=start
  while kill -0 "$gatling" 2>/dev/null; do
    if [ $phase = start ] && grep -q "^Simulation .* started" "$log"; then
      while read -r series value; do before[$series]=$value; done < <(counters)
      began=$(date +%s%N)
      phase=run
    elif [ $phase = run ] && grep -q "^==== " "$log"; then
      while read -r series value; do after[$series]=$value; done < <(counters)
      ended=$(date +%s%N)
      phase=done
    fi
    sleep 0.2
  done
  wait "$gatling"
  status=$?
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  if [ $phase != done ]; then
    echo "Gatling's log has no \"Simulation ... started\" or no summary: see $log" >&2
    failed=1
    continue
  fi
  [ $status -eq 0 ] || failed=1
  {
    echo "CPU by container over the simulation ($(( (ended - began) / 1000000000 )) s, from Gatling's start to its summary),"
    echo "in % of one core (2 cores = 200 %); highest = the busiest 5-s interval:"
    for series in "${!after[@]}"; do
      value=${after[$series]}
      avg=$(awk -v d=$((value - ${before[$series]})) -v w=$((ended - began)) 'BEGIN { printf "%.1f", 100 * d / w }')
      max=$(awk -F, -v s="$series" '$2 == s && $3 + 0 > m { m = $3 + 0 } END { printf "%.1f", m }' "$out/containers-cpu.csv")
      printf '  %-14s average %6s %%   highest %6s %%\n' "$series" "$avg" "$max"
    done | sort
  } >"$out/containers-cpu.txt"
  run=$(ls -td target/gatling/getusersimulation-*/ | head -1)
  cp "$run"/*-summary.txt "$run"/*-latency.csv "$run"/*-cpu.csv "$run"/*-cpu.png "$out"/
  grep -E "^(Global|Details)|: (true|false)" "target/$name-gatling.log" >"$out/assertions.txt"
  cat "$out"/*-summary.txt "$out/containers-cpu.txt" "$out/assertions.txt"
  echo "(exit $status) copied to $out; Gatling report in $run"
done
exit $failed
