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
import subprocess
import time
from pathlib import Path

from common import Compose, log, machine_cpu


def usage_file(container_id):
    """The file that counts a container's CPU: cgroup v1's cpuacct.usage (ns) or v2's cpu.stat (usage_usec)."""
    for found in Path("/sys/fs/cgroup/cpuacct").glob(f"**/{container_id}/cpuacct.usage"):
        return found
    return next(Path("/sys/fs/cgroup").glob(f"**/*{container_id}*/cpu.stat"))


def cpu_seconds(usage):
    """A container's CPU seconds so far, from its usage_file."""
    if usage.name == "cpuacct.usage":
        return int(usage.read_text()) / 1e9
    return next(int(line.split()[1]) for line in usage.read_text().splitlines() if line.startswith("usage_usec")) / 1e6


def containers():
    out = subprocess.run(["docker", "ps", "--no-trunc", "--filter", f"label=com.docker.compose.project={Compose.NAME}",
                          "--format", "{{.ID}} {{.Label \"com.docker.compose.service\"}}"],
                         capture_output=True, text=True, check=True).stdout
    return dict(reversed(line.split()) for line in out.splitlines())


def measure(seconds):
    """% of one core over `seconds`: the machine and each container of the project."""
    files = {name: usage_file(cid) for name, cid in containers().items()}
    machine, before = machine_cpu()[0], {name: cpu_seconds(f) for name, f in files.items()}
    time.sleep(seconds)
    return ((machine_cpu()[0] - machine) / seconds * 100,
            {name: (cpu_seconds(f) - before[name]) / seconds * 100 for name, f in files.items()})


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
        compose.env["HEALTHCHECK_INTERVAL"] = interval
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
