#!/usr/bin/env python3
"""Capacity: the highest arrival rate a target holds with 0 failed requests and p99 within a bound
(50 ms by default, the service's latency objective, app.admission.objective), found by a stepped run. The target is the service on its embedded cluster (as
bench/load-test.py starts it), the compose deployment (--compose), or a server already listening
(--base-url, e.g. a control of bench/controls). After a calibration and a warm-up, the simulation
(GetUserSimulation: each user does 10 GETs) runs at each rate of --rates in turn, users arriving at
that rate for --window seconds after a --ramp (as the simulations' own runs start: Gatling's JVM is
cold in each step); the service stays up between steps, as it would in production. It stops after two steps in a row that did not hold. A refusal at capacity (503) is a
failed request here: a rate at which the service sheds is past its capacity.

Writes steps.csv (one row per step, the figures of bench/load-test.py) and capacity.md to
target/load-tests/capacity-<label>/ (--out, --label); exits 0 once it has measured, whatever it found.
"""
import argparse
import contextlib
import csv
import shutil
import time
from pathlib import Path

from common import (ROOT, Compose, calibrate, commit, fail, figures, gatling_statistics, log, need, run_gatling,
                    service, service_java, warm_up)

COLUMNS = ["step", "started_utc", "users_per_s", "offered_rps", "requests", "failed", "shed", "unanswered",
           "shed_p99_ms", "ok_rps", "p99_ms", "max_ms", "machine_pct", "service_pct", "gatling_pct", "service_us", "held"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", default="100,150,200,250,300,350,400,450,500",
                        help="users arriving per second at each step, ascending [%(default)s]")
    parser.add_argument("--window", type=int, default=60, help="seconds per step [%(default)s]")
    parser.add_argument("--ramp", type=int, default=10,
                        help="seconds of rising rate at the start of each step: Gatling's own JVM starts cold in each [%(default)s]")
    parser.add_argument("--p99", type=float, default=50,
                        help="the p99 a held step stays within, ms: the service's objective [%(default)s]")
    parser.add_argument("--simulation", default="GetUserSimulation", help="[%(default)s]")
    parser.add_argument("--requests-per-user", type=int, default=10, help="of the simulation [%(default)s]")
    parser.add_argument("--base-url", help="a server already listening (a control); nothing is started")
    parser.add_argument("--compose", action="store_true", help="on docker-compose.yml, as bench/load-test.py --compose")
    parser.add_argument("--env-file", action="append", default=[], help="compose's --env-file, repeatable")
    parser.add_argument("--seed", type=int, default=1_000_000, help="profiles seeded with --compose [%(default)s]")
    parser.add_argument("--warm-up-max", type=int, default=300, help="seconds of warm-up at most [%(default)s]")
    parser.add_argument("--generator-warm-up", type=int, default=20,
                        help="seconds each step's fresh Gatling JVM warms itself on a stub before the service's first "
                             "request (gatling/.../GeneratorWarmUp; 0: none) [%(default)s]")
    parser.add_argument("--label", default="", help="the folder's name: capacity-<label> [service, compose or control]")
    parser.add_argument("--out", type=Path, default=ROOT / "target/load-tests", help="[target/load-tests]")
    args = parser.parse_args()
    rates = [int(r) for r in args.rates.split(",")]
    if rates != sorted(rates) or rates[0] < 1:
        parser.error("--rates must be positive and ascending")
    need("wrk", "psql", *(["docker"] if args.compose else []))
    if not args.compose and not args.base_url and not (ROOT / ".data/user-ids.csv").is_file():
        fail("seed first: ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=1000000", 2)
    label = args.label or ("control" if args.base_url else "compose" if args.compose else "service")
    out = args.out.resolve() / f"capacity-{label}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    compose = Compose(args.env_file) if args.compose else None
    try:
        if compose:
            compose.up(args.seed)
        steps(args, rates, out, compose)
    finally:
        if compose:
            log("compose: down -v")
            compose.down()


def steps(args, rates, out, compose):
    base_url = args.base_url or "http://127.0.0.1:8080"
    ids = ["-DidsFile=" + str(compose.ids_file)] if compose else []
    if compose or args.base_url:
        target = contextlib.nullcontext()
    else:
        target = service(ROOT / "target/capacity-service.log", ["--app.auth.throttle.registrations-per-address=0"])
    rows = []
    with target:
        calibration = compose.calibrate() if compose else calibrate()
        log(f"calibration: pgbench point select {calibration} TPS")
        warm_up(out / "warm-up.txt", args.warm_up_max, compose and compose.ids_file, base_url)
        java = None if args.base_url else service_java()
        misses = 0
        for n, rate in enumerate(rates, 1):
            log(f"step {n}: {rate} users/s for {args.window} s")
            started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            step_out, gatling_log = out / f"step-{n}", ROOT / "target" / f"capacity-step-{n}-gatling.log"
            step_out.mkdir()
            with open(gatling_log, "w") as output:
                _, run = run_gatling(args.simulation, [
                    f"-Dusers={round(rate * (args.window - args.ramp / 2))}", f"-Dwindow={args.window}", f"-Dramp={args.ramp}",
                    f"-DbaseUrl={base_url}", f"-DgeneratorWarmUp={args.generator_warm_up}",
                    "-DmaxFailed=100", "-Dp99=60000", *ids], output)
            if run is None:
                fail(f"Gatling left no run directory (log {gatling_log})")
            for f in run.glob("*-summary.txt"):
                shutil.copy(f, step_out)
            (step_out / "gatling-statistics.txt").write_text(gatling_statistics(gatling_log))
            (step_out / "assertions.txt").write_text("")
            row = figures(step_out)
            held = row["failed"] == 0 and row["p99_ms"] is not None and row["p99_ms"] <= args.p99
            rows.append(dict(row, step=n, started_utc=started, users_per_s=rate,
                             offered_rps=rate * args.requests_per_user, held="yes" if held else "no"))
            log(f"step {n}: {row['requests']} requests, {row['failed']} failed ({row['shed']} shed), "
                f"p99 {row['p99_ms']} ms, machine {row['machine_pct']} %: {'held' if held else 'NOT held'}")
            misses = 0 if held else misses + 1
            if misses == 2:
                break
    with (out / "steps.csv").open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows([["" if r.get(c) is None else r[c] for c in COLUMNS] for r in rows])
    held = [r for r in rows if r["held"] == "yes"]
    capacity = max((r["offered_rps"] for r in held), default=None)
    lines = [f"# Capacity of {base_url}{' (compose)' if compose else ''}", "",
             f"Commit {commit()}; service on Java {java or 'n/a (a server already listening)'}; calibration "
             f"{calibration} TPS (pgbench point select); {args.simulation}, {args.window} s per step "
             f"(the first {args.ramp} s rising to the rate), "
             f"held = 0 failed and p99 of successful requests <= {args.p99:g} ms.", "",
             "| step | users/s | offered req/s | successful req/s | failed | of which shed | of which unanswered | "
             "p99 of shed ms | p99 ms | max ms | machine % | service % | Gatling % | service µs/request | held |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['step']} | {r['users_per_s']} | {r['offered_rps']} | {r['ok_rps']} | {r['failed']} | "
                     f"{r['shed']} | {r['unanswered']} | {r['shed_p99_ms']} | {r['p99_ms']} | {r['max_ms']} | {r['machine_pct']} | {r['service_pct']} | "
                     f"{r['gatling_pct']} | {r['service_us']} | {r['held']} |")
    lines += ["", f"**Capacity: {capacity:,} requests/s**" if capacity else "**No step held.**"]
    (out / "capacity.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
