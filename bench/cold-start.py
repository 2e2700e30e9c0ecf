#!/usr/bin/env python3
"""How a freshly started service copes with full load: time to its first answer, then CPU
per request in short windows while the JIT warms up.

Each variant is a command that starts the service's production jar (the script appends
--app.cluster.enabled=false, the ports and a throw-away token key, so it joins the nodes of the
embedded cluster that `./mvnw spring-boot:run` or the -local jar keeps running). For every run
the script starts the variant, polls GET /user/<zero uuid> until it answers 404 (time to ready,
and the CPU the JVM spent getting there), then puts the keep-alive load of
bench/cpu-per-request.py on it (wrk, 2 threads, 16 connections, random seeded ids) in
back-to-back windows, reading the server's CPU time from /proc around each, and stops it with
SIGTERM. Runs of the variants alternate (the VM's speed drifts), and each window is reported as
median [min-max] over the runs.

  bench/cold-start.py --runs 3 \\
      j17='java -jar target/user-profiles-0.1.0-SNAPSHOT.jar' \\
      j25='/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar target/user-profiles-0.1.0-SNAPSHOT.jar'

Needs wrk and a running, seeded cluster (.data/user-ids.csv).
"""

import argparse
import base64
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import NamedTuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
cpr = __import__("cpu-per-request")

ROOT = cpr.ROOT
ZERO = "00000000-0000-0000-0000-000000000000"


class Window(NamedTuple):
    """One window of load on a new JVM: requests answered, the server's CPU seconds, errors."""
    requests: int
    cpu: float
    errors: int

    def micros_per_request(self):
        return self.cpu * 1e6 / max(self.requests, 1)


def answers(port):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/user/{ZERO}", timeout=1)
    except urllib.error.HTTPError as e:
        return e.code == 404
    except OSError:
        return False
    return False


def token_key():
    """A throw-away token key: a service without the embedded cluster refuses to start without one."""
    return "bench:" + base64.b64encode(os.urandom(32)).decode("ascii")


def run_once(command, port, windows, seconds, log):
    argv = shlex.split(command) + ["--app.cluster.enabled=false", f"--server.port={port}",
                                   f"--management.server.port={port + 1}", f"--app.auth.token-keys={token_key()}"]
    started = time.monotonic()
    server = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        while not answers(port):
            if server.poll() is not None:
                sys.exit(f"{command!r} ended with {server.returncode} before answering; see its log")
            if time.monotonic() - started > 180:
                sys.exit(f"{command!r} did not answer within 180 s")
            time.sleep(0.05)
        ready = time.monotonic() - started
        user, system = cpr.cpu_seconds(server.pid)
        row = {"ready s": ready, "start CPU s": user + system, "windows": []}
        for _ in range(windows):
            before = sum(cpr.cpu_seconds(server.pid))
            requests, errors, _ = cpr.wrk(port, seconds)
            row["windows"].append(Window(requests, sum(cpr.cpu_seconds(server.pid)) - before, errors))
        return row
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("variants", nargs="+", metavar="NAME='COMMAND'")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--windows", type=int, default=12)
    parser.add_argument("--seconds", type=int, default=5, help="length of each wrk window")
    parser.add_argument("--port", type=int, default=18280, help="the service's port (management: port + 1)")
    parser.add_argument("--log", default=os.path.join(ROOT, "target", "cold-start.log"))
    args = parser.parse_args()
    if not cpr.shutil.which("wrk"):
        sys.exit("wrk is missing (Debian: apt-get install wrk)")
    if answers(args.port):
        sys.exit(f"something already answers on port {args.port}")
    variants = cpr.named(args.variants)
    rows = {name: [] for name, _ in variants}
    os.makedirs(os.path.dirname(args.log), exist_ok=True)
    with open(args.log, "w") as log:
        for r in range(args.runs):
            for name, command in cpr.rotated(variants, r):
                row = run_once(command, args.port, args.windows, args.seconds, log)
                rows[name].append(row)
                print(f"run {r + 1} {name}: ready {row['ready s']:.1f} s, start CPU {row['start CPU s']:.1f} s, "
                      "µs/req " + " ".join(f"{w.micros_per_request():.0f}" for w in row["windows"]), file=sys.stderr)
    print(f"{args.runs} runs per variant, each started cold, then {args.windows} windows of {args.seconds} s of "
          "wrk -t2 -c16 keep-alive; median [min–max]\n")
    print("| variant | ready s | start CPU s | " + " | ".join(
        f"{(i + 1) * args.seconds} s" for i in range(args.windows)) + f" | all {args.windows * args.seconds} s | errors |")
    print("|---" * (args.windows + 5) + "|")
    for name, _ in variants:
        runs = rows[name]
        cells = [cpr.spread([run["ready s"] for run in runs]), cpr.spread([run["start CPU s"] for run in runs])]
        for i in range(args.windows):
            cells.append(f"{statistics.median(run['windows'][i].micros_per_request() for run in runs):.0f}")
        whole = [Window(sum(w.requests for w in run["windows"]), sum(w.cpu for w in run["windows"]), 0)
                 for run in runs]
        cells.append(cpr.spread([w.micros_per_request() for w in whole]))
        cells.append(str(sum(w.errors for run in runs for w in run["windows"])))
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nCells of the windows: the server's CPU µs per request in that window (median of the runs); "
          "'all': over the whole loaded time.")


if __name__ == "__main__":
    main()
