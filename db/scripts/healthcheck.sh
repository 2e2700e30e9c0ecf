#!/usr/bin/env bash
# Healthcheck of a node: "healthcheck.sh primary", "healthcheck.sh replica" or
# "healthcheck.sh node". Healthy means accepting TCP connections (the image's initialisation
# server listens on the socket only, so it does not count) and, for the primary, out of
# recovery; for a replica, in recovery with its WAL receiver streaming; for a node, either of
# the two, whichever role it has now (docker-compose.yml uses this one, since a failover
# changes the roles but not the services). The query goes over libpq's default connection
# (the Unix socket in the container; PGHOST and PGPORT elsewhere).
set -euo pipefail

case "${1:-}" in
	primary) sql='SELECT NOT pg_is_in_recovery()' ;;
	replica) sql="SELECT pg_is_in_recovery() AND EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')" ;;
	node) sql="SELECT NOT pg_is_in_recovery() OR EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')" ;;
	*)
		echo "usage: $0 primary|replica|node" >&2
		exit 2
		;;
esac

pg_isready -q -h "${HEALTHCHECK_TCP_HOST:-127.0.0.1}" -p "${PGPORT:-5432}" -t 3
[ "$(psql -XAtq --no-password -U "${POSTGRES_USER:-postgres}" -d postgres -c "$sql")" = t ]
