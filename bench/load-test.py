#!/usr/bin/env python3
"""Regenerates docs/load-tests/, which the load-test report cites. Each profile, --runs times: the
service on its embedded cluster in .data/ (seeded with 1,000,000 users), the machine's calibration,
a wrk warm-up until throughput levels off, the Gatling simulation. With --compose, the same on
docker-compose.yml instead: brought up from empty volumes under a project of its own, seeded with
--seed users by the documented command, the service's container restarted before each run (a fresh
JVM, as each local run has), taken down with its volumes at the end; results under
docs/load-tests/compose-<simulation>-<users>[-<label>]/ (a profile's service arguments do not apply).
Each run's Gatling statistics, CPU summary and CPU files go to docs/load-tests/<simulation>-<users>[-<label>]/run-<n>/, one line per run to runs.csv
there and the median [min-max] of every figure to medians.md; failed runs are kept. A profile is
SIMULATION:USERS[:LABEL[:SERVICE_ARGUMENT...]], e.g. GetUserSimulation:250000:primary-only:--app.db.read-from-replicas=false.
The registration-flood limit is off (the simulations register thousands of users from 16 loopback
addresses; none logs in). Exits non-zero if any run failed its assertions.
"""
import argparse
import contextlib
import csv
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, Compose, calibrate, commit, fail, log, median, need, run_gatling, service, service_java, wrk

DEFAULT_PROFILES = ["GetUserSimulation:250000", "GetUserSimulation:500000",
                    "GetUserSimulation:250000:primary-only:--app.db.read-from-replicas=false",
                    "SearchUserSimulation:25000", "RegisterUserSimulation:6000",
                    "MixedSimulation:250000", "MixedSimulation:500000"]
COLUMNS = ["run", "started_utc", "commit", "java", "calibration_tps", "requests", "failed", "failed_percent",
           "p50_ms", "p95_ms", "p99_ms", "gatling_p99_ms", "max_ms", "machine_pct", "steal_pct", "service_pct",
           "replicas_pct", "gatling_pct", "machine_us", "service_us", "replicas_us", "gatling_us", "assertions_passed"]
MEDIAN_ROWS = [("calibration_tps", "calibration: pgbench point select, TPS"), ("failed", "failed requests"),
               ("p95_ms", "p95 of successful requests, ms"),
               ("p99_ms", "p99 of successful requests, ms"), ("gatling_p99_ms", "p99 of all requests, ms (Gatling's assertion)"),
               ("max_ms", "max of successful requests, ms"),
               ("machine_pct", "machine CPU, avg % of one core (of 200)"), ("steal_pct", "steal, avg %"),
               ("service_pct", "service JVM, avg %"), ("replicas_pct", "both replicas, avg %"),
               ("gatling_pct", "Gatling JVM, avg %"), ("machine_us", "machine, CPU µs per request"),
               ("service_us", "service, CPU µs per request"), ("replicas_us", "replicas, CPU µs per request"),
               ("gatling_us", "Gatling, CPU µs per request")]
# The simulation's CPU series; on the compose deployment the service's is its container's, "app".
SERIES = "machine|steal|service|app|primary|replica1|replica2|gatling"


def warm_up(record, limit, ids_file=None):
    """JIT warm-up, not measured: 20 s wrk rounds until, after at least 60 s, one is within 5 % of the
    one before (a drop is no plateau: a fresh JVM dips while C2 recompiles). On a slow machine the
    JIT needed about 3 minutes, and throughput rose from 1,800 to 6,700 req/s meanwhile."""
    previous, elapsed, lines = 0, 0, []
    while elapsed < limit:
        rps = round(wrk("http://127.0.0.1:8080", 20, env={"IDS_FILE": str(ids_file)} if ids_file else None)["rps"])
        elapsed += 20
        lines.append(f"warm-up {elapsed}s: {rps} req/s")
        log(lines[-1])
        if elapsed >= 60 and previous and 0.95 * previous <= rps <= 1.05 * previous:
            lines.append(f"warm-up: plateau after {elapsed}s")
            break
        previous = rps
    else:
        lines.append(f"warm-up: no plateau within {elapsed}s, measuring anyway")
    record.write_text("\n".join(lines) + "\n")


