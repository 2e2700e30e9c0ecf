"""What the bench tools share: the service on its embedded cluster, Gatling, wrk, pgbench and the
machine's calibration, processes stopped by their PID, and the one median every figure uses."""
import contextlib
import glob
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZERO_ID = "00000000-0000-0000-0000-000000000000"


def fail(message, status=1):
    print(f"{Path(sys.argv[0]).name}: {message}", file=sys.stderr)
    sys.exit(status)


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def median(values):
    """For an even count the lower middle value: always a figure some run measured, never a mean of two."""
    return statistics.median_low(values)


def spread(values, digits=1):
    """A table cell: the median with its min-max."""
    return f"{median(values):.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def need(*tools):
    if missing := [t for t in tools if not shutil.which(t)]:
        fail(f"missing {', '.join(missing)}; on Debian: apt-get install wrk postgresql-client iproute2 linux-perf")


def commit():
    """The short commit, marked -dirty when tracked files other than the tools' outputs differ from it."""
    git = lambda *a: subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/load-tests")
    return (git("rev-parse", "--short", "HEAD") or "unknown") + ("-dirty" if dirty else "")


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def service_java(management_url="http://127.0.0.1:8081"):
    """The JVM version the service reports in its metrics."""
    try:
        with urllib.request.urlopen(f"{management_url}/actuator/metrics/jvm.info", timeout=5) as answer:
            return next(t["values"][0] for t in json.load(answer)["availableTags"] if t["tag"] == "version")
    except (OSError, KeyError, StopIteration, ValueError):
        return "unknown"


def service_command(java="java"):
    """The service on its own embedded cluster, started by the launcher in the test classes (build
    first: ./mvnw package); its arguments go after this."""
    classpath = (ROOT / "target/local-classpath.txt").read_text().strip()
    return [java, "-cp", f"target/test-classes:target/classes:{classpath}", "dev.highload.profiles.LocalProfilesApplication"]


def own_cluster(base_dir, cluster_port, port, management_port):
    """Service arguments for a cluster and HTTP ports of its own (a small one, ports below Linux's
    ephemeral range), so that a run can go beside a developer's service or another run."""
    return [f"--app.cluster.base-dir={base_dir}", "--app.cluster.shared-buffers=64MB", f"--server.port={port}",
            f"--management.server.port={management_port}", f"--app.cluster.primary-port={cluster_port}",
            f"--app.cluster.replica1-port={cluster_port + 1}", f"--app.cluster.replica2-port={cluster_port + 2}"]


@contextlib.contextmanager
def service(log_file, args, port=8080, management_port=8081, java="java", timeout=180):
    """The service in the background, its output in log_file, yielded once its readiness probe
    answers, stopped by its PID when the block ends. Taken ports are refused: another process's
    readiness would answer for it."""
    for taken in (p for p in (port, management_port) if socket.socket().connect_ex(("127.0.0.1", p)) == 0):
        fail(f"port {taken} is already in use: stop what listens there, or choose other ports", 2)
    Path(log_file).parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "w") as out:
        process = subprocess.Popen(service_command(java) + list(args), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while http_status(f"http://127.0.0.1:{management_port}/actuator/health/readiness") != 200:
            if process.poll() is not None or time.monotonic() > deadline:
                print("\n".join(Path(log_file).read_text(errors="replace").splitlines()[-50:]), file=sys.stderr)
                fail(f"the service was not ready within {timeout} s (log {log_file})")
            time.sleep(1)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_gatling(simulation, options, output=None, java_home=None):
    """One simulation, ./mvnw gatling:test at the repository root; its exit status and newest run directory (or None)."""
    env = dict(os.environ, **({"JAVA_HOME": java_home} if java_home else {}))
    # A formatting slip in a simulation being tried out must not stop a run: the formatter is CI's job.
    status = subprocess.run(["./mvnw", "-B", "-ntp", "gatling:test",
                             "-Dspring-javaformat.validate.skip=true",
                             f"-Dgatling.simulationClass=dev.highload.profiles.gatling.{simulation}", *options],
                            cwd=ROOT, env=env, stdout=output, stderr=output and subprocess.STDOUT).returncode
    runs = sorted(glob.glob(f"{ROOT}/target/gatling/{simulation.lower()}-*"), key=os.path.getmtime)
    return status, Path(runs[-1]) if runs else None


def wrk(url, seconds, script="get.lua", threads=2, connections=16, env=None):
    """A closed-loop wrk run: requests, rps, p99_ms, max_ms, errors (non-2xx and socket), output."""
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s",
                          str(ROOT / "bench" / script), url], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, **(env or {}))).stdout
    ms = lambda pattern: (lambda v, unit: float(v) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit])(
        *re.search(pattern + r"\s+([\d.]+)(us|ms|s|m)\b", out, re.M).groups())
    try:
        return {"requests": int(re.search(r"(\d+) requests in", out).group(1)),
                "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
                "p99_ms": ms(r"^\s+99%"), "max_ms": ms(r"^\s+Latency\s+\S+\s+\S+"),
                "errors": sum(map(int, re.findall(r"(?:connect|read|write|timeout|responses:) (\d+)", out))),
                "output": out}
    except AttributeError:
        fail(f"cannot read wrk's figures:\n{out}")


