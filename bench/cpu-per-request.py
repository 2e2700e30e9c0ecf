#!/usr/bin/env python3
"""CPU per request of HTTP servers side by side, on keep-alive connections, in one run.

Each target is a server already listening on a loopback port: the service, and the control
servers of bench/controls (a plain Spring Boot JdbcTemplate app and a Vert.x pg-client app).
For every round, each target in turn (the order rotates from round to round, because the
VM's speed drifts within minutes) gets the same closed-loop load: wrk, 2 threads, 16
connections, GET /user/{id} of random seeded ids (bench/get-user.lua). Around each wrk run
the script reads, from /proc, the CPU time of the server process, of the PostgreSQL nodes
(postmaster and every child), of wrk and of the whole machine, and the context switches
of every thread of the server. It prints the median of the rounds, with min-max, per
target, and each target's CPU per request divided by the last target's (put the Vert.x
control last to read the distance to the JVM's fastest server).

With --syscalls, `perf stat` counts the server's system calls and context switches during
each measured window (tracepoint counting in the kernel; it adds a little to sys time).

The machine is calibrated in the same run by bench/calibrate.sh, as bench/load-test.sh does
it: pgbench's built-in point select on both replicas, TPS summed.

  bench/cpu-per-request.py service=8080 spring-jdbc=18090 vertx-pg=18091
  bench/cpu-per-request.py --rounds 5 --seconds 20 --warm-up 90 service=8080 vertx-pg=18091

Needs wrk, pgbench and psql (Debian: apt-get install wrk postgresql-client), and the
seeded ids in .data/user-ids.csv.
"""
import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")


def pid_listening_on(port):
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True).stdout
    match = re.search(r"pid=(\d+)", out)
    if not match:
        sys.exit(f"nothing listens on port {port}")
    return int(match.group(1))