def gatling_statistics(gatling_log):
    """Gatling's own global statistics, as it prints them at the end of a run: its "Global
    Information" block, whose rows have a Total, an OK and a KO column."""
    lines = Path(gatling_log).read_text().splitlines()
    start = max((i for i, line in enumerate(lines) if line.startswith("---- Global Information")), default=None)
    if start is None:
        fail(f"no global statistics in {gatling_log}")
    block = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith(">"):
            break
        block.append(line)
    return "\n".join(block) + "\n"


def figures(run_dir):
    """One runs.csv row from Gatling's statistics (requests, failed, latency of the successful
    requests), the simulation's CPU summary (CPU seconds per series, divided here by Gatling's
    request count) and Gatling's assertion lines: nothing the run did not measure, except sums over
    both replicas."""
    row = {}
    # Gatling prints "-" for a column without requests.
    number = lambda text: None if text == "-" else float(text.replace(",", ""))
    for line in (run_dir / "gatling-statistics.txt").read_text().splitlines():
        if m := re.match(r"^> (.+?)\s+\|\s*([\d,.-]+)\s*\|\s*([\d,.-]+)\s*\|\s*([\d,.-]+)\s*$", line):
            name, total, ok, ko = m.groups()
            if name == "request count":
                row["requests"], row["failed"] = int(number(total) or 0), int(number(ko) or 0)
            for key, label in (("p50_ms", "50th"), ("p95_ms", "95th"), ("p99_ms", "99th")):
                if name.startswith(f"response time {label} percentile"):
                    row[key] = number(ok)
            if name.startswith("max response time"):
                row["max_ms"] = number(ok)
    if not row.get("requests"):
        fail(f"no request count in Gatling's statistics of {run_dir}")
    row["failed_percent"] = round(100 * row["failed"] / row["requests"], 3)
    averages, seconds = {}, {}
    for line in next(run_dir.glob("*-summary.txt")).read_text().splitlines():
        if m := re.match(rf"^({SERIES})\s+.*?\s([\d.]+|-)\s+([\d.]+|-)\s+([\d.]+|-)\s*$", line):
            averages[m.group(1)] = None if m.group(2) == "-" else float(m.group(2))
            seconds[m.group(1)] = None if m.group(4) == "-" else float(m.group(4))
    per_request = {k: None if v is None else round(v * 1e6 / row["requests"], 1) for k, v in seconds.items()}
    for figures_of in (averages, per_request):
        if "app" in figures_of:
            figures_of["service"] = figures_of.pop("app")
    both = lambda d: None if None in (d.get("replica1"), d.get("replica2")) else round(d["replica1"] + d["replica2"], 1)
    row.update({f"{k}_pct": averages.get(k) for k in ("machine", "steal", "service", "gatling")},
               replicas_pct=both(averages), replicas_us=both(per_request),
               **{f"{k}_us": per_request.get(k) for k in ("machine", "service", "gatling")})
    m = re.search(r"99th percentile.*?\(actual : ([\d.]+)\)", (run_dir / "assertions.txt").read_text())
    row["gatling_p99_ms"] = float(m.group(1)) if m else None
    return row


def fmt(value):
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.1f}" if value != int(value) else f"{int(value)}"


