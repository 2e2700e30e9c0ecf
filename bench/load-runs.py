#!/usr/bin/env python3
"""The per-run table and the medians of bench/load-test.sh.

  load-runs.py header                      the CSV header
  load-runs.py row RUN_DIR N STARTED COMMIT JAVA CALIBRATION EXIT
                                           one CSV line from a run's copied summary
  load-runs.py medians RUNS_CSV NAME       a Markdown table: median [min-max] of each figure

A run's figures come from the summary the simulation printed (its own recorder and CPU
sampler) and from Gatling's assertion lines; nothing is computed that the run did not
measure, except sums (both replicas) and the medians.
"""
import csv
import re
import statistics
import sys
from pathlib import Path

COLUMNS = [
    "run", "started_utc", "commit", "java", "calibration_tps", "requests", "failed", "failed_percent",
    "p50_ms", "p95_ms", "p99_ms", "gatling_p99_ms", "max_ms",
    "machine_pct", "steal_pct", "service_pct", "replicas_pct", "gatling_pct",
    "machine_us", "service_us", "replicas_us", "gatling_us", "assertions_passed",
]

# What medians.md shows, in that order, with its heading.
MEDIAN_ROWS = [
    ("calibration_tps", "calibration: pgbench point select, TPS"),
    ("failed", "failed requests"),
    ("p95_ms", "p95, ms"),
    ("p99_ms", "p99, ms (simulation summary)"),
    ("gatling_p99_ms", "p99, ms (Gatling's assertion)"),
    ("max_ms", "max, ms"),
    ("machine_pct", "machine CPU, avg % of one core (of 200)"),
    ("steal_pct", "steal, avg %"),
    ("service_pct", "service JVM, avg %"),
    ("replicas_pct", "both replicas, avg %"),
    ("gatling_pct", "Gatling JVM, avg %"),
    ("machine_us", "machine, CPU µs per request"),
    ("service_us", "service, CPU µs per request"),
    ("replicas_us", "replicas, CPU µs per request"),
    ("gatling_us", "Gatling, CPU µs per request"),
]


def fail(message):
    sys.exit(f"load-runs.py: {message}")


def number(text):
    return float(text) if text not in ("", "-", None) else None


def parse_run(run_dir):
    summaries = list(Path(run_dir).glob("*-summary.txt"))
    if len(summaries) != 1:
        fail(f"expected one *-summary.txt in {run_dir}, found {len(summaries)}")
    text = summaries[0].read_text()
    figures = {}
    totals = [0, 0]
    worst = {"p50_ms": 0, "p95_ms": 0, "p99_ms": 0, "max_ms": 0}
    for line in text.splitlines():
        # request, requests, failed, failed%, avg, p50, p95, p99, max
        m = re.match(r"^(\S.*?)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", line)
        if m and not line.startswith(("request ", "series ")):
            totals[0] += int(m.group(2))
            totals[1] += int(m.group(3))
            for key, group in (("p50_ms", 6), ("p95_ms", 7), ("p99_ms", 8), ("max_ms", 9)):
                worst[key] = max(worst[key], int(m.group(group)))
    if totals[0] == 0:
        fail(f"no request line in {summaries[0]}")
    figures["requests"], figures["failed"] = totals
    figures["failed_percent"] = round(100 * totals[1] / totals[0], 3)
    figures.update(worst)
    averages, per_request = {}, {}
    for line in text.splitlines():
        m = re.match(r"^(machine|steal|service|primary|replica1|replica2|gatling)\s+.*?\s([\d.]+|-)\s+([\d.]+|-)\s*$", line)
        if m:
            averages[m.group(1)] = number(m.group(2))
        m = re.match(r"^(machine|steal|service|primary|replica1|replica2|gatling)\s+([\d.]+) us$", line)
        if m:
            per_request[m.group(1)] = float(m.group(2))
    for series in ("machine", "steal", "service", "gatling"):
        figures[f"{series}_pct"] = averages.get(series)
    replicas = [averages.get("replica1"), averages.get("replica2")]
    figures["replicas_pct"] = round(sum(replicas), 1) if None not in replicas else None
    for series in ("machine", "service", "gatling"):
        figures[f"{series}_us"] = per_request.get(series)
    replicas_us = [per_request.get("replica1"), per_request.get("replica2")]
    figures["replicas_us"] = round(sum(replicas_us), 1) if None not in replicas_us else None
    assertions = (Path(run_dir) / "assertions.txt").read_text() if (Path(run_dir) / "assertions.txt").exists() else ""
    m = re.search(r"99th percentile.*?\(actual : ([\d.]+)\)", assertions)
    figures["gatling_p99_ms"] = number(m.group(1)) if m else None
    return figures


def row(args):
    if len(args) != 7:
        fail("row RUN_DIR N STARTED COMMIT JAVA CALIBRATION EXIT")
    run_dir, n, started, commit, java, calibration, exit_status = args
    figures = parse_run(run_dir)
    figures.update(run=n, started_utc=started, commit=commit, java=java, calibration_tps=calibration,
                   assertions_passed="yes" if exit_status == "0" else "no")
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["" if figures.get(c) is None else figures[c] for c in COLUMNS])


def fmt(value):
    if value is None:
        return "-"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value != int(value) else f"{int(value)}"


def medians(args):
    if len(args) != 2:
        fail("medians RUNS_CSV NAME")
    with open(args[0], newline="") as f:
        runs = list(csv.DictReader(f))
    if not runs:
        fail(f"no runs in {args[0]}")
    out = [f"# {args[1]}: {len(runs)} runs", ""]
    commits = sorted({r["commit"] for r in runs})
    javas = sorted({r["java"] for r in runs})
    out.append(f"Commit {', '.join(commits)}; service on Java {', '.join(javas)}; "
               f"runs started {runs[0]['started_utc']} to {runs[-1]['started_utc']}; "
               f"assertions passed in {sum(r['assertions_passed'] == 'yes' for r in runs)} of {len(runs)}.")
    out.append("")
    out.append("| figure | median | min–max | " + " | ".join(f"run {r['run']}" for r in runs) + " |")
    out.append("|---|---|---|" + "---|" * len(runs))
    for key, heading in MEDIAN_ROWS:
        values = [number(r[key]) for r in runs]
        present = [v for v in values if v is not None]
        if not present:
            continue
        med = statistics.median(present)
        out.append(f"| {heading} | **{fmt(med)}** | {fmt(min(present))}–{fmt(max(present))} | "
                   + " | ".join(fmt(v) for v in values) + " |")
    print("\n".join(out))


def main():
    if len(sys.argv) < 2:
        fail("header | row ... | medians ...")
    command, args = sys.argv[1], sys.argv[2:]
    if command == "header":
        print(",".join(COLUMNS))
    elif command == "row":
        row(args)
    elif command == "medians":
        medians(args)
    else:
        fail(f"unknown command {command}")


if __name__ == "__main__":
    main()
