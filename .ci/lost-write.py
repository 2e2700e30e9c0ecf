#!/usr/bin/env python3
"""The lost-write set check at full size (docs/reliability.md, "Lost-write test" and "The retry phase"):
concurrent registrations, kill -9 of the primary halfway, the failover, more registrations, then every
acknowledged write looked for on the new primary; with synchronous replication nothing may be lost and
every Idempotency-Key must map to exactly one user, with asynchronous replication (the negative
control) something must be. Without --compose or --patroni the service and its own cluster (ports
29432-29434) run inside the test JVM; those two run it through the container deployments and need a
Docker engine with Compose v2 and the images (docker/local-images.sh). Reports and per-request logs:
target/lost-write/ (target/compose-failover/, target/patroni-failover/).
"""
import argparse
import shutil
import subprocess
import sys
from pathlib import Path

# The service, Gatling and process helpers are the benchmarks' (bench/common.py), shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from common import ROOT, commit

REPORTS = {"LostWriteIntegrationTests": ["lost-write/sync-report.txt", "lost-write/async-report.txt"],
           "ComposeFailoverIntegrationTests": ["compose-failover/sync-report.txt"],
           "PatroniFailoverIntegrationTests": [f"patroni-failover/{f}.txt" for f in (
               "sync-report", "sync-rejoin", "partition/sync-report", "partition/timeline", "async-report")]}


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
