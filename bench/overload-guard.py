#!/usr/bin/env python3
"""The overload guard CI runs: past any 2-core machine's capacity, every answer still comes within the
service's objective and the load generator loses nothing of its own.

One run of GetUserSimulation by bench/load-test.py (the service on its embedded cluster in .data/,
seeded with 1,000,000 users first when it is not; its wrk warm-up), users arriving at --rate a second
for --window seconds after a 10-s ramp. The rate is set well past the capacity of the fastest 2-core
machine measured here, because just past capacity a run refuses so few reads that one stall decides
their p99 (the runs: docs/reports/capacity.md, "The guard's rate"). Gatling first warms its own JVM
for --generator-warm-up seconds on a stub inside it (gatling/.../GeneratorWarmUp): a fresh Gatling JVM
is slow for its first seconds whatever it loads, and at this rate it took most of both cores then,
which is the generator's start and not an overload a service meets. Refusals (503 with
Retry-After) are expected; the run fails when
- the p99 of the successful requests, or the p99 of the refusals, exceeds --objective (50 ms, the
  service's app.admission.objective): a refusal that waits is as bad as a late answer, and in an
  open model every waiting user holds one of the generator's descriptors. Both p99s are exact, from
  the simulation's own count per millisecond (bench/common.py figures), not Gatling's estimates;
- any request failed otherwise: no answer at all (the generator's own connect errors, timeouts,
  closed connections, "Too many open files") or an answer other than 200 and 503.
Exits 0 when the run held, 1 when it did not, 2 when it could not run.
"""
import argparse
import csv
import subprocess
import sys
from pathlib import Path

from common import ROOT, fail, log, service_command


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=int, default=1200, help="users arriving per second, 10 GETs each [%(default)s]")
    parser.add_argument("--window", type=int, default=70, help="seconds users keep arriving, ramp included [%(default)s]")
    parser.add_argument("--objective", type=float, default=50, help="ms, app.admission.objective [%(default)s]")
    parser.add_argument("--warm-up-max", type=int, default=60, help="seconds of wrk warm-up at most [%(default)s]")
    parser.add_argument("--generator-warm-up", type=int, default=20,
                        help="seconds Gatling warms its own JVM on a stub before the service's first request [%(default)s]")
    parser.add_argument("--out", type=Path, default=ROOT / "target/overload-guard", help="[%(default)s]")
    args = parser.parse_args()
    ramp = 10
    if not (ROOT / ".data/user-ids.csv").is_file():
        # The README's seeding command, without Maven: the launcher it runs (bench/common.py).
        log("seeding 1,000,000 users into .data/")
        subprocess.run(["./mvnw", "-B", "-ntp", "-q", "package", "-DskipTests", "-Dspring-javaformat.validate.skip=true"],
                       cwd=ROOT, check=True)
        if subprocess.run([*service_command(), "--app.seed.users=1000000"], cwd=ROOT,
                          stdout=subprocess.DEVNULL).returncode:
            fail("seeding failed", 2)
    users = round(args.rate * (args.window - ramp / 2))
    # The simulation's own assertions are left open (any p99, any share failed): this script
    # judges the answers by kind, which Gatling's assertions cannot tell apart.
    status = subprocess.run([sys.executable, str(ROOT / "bench/load-test.py"), "--runs", "1", "--out", str(args.out),
                             "--warm-up-max", str(args.warm_up_max),
                             "--generator-warm-up", str(args.generator_warm_up),
                             "--gatling-opts", f"-Dwindow={args.window} -Dramp={ramp} -Dp99=60000 -DmaxFailed=100",
                             f"GetUserSimulation:{users}:overload"]).returncode
    runs = args.out / f"getusersimulation-{users}-overload/runs.csv"
    if not runs.is_file():
        fail(f"the run left no figures (bench/load-test.py exited {status})", 2)
    with runs.open() as f:
        row = next(csv.DictReader(f))
    number = lambda key: float(row[key]) if row.get(key) else None
    problems = []
    ok_p99, shed_p99 = number("p99_ms"), number("shed_p99_ms")
    if ok_p99 is None or ok_p99 > args.objective:
        problems.append(f"p99 of successful requests {ok_p99} ms, over the objective of {args.objective:g} ms")
    if shed_p99 is not None and shed_p99 > args.objective:
        problems.append(f"p99 of refusals {shed_p99} ms, over the objective of {args.objective:g} ms")
    if (other := int(float(row["other_failed"]))) > 0:
        problems.append(f"{other} requests failed otherwise than by a 503 refusal (no answer, or another status)")
    log(f"overload guard, {args.rate} users/s for {args.window} s: {row['requests']} requests, {row['ok_rps']} served "
        f"a second at p99 {ok_p99} ms; {row['shed']} refused at p99 {shed_p99} ms; {other} failed otherwise")
    for problem in problems:
        log(f"overload guard: {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
