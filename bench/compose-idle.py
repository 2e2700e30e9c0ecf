#!/usr/bin/env python3
"""What the compose deployment costs while it serves nothing: the machine's CPU and each container's
(its cgroup's counter, v1 or v2), at each healthcheck interval given, read by the simulations' CPU
monitor (common.CpuCounters; build first: ./mvnw test-compile).

For each interval it brings docker-compose.yml up under bench/load-test.py's project with
HEALTHCHECK_INTERVAL set, seeds 1,000 users, lets it settle, measures for --seconds and takes it down.
The machine's own idle is measured first, with no container of the project running. Prints a
Markdown table; the figures are % of one core.

    python3 bench/compose-idle.py --env-file docker/local-images.env 5s 30s
"""
import argparse
import time

from common import Compose, CpuCounters, log


def measure(counters, seconds):
    """% of one core over `seconds`: the machine and each container of the project, which the first
    reading asks docker for before it reads the counters."""
    before = counters.read("discover")
    time.sleep(seconds)
    after = counters.read()
    return ((after["machine"] - before["machine"]) / seconds * 100,
            {name: (after["containers"][name] - before["containers"].get(name, 0)) / seconds * 100
             for name in after["containers"] if name in before["containers"]})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("intervals", nargs="+", help="HEALTHCHECK_INTERVAL values, e.g. 5s 30s")
    parser.add_argument("--env-file", action="append", default=[], help="compose's --env-file, repeatable")
    parser.add_argument("--seconds", type=int, default=60, help="seconds measured [60]")
    parser.add_argument("--settle", type=int, default=30, help="seconds after start before measuring [30]")
    args = parser.parse_args()

    compose = Compose(args.env_file)
    compose.down()
    counters = CpuCounters(project=Compose.NAME)
    baseline, _ = measure(counters, args.seconds)
    log(f"machine without the deployment: {baseline:.2f} %")
    rows = []
    for interval in args.intervals:
        compose.env["HEALTHCHECK_INTERVAL"] = interval
        try:
            compose.up(1000)
            time.sleep(args.settle)
            machine, each = measure(counters, args.seconds)
        finally:
            compose.down()
        log(f"HEALTHCHECK_INTERVAL={interval}: machine {machine:.2f} %, " + ", ".join(f"{n} {v:.2f} %" for n, v in sorted(each.items())))
        rows.append((interval, machine, each))
    counters.close()
    names = sorted({n for _, _, each in rows for n in each})
    print(f"\n{args.seconds} s idle, % of one core; the machine alone, without the deployment: {baseline:.2f} %\n")
    print("| HEALTHCHECK_INTERVAL | machine | " + " | ".join(names) + " | containers together |")
    print("|---" * (len(names) + 3) + "|")
    for interval, machine, each in rows:
        cells = " | ".join(f"{each.get(n, 0):.2f}" for n in names)
        print(f"| {interval} | {machine:.2f} | {cells} | {sum(each.values()):.2f} |")


if __name__ == "__main__":
    main()
