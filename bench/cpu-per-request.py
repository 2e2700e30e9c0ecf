#!/usr/bin/env python3
"""CPU per request of HTTP servers side by side, on keep-alive connections, in one run.

Each target is a server already listening on a loopback port: the service, and the controls of
bench/controls; NAME=PORT@IDS_FILE gives a target ids of its own (the compose deployment's, say:
target/compose-load/data/user-ids.csv), the others read .data/user-ids.csv or $IDS_FILE. Each round
gives each target in turn (the order rotates: the VM's speed drifts within minutes) the same
closed-loop load: wrk, 2 threads, 16 connections, GET /user/{id} of random seeded ids. Around each
run it reads the CPU time of the server, of the PostgreSQL nodes and of the machine, and the server
threads' context switches, from the simulations' CPU monitor (common.CpuCounters; build first:
./mvnw test-compile), and wrk's from its own exit; it prints per target the median [min-max] of the
rounds and the server's CPU per request, and its user CPU alone, divided by the last target's: the ratio of the medians,
and the median [min-max] of the ratios within each round (put the control to compare with
last). --syscalls adds `perf stat`'s count of the server's system calls (it adds a little sys
time). The machine is calibrated in the same run, as bench/load-test.py does it.
"""
import argparse
import os
import re
import subprocess
import sys

from common import ROOT, CpuCounters, calibrate, listening_pid, median, need, spread, wrk

def measure(port, seconds, counters, syscalls, ids=None):
    pid = listening_pid(port)
    perf = subprocess.Popen(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter,context-switches", "-p", str(pid),
                             "--", "sleep", str(seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True) if syscalls else None
    before, wrk_before = counters.read(pid), os.times()
    run = wrk(f"http://127.0.0.1:{port}", seconds, env=ids and {"IDS_FILE": ids})
    after, wrk_after = counters.read(pid), os.times()
    server = lambda reading, key: reading["processes"][str(pid)][key]
    us = lambda seconds: seconds * 1e6 / run["requests"]
    user = us(server(after, "user") - server(before, "user"))
    system = us(server(after, "system") - server(before, "system"))
    row = {"req/s": run["requests"] / seconds, "errors": run["errors"], "p99 ms": run["p99_ms"],
           "server µs/req": user + system, "user µs": user, "sys µs": system,
           "ctx sw/req": (server(after, "switches") - server(before, "switches")) / run["requests"],
           "postgres µs/req": us(sum(after["postgres"].values()) - sum(before["postgres"].values())),
           "wrk µs/req": us(wrk_after.children_user + wrk_after.children_system
                            - wrk_before.children_user - wrk_before.children_system),
           "machine µs/req": us(after["machine"] - before["machine"]), "steal µs/req": us(after["steal"] - before["steal"])}
    if perf:
        counts = {p[2]: int(p[0]) for p in (line.split(",") for line in perf.communicate()[1].splitlines())
                  if len(p) > 2 and p[0].isdigit()}
        row["syscalls/req"] = counts.get("raw_syscalls:sys_enter", 0) / run["requests"]
        row["perf ctx/req"] = counts.get("context-switches", 0) / run["requests"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="+", metavar="NAME=PORT[@IDS_FILE]")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15, help="length of each measured wrk run")
    parser.add_argument("--warm-up", type=int, default=60, help="seconds of wrk load per target before measuring")
    parser.add_argument("--syscalls", action="store_true", help="count system calls with perf stat")
    parser.add_argument("--no-calibration", action="store_true")
    args = parser.parse_args()
    if not all(re.fullmatch(r"[^=]+=\d+(@.+)?", t) for t in args.targets):
        parser.error("targets are NAME=PORT[@IDS_FILE]")
    need("wrk", "ss", *([] if args.no_calibration else ["psql"]), *(["perf"] if args.syscalls else []))
    targets = [(name, int(port), ids or None) for name, port, _, ids in
               (re.fullmatch(r"([^=]+)=(\d+)(@(.+))?", t).groups() for t in args.targets)]
    counters = CpuCounters(cluster=ROOT / ".data/cluster")
    calibration = None if args.no_calibration else calibrate()
    for name, port, ids in targets:
        if args.warm_up > 0:
            print(f"warming up {name} for {args.warm_up} s", file=sys.stderr)
            wrk(f"http://127.0.0.1:{port}", args.warm_up, env=ids and {"IDS_FILE": ids})
    rows = {name: [] for name, _, _ in targets}
    for r in range(args.rounds):
        for name, port, ids in targets[r % len(targets):] + targets[:r % len(targets)]:
            rows[name].append(measure(port, args.seconds, counters, args.syscalls, ids))
            print(f"round {r + 1} target {name}, " + ", ".join(f"{k} {v:.1f}" for k, v in rows[name][-1].items()),
                  file=sys.stderr)
    counters.close()
    if calibration is not None:
        print(f"calibration: pgbench -S on both replicas {calibration:,.0f} TPS (run before the rounds)")
    print(f"{args.rounds} rounds of {args.seconds} s per target, wrk -t2 -c16 keep-alive; median [min–max]\n")
    keys = list(rows[targets[0][0]][0])
    print("| target | " + " | ".join(keys) + " | server CPU ÷ last target's | the same, round by round "
          "| user CPU ÷ last target's | the same, round by round |")
    print("|---" * (len(keys) + 5) + "|")
    for name, _, _ in targets:
        cells = [spread([r[k] for r in rows[name]]) if k != "errors" else str(sum(r[k] for r in rows[name])) for k in keys]
        ratios = []
        # The user CPU alone as well: where system calls are dear, the kernel's share of both
        # servers can hide a difference in their own code.
        for key in ("server µs/req", "user µs"):
            own, reference = [r[key] for r in rows[name]], [r[key] for r in rows[targets[-1][0]]]
            # Within a round the two were measured minutes apart at most, often back to back: the
            # ratio of each round's pair moves less with the machine's speed than the medians do.
            paired = spread([mine / theirs for mine, theirs in zip(own, reference)], digits=2)
            ratios += [f"{median(own) / median(reference):.2f}", paired]
        print(f"| {name} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
