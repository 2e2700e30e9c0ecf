#!/usr/bin/env bash
# The lost-write set check at full size: concurrent registrations through the HTTP API,
# kill -9 of the primary's postmaster and backends halfway, the failover command, more
# registrations against the new primary, then every marker compared with the rows on the
# new primary. Once with synchronous replication (must lose nothing) and once with
# asynchronous replication (the negative control: must lose something). In the synchronous
# runs every registration carries an Idempotency-Key and is retried with it until answered 200
# (at most 120 s per key); each key must then map to exactly one user: 0 lost, 0 duplicates,
# none never acknowledged (docs/reliability.md, "The retry phase"). The keys that needed a retry:
# <mode>-keys.csv beside the reports.
#
#   bash bench/lost-write.sh [ACKNOWLEDGED] [WRITERS]
#   bash bench/lost-write.sh --compose [ACKNOWLEDGED] [WRITERS]
#   bash bench/lost-write.sh --patroni [ACKNOWLEDGED] [WRITERS]
#
# With --compose the same check runs through the compose deployment instead
# (ComposeFailoverIntegrationTests: a compose project of its own, `docker compose kill` of the
# primary container, then docker/failover.sh), synchronous only; it needs a Docker engine with
# Compose v2 and the images (docker/local-images.sh; export docker/local-images.env where the
# official images cannot be pulled). Its report: target/compose-failover/.
# With --patroni it runs through the high-availability deployment (PatroniFailoverIntegrationTests:
# docker-compose.ha.yml, the leader's container killed, Patroni fails over by itself, the old
# leader's container started again must rejoin), then the partition test (the new leader cut off
# from etcd and its peers, still reachable by the service: nothing acknowledged lost, never two
# writable nodes, rejoin once healed), then the asynchronous control; same needs.
# Its reports: target/patroni-failover/.
#
# ACKNOWLEDGED (default 10000) writes are acknowledged across the run, half of them before
# the crash; WRITERS (default 16) concurrent clients. The service and its own cluster
# (ports 29432-29434, target/lost-write-cluster) run inside the test JVM; nothing is left
# running. Reports and per-request outcome logs: target/lost-write/. Replication is stalled
# for LOST_WRITE_STALL_MS (default 2000) right before the crash; 0 crashes without a stall.
set -euo pipefail
cd "$(dirname "$0")/.."
test=LostWriteIntegrationTests
reports=(target/lost-write/sync-report.txt target/lost-write/async-report.txt)
if [ "${1:-}" = --compose ]; then
  shift
  test=ComposeFailoverIntegrationTests
  reports=(target/compose-failover/sync-report.txt)
elif [ "${1:-}" = --patroni ]; then
  shift
  test=PatroniFailoverIntegrationTests
  reports=(target/patroni-failover/sync-report.txt target/patroni-failover/sync-rejoin.txt
    target/patroni-failover/partition/sync-report.txt target/patroni-failover/partition/timeline.txt
    target/patroni-failover/async-report.txt)
fi
acknowledged=${1:-10000}
writers=${2:-16}
stall_ms=${LOST_WRITE_STALL_MS:-2000}
case "$acknowledged$writers$stall_ms" in
  *[!0-9]*) echo "usage: [LOST_WRITE_STALL_MS=ms] $0 [--compose|--patroni] [ACKNOWLEDGED] [WRITERS] (integers)" >&2; exit 2 ;;
esac
if [ "$acknowledged" -lt 2 ] || [ "$writers" -lt 1 ]; then
  echo "ACKNOWLEDGED must be at least 2 and WRITERS at least 1" >&2
  exit 2
fi
rm -rf target/lost-write target/compose-failover target/patroni-failover
./mvnw -B -ntp verify -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test="$test" -Dlost-write.acknowledged="$acknowledged" -Dlost-write.writers="$writers" \
  -Dlost-write.stall-ms="$stall_ms"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
cat "${reports[@]}"
