#!/usr/bin/env bash
# The machine's own speed, printed as one number: pgbench's select-only script (one
# primary-key lookup per transaction, prepared) on a scale-1 table set in the schema
# "calibration" of the profiles database, 4 clients on each replica for 15 s, TPS summed.
# Run by bench/load-test.sh and bench/cpu-per-request.py, so their calibrations compare.
# Creates the schema on the primary the first time (DROP SCHEMA calibration CASCADE
# removes it). Needs psql and pgbench; exits 1 if a pgbench run fails. It connects as the
# embedded cluster's schema owner, profiles_owner: the service's runtime role may not create
# a schema or tables.
set -uo pipefail
export PGPASSWORD=${PGPASSWORD:-profiles_owner}
conn=(-h 127.0.0.1 -U "${PGUSER:-profiles_owner}")
db=${PGDATABASE:-profiles}
if [ "$(psql "${conn[@]}" -p 15432 -d "$db" -Atc "SELECT to_regclass('calibration.pgbench_accounts') IS NOT NULL")" != t ]; then
  psql "${conn[@]}" -p 15432 -d "$db" -qc "CREATE SCHEMA IF NOT EXISTS calibration" >&2 || exit 1
  PGOPTIONS="-c search_path=calibration" pgbench "${conn[@]}" -p 15432 -i -s 1 -q "$db" >&2 2>/dev/null || exit 1
  sleep 2
fi
a=$(mktemp) b=$(mktemp)
trap 'rm -f "$a" "$b"' EXIT
PGOPTIONS="-c search_path=calibration" pgbench "${conn[@]}" -p 15433 -n -S -M prepared -c 4 -j 1 -T 15 "$db" > "$a" 2>&1 &
PGOPTIONS="-c search_path=calibration" pgbench "${conn[@]}" -p 15434 -n -S -M prepared -c 4 -j 1 -T 15 "$db" > "$b" 2>&1
wait
awk '/^tps = / {sum += $3; n++} END {if (n == 2) printf "%.0f", sum; else exit 1}' "$a" "$b"