def cpu_seconds(pid):
    """utime and stime of a process (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def context_switches(pid):
    total = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(status) as f:
                for line in f:
                    if "ctxt_switches" in line:
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return total


def postmasters(cluster_dir):
    masters = []
    for pidfile in glob.glob(os.path.join(cluster_dir, "*", "postmaster.pid")):
        with open(pidfile) as f:
            masters.append(int(f.readline()))
    return masters


def postgres_cpu(masters):
    """CPU seconds of the PostgreSQL nodes: each postmaster with its reaped children (the
    pools retire connections, and an ended backend's time moves to its postmaster), plus
    every live child. Children are found anew at each call."""
    total = 0.0
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        pid = int(stat.split("/")[2])
        if pid in masters:
            total += sum(int(x) for x in fields[11:15]) / TICK
        elif int(fields[1]) in masters:
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def machine_seconds():
    """Busy and steal seconds of the whole machine, apart, as the load-test monitor counts them:
    busy is user, nice, system, irq and softirq; steal is time the hypervisor gave to others."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) / TICK, fields[7] / TICK


def calibrate():
    """The machine's speed, by bench/calibrate.sh (as bench/load-test.sh takes it)."""
    out = subprocess.run(["bash", os.path.join(ROOT, "bench", "calibrate.sh")], capture_output=True, text=True,
                         cwd=ROOT)
    if out.returncode != 0:
        sys.exit("calibration failed: " + out.stderr.strip())
    return float(out.stdout)


def wrk(port, seconds):
    out = subprocess.run(["wrk", "-t2", "-c16", f"-d{seconds}s", "-s", os.path.join(ROOT, "bench", "get-user.lua"),
                          f"http://127.0.0.1:{port}"], capture_output=True, text=True, cwd=ROOT).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    errors = re.search(r"non-2xx/3xx (\d+), socket errors (\d+)", out)
    p99 = float(re.search(r"p99 ([\d.]+) ms", out).group(1))
    return requests, int(errors.group(1)) + int(errors.group(2)), p99


def perf_counts(pid, seconds):
    return subprocess.Popen(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter,context-switches", "-p", str(pid),
                             "--", "sleep", str(seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)


def measure(name, port, seconds, pg_pids, syscalls):
    pid = pid_listening_on(port)
    perf = perf_counts(pid, seconds) if syscalls else None
    user0, sys0 = cpu_seconds(pid)
    ctx0, pg0, (machine0, steal0) = context_switches(pid), postgres_cpu(pg_pids), machine_seconds()
    children0 = os.times()
    requests, errors, p99 = wrk(port, seconds)
    children1 = os.times()
    user1, sys1 = cpu_seconds(pid)
    ctx1, pg1, (machine1, steal1) = context_switches(pid), postgres_cpu(pg_pids), machine_seconds()
    per = 1e6 / requests
    row = {
        "target": name,
        "req/s": requests / seconds,
        "errors": errors,
        "p99 ms": p99,
        "server µs/req": (user1 - user0 + sys1 - sys0) * per,
        "user µs": (user1 - user0) * per,
        "sys µs": (sys1 - sys0) * per,
        "ctx sw/req": (ctx1 - ctx0) / requests,
        "postgres µs/req": (pg1 - pg0) * per,
        "wrk µs/req": (children1.children_user + children1.children_system - children0.children_user
                       - children0.children_system) * per,
        "machine µs/req": (machine1 - machine0) * per,
        "steal µs/req": (steal1 - steal0) * per,
    }
    if perf:
        counts = {}
        for line in perf.communicate()[1].splitlines():
            parts = line.split(",")
            if len(parts) > 2 and parts[0].isdigit():
                counts[parts[2]] = int(parts[0])
        row["syscalls/req"] = counts.get("raw_syscalls:sys_enter", 0) / requests
        row["perf ctx/req"] = counts.get("context-switches", 0) / requests
    return row


def spread(values, digits=1):
    """A table cell: the median of the values with their min-max."""
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def rotated(items, round_index):
    """The items in the order of one round: each round starts one further along, because the
    VM's speed drifts within minutes."""
    shift = round_index % len(items)
    return items[shift:] + items[:shift]


def named(arguments):
    """NAME=VALUE arguments as (name, value) pairs."""
    pairs = [argument.partition("=") for argument in arguments]
    for argument, (name, sep, value) in zip(arguments, pairs):
        if not (name and sep and value):
            sys.exit(f"expected NAME=VALUE, got {argument!r}")
    return [(name, value) for name, _, value in pairs]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="+", metavar="NAME=PORT")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15, help="length of each measured wrk run")
    parser.add_argument("--warm-up", type=int, default=60, help="seconds of wrk load per target before measuring")
    parser.add_argument("--syscalls", action="store_true", help="count system calls with perf stat")
    parser.add_argument("--no-calibration", action="store_true")
    args = parser.parse_args()
    for tool in ["wrk", "ss"] + ([] if args.no_calibration else ["pgbench", "psql"]) + (["perf"] if args.syscalls else []):
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing (Debian: apt-get install wrk postgresql-client iproute2 linux-perf)")
    targets = [(name, int(port)) for name, port in named(args.targets)]
    pg_pids = postmasters(os.path.join(ROOT, ".data", "cluster"))
    calibration = None if args.no_calibration else calibrate()
    for name, port in targets:
        if args.warm_up > 0:
            print(f"warming up {name} for {args.warm_up} s", file=sys.stderr)
            wrk(port, args.warm_up)
    rows = {name: [] for name, _ in targets}
    for r in range(args.rounds):
        for name, port in rotated(targets, r):
            row = measure(name, port, args.seconds, pg_pids, args.syscalls)
            rows[name].append(row)
            print(f"round {r + 1} " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                                for k, v in row.items()), file=sys.stderr)
    if calibration is not None:
        print(f"calibration: pgbench -S on both replicas {calibration:,.0f} TPS (run before the rounds)")
    print(f"{args.rounds} rounds of {args.seconds} s per target, wrk -t2 -c16 keep-alive; median [min–max]\n")
    keys = [k for k in rows[targets[0][0]][0] if k != "target"]
    print("| target | " + " | ".join(keys) + " | server CPU ÷ last target's |")
    print("|---" * (len(keys) + 2) + "|")
    last = statistics.median(r["server µs/req"] for r in rows[targets[-1][0]])
    for name, _ in targets:
        cells = []
        for k in keys:
            values = [r[k] for r in rows[name]]
            cells.append(spread(values) if k != "errors" else str(sum(values)))
        ratio = statistics.median(r["server µs/req"] for r in rows[name]) / last
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} |")


if __name__ == "__main__":
    main()
