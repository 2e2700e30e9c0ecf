#!/usr/bin/env python3
"""What the compose deployment costs while it serves nothing: the machine's CPU and each container's
(its cgroup's cpuacct, v1 or v2), at each healthcheck interval given.

For each interval it brings docker-compose.yml up under bench/load-test.py's project with
HEALTHCHECK_INTERVAL set, seeds 1,000 users, lets it settle, measures for --seconds and takes it down.
The machine's own idle is measured first, with no container of the project running. Prints a
Markdown table; the figures are % of one core.

    python3 bench/compose-idle.py --env-file docker/local-images.env 5s 30s
"""
import argparse
import os
import subprocess
import time
from pathlib import Path

from common import Compose, log


def machine_busy():
    """Jiffies of user, nice, system, irq and softirq (no idle, iowait or steal), as the monitor counts."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4] - fields[7]


def cgroup_usage(container_id):
    """Nanoseconds of CPU of a container so far: cgroup v1's cpuacct or v2's cpu.stat."""
    for v1 in Path("/sys/fs/cgroup/cpuacct").glob(f"**/{container_id}/cpuacct.usage"):
        return int(v1.read_text())
    for v2 in Path("/sys/fs/cgroup").glob(f"**/*{container_id}*/cpu.stat"):
        usec = next(line.split()[1] for line in v2.read_text().splitlines() if line.startswith("usage_usec"))
        return int(usec) * 1000
    return 0


def containers():
    out = subprocess.run(["docker", "ps", "--no-trunc", "--filter", f"label=com.docker.compose.project={Compose.NAME}",
                          "--format", "{{.ID}} {{.Label \"com.docker.compose.service\"}}"],
                         capture_output=True, text=True, check=True).stdout
    return dict(reversed(line.split()) for line in out.splitlines())


def measure(seconds):
    """% of one core over `seconds`: the machine and each container of the project."""
    ids = containers()
    tick = os.sysconf("SC_CLK_TCK")
    before, used = machine_busy(), {name: cgroup_usage(cid) for name, cid in ids.items()}
    time.sleep(seconds)
    machine = (machine_busy() - before) / tick / seconds * 100
    return machine, {name: (cgroup_usage(cid) - used[name]) / 1e9 / seconds * 100 for name, cid in ids.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("intervals", nargs="+", help="HEALTHCHECK_INTERVAL values, e.g. 5s 30s")
    parser.add_argument("--env-file", action="append", default=[], help="compose's --env-file, repeatable")
    parser.add_argument("--seconds", type=int, default=60, help="seconds measured [60]")
    parser.add_argument("--settle", type=int, default=30, help="seconds after start before measuring [30]")
    args = parser.parse_args()

    compose = Compose(args.env_file)
    compose.down()
    baseline, _ = measure(args.seconds)
    log(f"machine without the deployment: {baseline:.2f} %")
    rows = []
    for interval in args.intervals:
        os.environ["HEALTHCHECK_INTERVAL"] = interval
        compose = Compose(args.env_file)
        try:
            compose.up(1000)
            time.sleep(args.settle)
            machine, each = measure(args.seconds)
        finally:
            compose.down()
        log(f"HEALTHCHECK_INTERVAL={interval}: machine {machine:.2f} %, " + ", ".join(f"{n} {v:.2f} %" for n, v in sorted(each.items())))
        rows.append((interval, machine, each))
    names = sorted({n for _, _, each in rows for n in each})
    print(f"\n{args.seconds} s idle, % of one core; the machine alone, without the deployment: {baseline:.2f} %\n")
    print("| HEALTHCHECK_INTERVAL | machine | " + " | ".join(names) + " | containers together |")
    print("|---" * (len(names) + 3) + "|")
    for interval, machine, each in rows:
        cells = " | ".join(f"{each.get(n, 0):.2f}" for n in names)
        print(f"| {interval} | {machine:.2f} | {cells} | {sum(each.values()):.2f} |")


if __name__ == "__main__":
    main()
