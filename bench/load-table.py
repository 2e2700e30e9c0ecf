#!/usr/bin/env python3
"""The README's load table, remade: its runs in sequence, one at a time, and its rows written.

For each target of --targets, in this order:
- local: the service on its embedded cluster in .data/ (seeded with 1,000,000 users first):
  bench/capacity.py; bench/first-minute.py (250,000 users started the moment a fresh service
  reports ready); bench/load-test.py GetUserSimulation:500000;
- control: the plain Spring Boot JdbcTemplate control of bench/controls on the same replicas (the
  service runs beside it, idle, for its cluster): bench/capacity.py --base-url, then bench/load-test.py
  --base-url at 250,000 and 500,000 users;
- compose: docker-compose.yml (bench/capacity.py --compose, bench/load-test.py --compose at 250,000 and
  500,000 users), with --env-file (docker/local-images.env where no registry is reachable).
--runs is the runs of each 250,000- and 500,000-user profile; --parts runs some of the three (capacity,
250k, 500k) only, into the same --out, where the cells of the others are kept. Each tool's own output goes
under --out; table.md there holds the rows (medians with min-max where there are several runs) from what
the folders hold, and the folders they come from. Roughly 40 minutes per target with one run each, 80
with three.
"""
import argparse
import csv
import re
import subprocess
import sys
from pathlib import Path

from common import ROOT, commit, fail, log, median, service

CONTROL_URL = "http://127.0.0.1:18090"


def run(tool, *args):
    command = [sys.executable, str(ROOT / "bench" / tool), *args]
    log(" ".join(command[1:]))
    status = subprocess.run(command, cwd=ROOT).returncode
    log(f"{tool} exited {status}")
    return status


def capacity(folder):
    text = (folder / "capacity.md").read_text() if (folder / "capacity.md").is_file() else ""
    m = re.search(r"\*\*Capacity: ([\d,]+) requests/s\*\*", text)
    return f"{m.group(1)} requests/s" if m else "no step held" if text else "not run"


def cell(values, unit=""):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    fmt = lambda v: f"{v:,.0f}" if abs(v) >= 100 else f"{v:g}"
    if len(values) == 1:
        return fmt(values[0]) + unit
    return f"{fmt(median(values))}{unit} [{fmt(min(values))}–{fmt(max(values))}]"


def rows_of(folder):
    """The rows of a tool's runs.csv in folder, or None when it did not run."""
    runs_csv = folder / "runs.csv"
    if not runs_csv.is_file():
        return None
    with runs_csv.open() as f:
        return list(csv.DictReader(f))


def profile(folder):
    """A cell from bench/load-test.py's runs.csv: requests, failed (of which 503), generator's own, p99s, CPU."""
    if (rows := rows_of(folder)) is None:
        return "not run"
    num = lambda row, key: float(row[key]) if row.get(key) else None
    col = lambda key: [num(r, key) for r in rows]
    return (f"{len(rows)} run{'s' if len(rows) > 1 else ''}: {cell(col('requests'))} requests, {cell(col('shed'))} refused "
            f"(503, p99 {cell(col('shed_p99_ms'), ' ms')}), {cell(col('other_failed'))} failed otherwise; "
            f"{cell(col('ok_rps'))} served/s at p99 {cell(col('p99_ms'), ' ms')}; machine {cell(col('machine_pct'), ' %')}")


