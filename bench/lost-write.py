#!/usr/bin/env python3
"""The lost-write set check at full size: concurrent registrations through the HTTP API, kill -9 of
the primary's postmaster and backends halfway, the failover command, more registrations against the
new primary, then every marker compared with the rows on the new primary. Once with synchronous
replication (must lose nothing) and once with asynchronous replication (the negative control: must
lose something). In the synchronous runs every registration carries an Idempotency-Key and is
retried with it until answered 200 (at most 120 s per key); each key must then map to exactly one
user (docs/reliability.md, "The retry phase"). The keys that needed a retry: <mode>-keys.csv beside
the reports.

With --compose the same check runs through the compose deployment (ComposeFailoverIntegrationTests:
`docker compose kill` of the primary, then docker/failover.sh), synchronous only; with --patroni
through the high-availability deployment (PatroniFailoverIntegrationTests: Patroni fails over by
itself, the old leader must rejoin), then the partition test, then the asynchronous control. Both need
a Docker engine with Compose v2 and the images (docker/local-images.sh).

Without either, the service and its own cluster (ports 29432-29434) run inside the test JVM. Reports
and per-request outcome logs: target/lost-write/ (target/compose-failover/, target/patroni-failover/).
"""
import argparse
import shutil
import subprocess
import sys

from common import ROOT, commit

REPORTS = {
    "LostWriteIntegrationTests": ["lost-write/sync-report.txt", "lost-write/async-report.txt"],
    "ComposeFailoverIntegrationTests": ["compose-failover/sync-report.txt"],
    "PatroniFailoverIntegrationTests": ["patroni-failover/sync-report.txt", "patroni-failover/sync-rejoin.txt",
                                        "patroni-failover/partition/sync-report.txt",
                                        "patroni-failover/partition/timeline.txt", "patroni-failover/async-report.txt"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("acknowledged", nargs="?", type=int, default=10000,
                        help="writes acknowledged across the run, half before the crash [%(default)s]")
    parser.add_argument("writers", nargs="?", type=int, default=16, help="concurrent clients [%(default)s]")
    deployment = parser.add_mutually_exclusive_group()
    deployment.add_argument("--compose", action="store_const", dest="test", const="ComposeFailoverIntegrationTests")
    deployment.add_argument("--patroni", action="store_const", dest="test", const="PatroniFailoverIntegrationTests")
    parser.add_argument("--stall-ms", type=int, default=2000,
                        help="replication stalled this long right before the crash; 0 crashes without a stall [%(default)s]")
    args = parser.parse_args()
    test = args.test or "LostWriteIntegrationTests"
    if args.acknowledged < 2 or args.writers < 1 or args.stall_ms < 0:
        parser.error("ACKNOWLEDGED must be at least 2, WRITERS at least 1, --stall-ms not negative")
    for directory in ("lost-write", "compose-failover", "patroni-failover"):
        shutil.rmtree(ROOT / "target" / directory, ignore_errors=True)
    status = subprocess.run(["./mvnw", "-B", "-ntp", "verify", "-Dtest=NoSuchTest", "-Dsurefire.failIfNoSpecifiedTests=false",
                             f"-Dit.test={test}", f"-Dlost-write.acknowledged={args.acknowledged}",
                             f"-Dlost-write.writers={args.writers}", f"-Dlost-write.stall-ms={args.stall_ms}"],
                            cwd=ROOT).returncode
    if status:
        sys.exit(status)
    print(f"commit {commit()}")
    for report in REPORTS[test]:
        print((ROOT / "target" / report).read_text(), end="")


if __name__ == "__main__":
    main()
