#!/usr/bin/env python3
"""A fresh instance's first minute: the service on its embedded cluster (.data/, seeded with 1,000,000
users), started anew for each run; the moment its readiness probe answers 200 (after its own warm-up,
warmup/WarmUp), FirstMinuteSimulation starts, GetUserSimulation's load with its requests named by the
minute their user arrived in. Gatling first warms its own JVM for --generator-warm-up seconds on a stub
server inside it (a fresh Gatling JVM is slow for its first seconds whatever it loads), so that the first
minute measured is the service's. For each run, the requests, refusals (503), other failures, refusals per
second and the p99 of the successful and of the refused requests of the first minute and of the rest,
and the ratio first / rest. The successful requests' p99 is exact, from the simulation's own count
per millisecond (the summary's "answered" line), and so is the refusals' (its "shed" line); Gatling's
estimate (t-digest) of the first is read from its report pages of the two request names beside it.

Writes runs.csv and first-minute.md to target/first-minute/ (--out); each run's Gatling log and summary
beside them. Not a test: it exits 0 once it has measured, whatever it found.
"""
import argparse
import csv
import html
import re
import shlex
import time
from pathlib import Path

from common import ROOT, calibrate, commit, exact_times, fail, log, median, need, run_gatling, service, service_java

NAMES = {"first": "GET /user/{id} first minute", "after": "GET /user/{id} after"}
COLUMNS = ["run", "started_utc", "phase", "seconds", "requests", "failed", "shed", "shed_per_s", "p99_ok_ms",
           "gatling_p99_ok_ms", "p99_ko_ms"]


def page_stats(run_dir, name):
    """Total/OK/KO rows of the statistics table on the request's own report page."""
    for page in run_dir.glob("req_*.html"):
        text = page.read_text(errors="replace")
        title = re.search(r"<title>Gatling Stats - (.*?)</title>", text)
        if not title or html.unescape(title.group(1)).strip() != name:
            continue
        cells = [html.unescape(c).strip() for c in re.findall(r"<td[^>]*>([^<]*)</td>", text)]
        rows = {}
        for i, cell in enumerate(cells):
            if cell in ("Total count", "99th percentile") and i + 3 < len(cells):
                rows[cell] = cells[i + 1:i + 4]
        if rows:
            return rows
    fail(f"no report page for {name!r} in {run_dir}")


def number(text):
    return None if text in ("-", "") else float(text.replace(",", ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="[%(default)s]")
    parser.add_argument("--users", type=int, default=250_000, help="[%(default)s]")
    parser.add_argument("--window", type=int, default=600, help="seconds users keep arriving [%(default)s]")
    parser.add_argument("--generator-warm-up", type=int, default=20,
                        help="seconds Gatling warms its own JVM on a stub server before the service's first request "
                             "(0: none) [%(default)s]")
    parser.add_argument("--service-java", default="java", help="the java that runs the service [%(default)s]")
    parser.add_argument("--service-args", default="",
                        help="more service arguments for a trial, e.g. --service-args=--app.warm-up.clients=8 "
                             "(with '=': the value starts with dashes)")
    parser.add_argument("--out", type=Path, default=ROOT / "target/first-minute", help="[%(default)s]")
    args = parser.parse_args()
    need("psql")
    if not (ROOT / ".data/user-ids.csv").is_file():
        fail("seed first: ./mvnw spring-boot:run -Dspring-boot.run.arguments=--app.seed.users=1000000", 2)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    rows, java, calibration = [], None, []
    for n in range(1, args.runs + 1):
        with service(out / f"run-{n}-service.log",
                     ["--app.auth.throttle.registrations-per-address=0", *shlex.split(args.service_args)],
                     java=args.service_java):
            log(f"run {n}: ready; FirstMinuteSimulation, {args.users} users over {args.window} s")
            started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            java = service_java()
            with open(out / f"run-{n}-gatling.log", "w") as output:
                _, run = run_gatling("FirstMinuteSimulation", [f"-Dusers={args.users}", f"-Dwindow={args.window}",
                                                               "-DmaxFailed=100", "-Dp99=60000",
                                                               f"-DgeneratorWarmUp={args.generator_warm_up}"], output)
            if run is None:
                fail(f"Gatling left no run directory (log {out}/run-{n}-gatling.log)")
            calibration.append(calibrate())
            summary_text = "".join(summary.read_text() for summary in run.glob("*-summary.txt"))
            (out / f"run-{n}-summary.txt").write_text(summary_text)
            # Exact, from the simulation's own counts (ClientFigures); Gatling's are t-digest estimates.
            answers = (exact_times(summary_text, "answered") or {}).get("by_request", {})
            refusals = (exact_times(summary_text, "shed") or {}).get("by_request", {})
            for phase, seconds in (("first", 60), ("after", args.window - 60)):
                stats = page_stats(run, NAMES[phase])
                total, _, failed = (number(v) for v in stats["Total count"])
                _, gatling_p99_ok, p99_ko = (number(v) for v in stats["99th percentile"])
                p99_ok = answers[NAMES[phase]][1] if NAMES[phase] in answers else gatling_p99_ok
                shed, p99_ko = refusals.get(NAMES[phase], (0, p99_ko))
                rows.append(dict(run=n, started_utc=started, phase=phase, seconds=seconds, requests=int(total),
                                 failed=int(failed or 0), shed=shed, shed_per_s=round(shed / seconds, 2),
                                 p99_ok_ms=p99_ok, gatling_p99_ok_ms=gatling_p99_ok, p99_ko_ms=p99_ko))
                log(f"run {n} {phase}: {rows[-1]}")
    with (out / "runs.csv").open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows([[r[c] for c in COLUMNS] for r in rows])
    lines = [f"# A fresh instance's first minute", "",
             f"Commit {commit()}; service on Java {java}; calibration {', '.join(map(str, calibration))} TPS "
             f"(pgbench point select, after each run); FirstMinuteSimulation, {args.users} users over {args.window} s, started the moment "
             f"the service reported ready; Gatling warmed its own JVM on a stub for {args.generator_warm_up} s before the service's "
             f"first request. Service arguments beyond the README's: {args.service_args or 'none'}; "
             f"java: {args.service_java}.", "",
             "| run | phase | requests | failed | refused | refused/s | p99 OK ms (exact) | p99 OK ms (Gatling) | "
             "p99 refused ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['run']} | {r['phase']} | {r['requests']} | {r['failed']} | {r['shed']} | "
                     f"{r['shed_per_s']} | {r['p99_ok_ms']} | {r['gatling_p99_ok_ms']} | {r['p99_ko_ms']} |")
    phases = {(r["run"], r["phase"]): r for r in rows}
    ratio = [phases[n, "first"]["p99_ok_ms"] / max(phases[n, "after"]["p99_ok_ms"], 1) for n in range(1, args.runs + 1)]
    shed = [(phases[n, "first"]["shed_per_s"], phases[n, "after"]["shed_per_s"]) for n in range(1, args.runs + 1)]
    lines += ["", f"p99 of the first minute / p99 of the rest: median {median(ratio):.2f} "
                  f"(runs: {', '.join(f'{r:.2f}' for r in ratio)})",
              f"refusals a second, first minute / rest: {'; '.join(f'{a} / {b}' for a, b in shed)}"]
    (out / "first-minute.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