def medians(runs, name):
    out = [f"# {name}: {len(runs)} runs", "",
           f"Commit {', '.join(sorted({r['commit'] for r in runs}))}; service on Java "
           f"{', '.join(sorted({r['java'] for r in runs}))}; runs started {runs[0]['started_utc']} to "
           f"{runs[-1]['started_utc']}; assertions passed in {sum(r['assertions_passed'] == 'yes' for r in runs)} "
           f"of {len(runs)}.", "",
           "| figure | median | min–max | " + " | ".join(f"run {r['run']}" for r in runs) + " |",
           "|---|---|---|" + "---|" * len(runs)]
    for key, heading in MEDIAN_ROWS:
        values = [r[key] for r in runs]
        if present := [v for v in values if v is not None]:
            out.append(f"| {heading} | **{fmt(median(present))}** | {fmt(min(present))}–{fmt(max(present))} | "
                       + " | ".join(fmt(v) for v in values) + " |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profiles", nargs="*", default=DEFAULT_PROFILES, metavar="PROFILE")
    parser.add_argument("--runs", type=int, default=3, help="runs per profile [%(default)s]")
    parser.add_argument("--service-java", default="java", help="the java that runs the service [%(default)s]")
    parser.add_argument("--gatling-java-home", help="the JDK that runs Gatling [JAVA_HOME]")
    parser.add_argument("--gatling-opts", default="", help='more -D options, e.g. "-Dwindow=60 -Dramp=0" for a trial')
    parser.add_argument("--warm-up-max", type=int, default=300, help="seconds of warm-up at most [%(default)s]")
    parser.add_argument("--compose", action="store_true", help="run on docker-compose.yml instead (see above)")
    parser.add_argument("--env-file", action="append", default=[],
                        help="compose's --env-file, repeatable: docker/local-images.env for the stand-in images")
    parser.add_argument("--seed", type=int, default=1_000_000, help="profiles seeded with --compose [%(default)s]")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/load-tests",
                        help="where each profile's folder goes [docs/load-tests]; CI's short runs use target/")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be positive")
    need("wrk", "psql", *(["docker"] if args.compose else []))
    if not args.compose and not (ROOT / ".data/user-ids.csv").is_file():
        fail("seed first: ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=1000000", 2)
    if subprocess.run(["./mvnw", "-B", "-ntp", "-q", "package", "-DskipTests", "-Dspring-javaformat.validate.skip=true"],
                      cwd=ROOT).returncode:
        fail("the build failed", 2)
    compose = Compose(args.env_file) if args.compose else None
    try:
        if compose:
            compose.up(args.seed)
        failed = run_profiles(args, compose)
    finally:
        if compose:
            log("compose: down -v")
            compose.down()
    sys.exit(1 if failed else 0)


def run_profiles(args, compose):
    """Every profile --runs times; whether any run failed its assertions."""
    failed = False
    ids = ["-DidsFile=" + str(compose.ids_file)] if compose else []
    for profile in args.profiles:
        simulation, users, label, service_args = (profile.split(":", 3) + ["", ""])[:4]
        name = ("compose-" if compose else "") + f"{simulation.lower()}-{users}" + (f"-{label}" if label else "")
        out = args.out.resolve() / name
        shutil.rmtree(out, ignore_errors=True)
        rows = []
        for n in range(1, args.runs + 1):
            log(f"{name}, run {n} of {args.runs} (service arguments: {service_args or 'none'})")
            run_out, logs = out / f"run-{n}", ROOT / "target" / f"{name}-run-{n}"
            run_out.mkdir(parents=True)
            if compose:
                compose.restart_service()
                target = contextlib.nullcontext()
            else:
                target = service(f"{logs}-service.log", ["--app.auth.throttle.registrations-per-address=0",
                                                         *shlex.split(service_args)], java=args.service_java)
            with target:
                started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                calibration = compose.calibrate() if compose else calibrate()
                log(f"calibration: pgbench point select {calibration} TPS")
                warm_up(run_out / "warm-up.txt", args.warm_up_max, compose and compose.ids_file)
                with open(f"{logs}-gatling.log", "w") as gatling_log:
                    status, run = run_gatling(simulation, [f"-Dusers={users}", *ids, *shlex.split(args.gatling_opts)],
                                              gatling_log, args.gatling_java_home)
                java = service_java()
            if run is None:
                fail(f"Gatling left no run directory (log {logs}-gatling.log)")
            failed |= status != 0
            for pattern in ("*-summary.txt", "*-cpu.csv", "*-cpu.png"):
                for f in run.glob(pattern):
                    shutil.copy(f, run_out)
            (run_out / "gatling-statistics.txt").write_text(gatling_statistics(f"{logs}-gatling.log"))
            assertions = [l for l in Path(f"{logs}-gatling.log").read_text().splitlines()
                          if re.match(r"^(Global|Details)|.*: (true|false)", l)]
            (run_out / "assertions.txt").write_text("\n".join(assertions) + "\n")
            print((run_out / "gatling-statistics.txt").read_text() + (next(run_out.glob("*-summary.txt"))).read_text()
                  + "\n".join(assertions))
            rows.append(dict(figures(run_out), run=n, started_utc=started, commit=commit(), java=java,
                             calibration_tps=calibration, assertions_passed="yes" if status == 0 else "no"))
            log(f"(exit {status}) copied to {run_out}; Gatling report in {run}")
        with (out / "runs.csv").open("w", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(COLUMNS)
            writer.writerows([["" if r.get(c) is None else r[c] for c in COLUMNS] for r in rows])
        (out / "medians.md").write_text(medians(rows, name))
        print(medians(rows, name))
    return failed


if __name__ == "__main__":
    main()