def first_minute(folder):
    """A cell from bench/first-minute.py's runs.csv: requests, refusals, p99 after and in the first minute."""
    if (rows := rows_of(folder)) is None:
        return "not run"
    by = lambda phase, key: [float(r[key]) for r in rows if r["phase"] == phase and r.get(key)]
    requests = [a + b for a, b in zip(by("first", "requests"), by("after", "requests"))]
    shed = [a + b for a, b in zip(by("first", "shed"), by("after", "shed"))]
    return (f"{len(requests)} run{'s' if len(requests) > 1 else ''}: {cell(requests)} requests, {cell(shed)} refused; "
            f"p99 {cell(by('after', 'p99_ok_ms'), ' ms')} (first minute {cell(by('first', 'p99_ok_ms'), ' ms')}); "
            f"refused a second {cell(by('after', 'shed_per_s'))} (first minute {cell(by('first', 'shed_per_s'))})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", default="local,control,compose", help="[%(default)s]")
    parser.add_argument("--runs", type=int, default=1, help="runs of each 250,000- and 500,000-user profile [%(default)s]")
    parser.add_argument("--rates", default="400,500,600,650,700,750,800,850,900,950,1000",
                        help="bench/capacity.py's steps, users per second [%(default)s]")
    parser.add_argument("--parts", default="capacity,250k,500k", help="[%(default)s]")
    parser.add_argument("--env-file", action="append", default=[], help="compose's --env-file, repeatable")
    parser.add_argument("--out", type=Path, default=ROOT / "target/load-table", help="[%(default)s]")
    args = parser.parse_args()
    targets = args.targets.split(",")
    if unknown := set(targets) - {"local", "control", "compose"}:
        parser.error(f"unknown targets: {', '.join(sorted(unknown))}")
    parts = args.parts.split(",")
    if unknown := set(parts) - {"capacity", "250k", "500k"}:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    profiles = [f"GetUserSimulation:{users}" for users, part in ((250000, "250k"), (500000, "500k")) if part in parts]
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    runs = ["--runs", str(args.runs), "--out", str(out)]
    env_files = [a for f in args.env_file for a in ("--env-file", f)]
    if not (ROOT / ".data/user-ids.csv").is_file():
        fail("seed first: ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=1000000", 2)
    if "local" in targets:
        if "capacity" in parts:
            run("capacity.py", "--rates", args.rates, "--label", "service", "--out", str(out))
        if "250k" in parts:
            run("first-minute.py", "--runs", str(args.runs), "--out", str(out / "first-minute"))
        if "500k" in parts:
            run("load-test.py", *runs, "GetUserSimulation:500000")
    if "control" in targets:
        # The control reads the replicas of the service's cluster: the service runs for them, idle.
        with service(out / "control-cluster-service.log", []):
            pid = subprocess.run([sys.executable, str(ROOT / "bench/controls/run-control.py"), "spring-jdbc"],
                                 cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
            try:
                if "capacity" in parts:
                    run("capacity.py", "--rates", args.rates, "--base-url", CONTROL_URL, "--label", "control",
                        "--out", str(out))
                if profiles:
                    run("load-test.py", *runs, "--base-url", CONTROL_URL, *profiles)
            finally:
                subprocess.run(["kill", pid])
    if "compose" in targets:
        if "capacity" in parts:
            run("capacity.py", "--compose", *env_files, "--label", "compose", "--rates", args.rates, "--out", str(out))
        if profiles:
            run("load-test.py", *runs, "--compose", *env_files, *profiles)
    table = [f"# The README's load table, remade at {commit()}", "",
             "| what | local | Docker Compose | plain Spring Boot control |", "|---|---|---|---|",
             f"| capacity (`bench/capacity.py`) | {capacity(out / 'capacity-service')} | {capacity(out / 'capacity-compose')} | "
             f"{capacity(out / 'capacity-control')} |",
             f"| 250,000 users | started at ready: {first_minute(out / 'first-minute')} | "
             f"{profile(out / 'compose-getusersimulation-250000')} | {profile(out / 'getusersimulation-250000-control')} |",
             f"| 500,000 users | {profile(out / 'getusersimulation-500000')} | {profile(out / 'compose-getusersimulation-500000')} | "
             f"{profile(out / 'getusersimulation-500000-control')} |", "",
             f"Folders under {out}: capacity-<target>/, first-minute/, [compose-]getusersimulation-<users>[-control]/."]
    (out / "table.md").write_text("\n".join(table) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
