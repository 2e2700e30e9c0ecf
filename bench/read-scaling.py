#!/usr/bin/env python3
"""The shape of scaling reads from one replica to two, at equal CPU quotas, on one host.

Each replica of the embedded cluster (.data/, seeded the README's way) is put in a CPU cgroup of its
own with the same quota (--quota, a fraction of one core: cgroup v1's cpu.cfs_quota_us over
cfs_period_us, or v2's cpu.max), its postmaster and every process below it, so that the backends it
forks later are bound too. Two instances of the service read from them: the one `./mvnw
spring-boot:run` starts (both replicas) and a second with the embedded cluster off that reads from
replica1 alone (ports 8090/8091). bench/cpu-per-request.py then gives both the same closed-loop GETs
in turn, and the req/s of each is what its replicas' quotas let through. Two replicas on one host,
under one load generator, show a shape (how far the second replica moves the bound), not a capacity:
the cores the quotas leave are shared by everything else. The groups are removed when the run ends.
No calibration: pgbench would meet the quotas; calibrate before or after (bench/load-test.py does).

Needs root and a writable cgroup tree; exits 2 saying so otherwise.

    python3 bench/read-scaling.py --quota 0.3 --rounds 3 --out target/read-scaling
"""
import argparse
import base64
import secrets
import subprocess
import sys
from pathlib import Path

from common import CGROUPS, ROOT, fail, log, service

PRIMARY, REPLICA1, REPLICA2 = 15432, 15433, 15434
PERIOD_US = 100_000


def postmaster(name):
    """The pid of a node's postmaster, from its lock file."""
    return int((ROOT / ".data/cluster" / name / "postmaster.pid").read_text().split()[0])


def bound(name, pid, quota):
    """A CPU cgroup named name with quota of one core, holding pid and every process below it."""
    unified = (CGROUPS / "cgroup.controllers").exists()
    base = CGROUPS if unified else CGROUPS / "cpu"
    group = base / f"read-scaling-{name}"
    group.mkdir(exist_ok=True)
    if unified:
        (group / "cpu.max").write_text(f"{round(quota * PERIOD_US)} {PERIOD_US}")
    else:
        (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (group / "cpu.cfs_quota_us").write_text(str(round(quota * PERIOD_US)))
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    for process in [str(pid), *children]:
        try:
            (group / "cgroup.procs").write_text(process)
        except OSError:
            pass  # a backend that has exited since
    return group


def release(group):
    """Moves what is left in the group back to the root and removes it."""
    root = group.parent
    for process in (group / "cgroup.procs").read_text().split():
        try:
            (root / "cgroup.procs").write_text(process)
        except OSError:
            pass
    group.rmdir()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quota", type=float, default=0.3, help="each replica's CPU, in cores [%(default)s]")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15, help="length of each measured wrk run [%(default)s]")
    parser.add_argument("--warm-up", type=int, default=30, help="seconds of wrk load per instance first [%(default)s]")
    parser.add_argument("--out", type=Path, default=ROOT / "target/read-scaling")
    args = parser.parse_args()
    if not (ROOT / ".data/user-ids.csv").is_file():
        fail("seed first: the README's seeding command (1,000,000 users into .data/)", 2)
    args.out.mkdir(parents=True, exist_ok=True)
    key = "bench:" + base64.b64encode(secrets.token_bytes(32)).decode()
    one = ["--app.cluster.enabled=false", f"--app.db.nodes=127.0.0.1:{PRIMARY},127.0.0.1:{REPLICA1}",
           f"--app.db.replicas=127.0.0.1:{REPLICA1}", "--app.db.migrations=validate", "--server.port=8090",
           "--management.server.port=8091", f"--app.auth.token-keys={key}"]
    with service(args.out / "two-replicas.log", []):
        with service(args.out / "one-replica.log", one, port=8090, management_port=8091):
            groups = []
            try:
                for name in ("replica1", "replica2"):
                    groups.append(bound(name, postmaster(name), args.quota))
                    log(f"{name}: {args.quota} of a core ({groups[-1]})")
            except OSError as ex:
                for group in groups:
                    release(group)
                fail(f"could not bound the replicas' CPU ({ex}): needs root and a writable cgroup tree", 2)
            try:
                result = subprocess.run([sys.executable, str(ROOT / "bench/cpu-per-request.py"), "--rounds",
                                         str(args.rounds), "--seconds", str(args.seconds), "--warm-up",
                                         str(args.warm_up), "--no-calibration", "one-replica=8090", "two-replicas=8080"],
                                        stdout=subprocess.PIPE, text=True)
            finally:
                for group in groups:
                    release(group)
    (args.out / "cpu-per-request.txt").write_text(result.stdout)
    print(result.stdout)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