def pgbench_binary():
    """The newest real pgbench: Debian's /usr/bin/pgbench is a wrapper that fails without a server
    package; .ci/run unpacks postgresql-15 under target/ without installing it."""
    found = glob.glob("/usr/lib/postgresql/*/bin/pgbench") + glob.glob(str(ROOT / "target/postgresql-15/usr/lib/postgresql/*/bin/pgbench"))
    for binary in sorted(found, key=lambda p: -int(Path(p).parent.parent.name)) + ["pgbench"]:
        if shutil.which(binary) and subprocess.run([binary, "--version"], capture_output=True).returncode == 0:
            return binary
    fail("no pgbench: run .ci/run's PostgreSQL 15 step (unpacks it under target/postgresql-15), "
         "or install a server package of PostgreSQL")


def pg_env(**extra):
    """libpq's environment: the embedded cluster's schema owner unless PG* variables say otherwise
    (the service's runtime role may not create the tables the benchmarks need)."""
    defaults = {"PGHOST": "127.0.0.1", "PGUSER": "profiles_owner", "PGPASSWORD": "profiles_owner", "PGDATABASE": "profiles"}
    return {**defaults, **os.environ, **extra}


def psql(port, *args, stdin=None):
    """psql without ~/.psqlrc, stopping at the first error, unaligned; its output."""
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-p", str(port), *args], input=stdin,
                         capture_output=True, text=True, env=pg_env(PGOPTIONS="-c client_min_messages=warning"))
    if out.returncode:
        fail(f"psql on port {port}: {out.stderr.strip()}")
    return out.stdout.strip()


def pgbench(ports, clients, threads, seconds, args, env=None):
    """pgbench on every port at once, clients and threads split between them; their outputs."""
    binary, runs = pgbench_binary(), []
    for i, port in enumerate(ports):
        share = lambda n: str(max(1, n // len(ports) + (i < n % len(ports))))
        runs.append(subprocess.Popen([binary, "-n", "-M", "prepared", "-c", share(clients), "-j", share(threads),
                                      "-T", str(seconds), "-p", str(port), *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=pg_env(**(env or {}))))
    outputs = [run.communicate()[0] for run in runs]
    if any(run.returncode for run in runs):
        fail("pgbench failed:\n" + "\n".join(outputs))
    return outputs


def tps(output):
    return float(re.search(r"^tps = ([\d.]+)", output, re.M).group(1))


def calibrate(primary=15432, replicas=(15433, 15434)):
    """The machine's own speed as one number: pgbench's select-only script (one primary-key lookup,
    prepared) on a scale-1 table set in the schema "calibration" (made on the primary the first time;
    DROP SCHEMA calibration CASCADE removes it), 4 clients on each replica for 15 s, TPS summed.
    load-test.py and cpu-per-request.py both take it, so their calibrations compare."""
    env = {"PGOPTIONS": "-c search_path=calibration"}
    if psql(primary, "-c", "SELECT to_regclass('calibration.pgbench_accounts') IS NOT NULL") != "t":
        psql(primary, "-c", "CREATE SCHEMA IF NOT EXISTS calibration")
        subprocess.run([pgbench_binary(), "-i", "-s", "1", "-q", "-p", str(primary)], env=pg_env(**env),
                       capture_output=True, check=True)
        time.sleep(2)
    return round(sum(tps(out) for out in pgbench(replicas, 4 * len(replicas), len(replicas), 15, ["-S"], env)))
