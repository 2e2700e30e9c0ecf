#!/usr/bin/env python3
"""Runs the load-test profiles; the curated summaries in docs/load-tests/ are copied from its output. Each profile, --runs times: the
service on its embedded cluster in .data/ (seeded with 1,000,000 users), the machine's calibration,
a wrk warm-up until throughput levels off, the Gatling simulation. With --compose, the same on
docker-compose.yml instead: brought up from empty volumes under a project of its own, seeded with
--seed users by the documented command, the service's container restarted before each run (a fresh
JVM, as each local run has), taken down with its volumes at the end; results under
target/load-tests/compose-<simulation>-<users>[-<label>]/ (a profile's service arguments do not apply).
With --base-url, a server already listening instead (a control of bench/controls reading the replicas of
a running service's cluster): nothing is started; results under <simulation>-<users>-control[-<label>]/.
Each run's Gatling statistics, CPU summary and CPU files go to target/load-tests/<simulation>-<users>[-<label>]/run-<n>/, one line per run to runs.csv
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

from common import (ROOT, Compose, calibrate, commit, fail, figures, gatling_statistics, log, median, need, psql,
                    run_gatling, service, service_java, warm_up)

DEFAULT_PROFILES = ["GetUserSimulation:250000", "GetUserSimulation:500000",
                    "GetUserSimulation:250000:primary-only:--app.db.read-from-replicas=false",
                    "SearchUserSimulation:25000", "RegisterUserSimulation:6000",
                    "MixedSimulation:250000", "MixedSimulation:500000"]
COLUMNS = ["run", "started_utc", "commit", "java", "calibration_tps", "requests", "failed", "failed_percent",
           "shed", "other_failed", "shed_p99_ms", "ok_rps", "registered", "given_up", "registered_rows",
           "p50_ms", "p95_ms", "p99_ms", "gatling_ok_p99_ms", "gatling_p99_ms", "max_ms", "machine_pct", "steal_pct", "service_pct",
           "replicas_pct", "gatling_pct", "machine_us", "service_us", "replicas_us", "gatling_us", "assertions_passed"]
MEDIAN_ROWS = [("calibration_tps", "calibration: pgbench point select, TPS"), ("failed", "failed requests"),
               ("shed", "of which shed: 503 at capacity"), ("other_failed", "other failed requests"),
               ("shed_p99_ms", "p99 of shed requests, ms"), ("ok_rps", "successful requests per second"),
               ("registered", "registrations acknowledged"), ("given_up", "registrations given up"),
               ("registered_rows", "rows of the run's registrations in the database"),
               ("p95_ms", "p95 of successful requests, ms"),
               ("p99_ms", "p99 of successful requests, ms (exact, the simulation's count)"),
               ("gatling_ok_p99_ms", "p99 of successful requests, ms (Gatling's t-digest estimate)"),
               ("gatling_p99_ms", "p99 of all requests, ms (Gatling's assertion, t-digest)"),
               ("max_ms", "max of successful requests, ms"),
               ("machine_pct", "machine CPU, avg % of one core (of 200)"), ("steal_pct", "steal, avg %"),
               ("service_pct", "service JVM, avg %"), ("replicas_pct", "both replicas, avg %"),
               ("gatling_pct", "Gatling JVM, avg %"), ("machine_us", "machine, CPU µs per request"),
               ("service_us", "service, CPU µs per request"), ("replicas_us", "replicas, CPU µs per request"),
               ("gatling_us", "Gatling, CPU µs per request")]


def registration_rows(gatling_log, compose):
    """Exactly once: the registrations Gatling saw acknowledged and gave up, from the simulation's
    summary, beside the rows on the primary whose last name carries the run's tag. Acknowledged =
    rows and 0 given up: none lost, none twice. Empty when the simulation registered nobody."""
    m = re.search(r"^registrations: (\d+) registered, \d+ retries .*?, (\d+) given up; last names carry '([a-z]+)'",
                  Path(gatling_log).read_text(), re.M)
    if not m:
        return {}
    query = f"SELECT count(*) FROM users WHERE second_name LIKE '%{m.group(3)}%'"
    rows = psql(5432, "-c", query, env=compose.owner_env()) if compose else psql(15432, "-c", query)
    return {"registered": int(m.group(1)), "given_up": int(m.group(2)), "registered_rows": int(rows)}


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
        values = [r.get(key) for r in runs]
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
    parser.add_argument("--generator-warm-up", type=int, default=20,
                        help="seconds Gatling warms its own JVM on a stub before the service's first request "
                             "(gatling/.../GeneratorWarmUp; 0: none) [%(default)s]")
    parser.add_argument("--compose", action="store_true", help="run on docker-compose.yml instead (see above)")
    parser.add_argument("--base-url", help="a server already listening (a control of bench/controls, on the replicas "
                                           "of a running service's cluster): nothing is started; results under "
                                           "<simulation>-<users>-control[-<label>]/")
    parser.add_argument("--env-file", action="append", default=[],
                        help="compose's --env-file, repeatable: docker/local-images.env for the stand-in images")
    parser.add_argument("--seed", type=int, default=1_000_000, help="profiles seeded with --compose [%(default)s]")
    parser.add_argument("--out", type=Path, default=ROOT / "target/load-tests",
                        help="where each profile's folder goes [target/load-tests]; raw runs, not committed")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be positive")
    need("wrk", "psql", *(["docker"] if args.compose else []))
    if args.compose and args.base_url:
        parser.error("--compose and --base-url exclude each other")
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
        name = (("compose-" if compose else "") + f"{simulation.lower()}-{users}" + ("-control" if args.base_url else "")
                + (f"-{label}" if label else ""))
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
            elif args.base_url:
                target = contextlib.nullcontext()
            else:
                target = service(f"{logs}-service.log", ["--app.auth.throttle.registrations-per-address=0",
                                                         *shlex.split(service_args)], java=args.service_java)
            with target:
                started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                calibration = compose.calibrate() if compose else calibrate()
                log(f"calibration: pgbench point select {calibration} TPS")
                warm_up(run_out / "warm-up.txt", args.warm_up_max, compose and compose.ids_file,
                        args.base_url or "http://127.0.0.1:8080")
                base = [f"-DbaseUrl={args.base_url}"] if args.base_url else []
                with open(f"{logs}-gatling.log", "w") as gatling_log:
                    status, run = run_gatling(simulation, [f"-Dusers={users}", *ids, *base,
                                                           f"-DgeneratorWarmUp={args.generator_warm_up}",
                                                           *shlex.split(args.gatling_opts)],
                                              gatling_log, args.gatling_java_home)
                java = "n/a (a server already listening)" if args.base_url else service_java()
                registrations = registration_rows(Path(f"{logs}-gatling.log"), compose)
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
            rows.append(dict(figures(run_out), **registrations, run=n, started_utc=started, commit=commit(), java=java,
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
