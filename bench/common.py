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


# A trial, off unless BENCH_CPU_GROUPS gives a share: the two sides of a run on one machine each in a CPU
# cgroup of its own, the load generator's weight that share of its target's. By default everything runs
# in the root cgroup and the scheduler shares the cores thread by thread, while Docker keeps a Compose
# deployment under one cgroup (`docker`) that weighs as much as one thread there. Measured, no share
# is neutral (docs/reports/capacity.md, "Two CPU groups (a trial)"); the load table is made without.
LOAD_GROUP, TARGET_GROUP = "profiles-load-generator", "profiles-target"
CGROUPS = Path("/sys/fs/cgroup")
_group_notes = set()


def cpu_group(name, share=1.0):
    """The directory of the CPU cgroup `name` at the top of the hierarchy (cgroup v1's cpu controller
    or v2's unified tree), made if need be, its weight `share` of the default one; None, said once,
    where cgroups cannot be written (not root, a read-only /sys/fs/cgroup, a weight out of range):
    then everything runs where it was."""
    v1 = CGROUPS / "cpu"
    unified = (CGROUPS / "cgroup.controllers").exists()
    base, weight_file, weight = (CGROUPS, "cpu.weight", 100) if unified else (v1, "cpu.shares", 1024)
    group = base / name
    try:
        if unified:
            controllers = (CGROUPS / "cgroup.subtree_control").read_text().split()
            if "cpu" not in controllers:
                (CGROUPS / "cgroup.subtree_control").write_text("+cpu")
        elif not v1.is_dir():
            raise OSError("no cpu controller mounted at /sys/fs/cgroup/cpu")
        group.mkdir(exist_ok=True)
        (group / weight_file).write_text(str(max(2, round(weight * share))))
        return group
    except OSError as e:
        if name not in _group_notes:
            _group_notes.add(name)
            log(f"CPU group {name} not made ({e}): the load generator and its target share the cores thread by thread")
        return None


def joining(name):
    """For subprocess's preexec_fn: the child joins the CPU group `name` before it runs its program, and
    its own children follow it; None where there is no such group, and unless BENCH_CPU_GROUPS gives
    the load generator's weight as a share of its target's (1: equal; a trial, docs/reports/capacity.md,
    "Two CPU groups")."""
    try:
        share = float(os.environ.get("BENCH_CPU_GROUPS", "0"))
    except ValueError:
        fail("BENCH_CPU_GROUPS: the load generator's weight as a share of its target's, e.g. 1 or 0.125")
    if share <= 0:
        return None
    group = cpu_group(name, share if name == LOAD_GROUP else 1.0)
    if group is None:
        return None
    procs = str(group / "cgroup.procs")

    def join():
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
    return join


def need(*tools):
    if missing := [t for t in tools if not shutil.which(t)]:
        fail(f"missing {', '.join(missing)}; on Debian: apt-get install wrk postgresql-client iproute2 linux-perf")


class CpuCounters:
    """CPU counters from the simulations' CPU monitor, the one sampler of this repository
    (gatling/java/dev/highload/profiles/gatling/monitor/CpuCounters.java, compiled by ./mvnw
    test-compile), run as a child process: read(pids) gives running totals in seconds of the
    machine's busy and stolen CPU, each pid's user and system CPU and context switches, and with
    cluster= each PostgreSQL node's (with its ended backends), with project= each container's of that
    Compose project. Start it before what it measures: its own JVM start-up then falls outside."""

    def __init__(self, cluster=None, project=None):
        classes = ROOT / "target/test-classes"
        if not (classes / "dev/highload/profiles/gatling/monitor/CpuCounters.class").exists():
            fail("the CPU monitor is not compiled: run ./mvnw test-compile first")
        options = [*(["--cluster", str(cluster)] if cluster else []), *(["--project", project] if project else [])]
        self.process = subprocess.Popen(["java", "-cp", str(classes), "dev.highload.profiles.gatling.monitor.CpuCounters",
                                         *options], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        preexec_fn=joining(LOAD_GROUP))
        self.read()

    def read(self, *pids):
        """The totals now; the word "discover" among the pids asks docker for the project's containers
        anew first (they are asked once otherwise, and when one has gone)."""
        self.process.stdin.write(" ".join(map(str, pids)) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            fail("the CPU monitor ended")
        return json.loads(line)

    def close(self):
        """Ends the monitor (it also ends by itself at the end of its input, when this process does)."""
        self.process.stdin.close()
        self.process.wait(30)


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
        process = subprocess.Popen(service_command(java) + list(args), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                   preexec_fn=joining(TARGET_GROUP))
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


class Compose:
    """docker-compose.yml as a user runs it, under a project name, network and secrets of its own
    (target/compose-load/), so that it goes beside a developer's own `docker compose up`; the service
    on 127.0.0.1:8080 and 8081 as the README's. env_files are compose's --env-file options (the
    machine's stand-in images: docker/local-images.env)."""
    NAME, PREFIX = "profiles-load", "172.28.50"

    def __init__(self, env_files=()):
        self.work = ROOT / "target/compose-load"
        self.env = dict(os.environ, SECRETS_DIR=str(self.work / "secrets"), NETWORK_PREFIX=self.PREFIX,
                        DB_NETWORK_SUBNET="172.28.51.0/24", ADMIN_NETWORK_SUBNET="172.28.52.0/24",
                        APP_PORT="8080", MANAGEMENT_PORT="8081",
                        # The simulations register thousands of users from 16 loopback addresses.
                        REGISTRATIONS_PER_ADDRESS="0")
        self.options = [a for f in env_files for a in ("--env-file", str(f))]
        self.ids_file = self.work / "data/user-ids.csv"

    def __call__(self, *args, timeout=900, check=True):
        command = ["docker", "compose", "-p", self.NAME, *self.options, *args]
        result = subprocess.run(command, cwd=ROOT, env=self.env, timeout=timeout, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if check and result.returncode:
            fail(f"{' '.join(command[3:])} failed:\n{result.stdout or ''}")
        return result

    def up(self, users):
        """Builds and starts the deployment from empty volumes, waits for every healthcheck, seeds
        `users` profiles with the documented command (ids to target/compose-load/data/)."""
        self.work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["bash", "docker/secrets.sh", self.env["SECRETS_DIR"]], cwd=ROOT, check=True,
                       capture_output=True)
        # What an interrupted run of this tool left behind first, then whatever else holds the ports.
        self("down", "-v", "--remove-orphans")
        for taken in (p for p in (8080, 8081) if socket.socket().connect_ex(("127.0.0.1", p)) == 0):
            fail(f"port {taken} is already in use: the compose service listens there on the host", 2)
        log("compose: up --build --wait")
        self("up", "--build", "-d", "--wait", timeout=1800)
        (self.work / "data").mkdir(exist_ok=True)
        began = time.monotonic()
        self("run", "--rm", "--user", f"{os.getuid()}:{os.getgid()}", "-v", f"{self.work / 'data'}:/app/.data",
             "seed", f"--app.seed.users={users}", timeout=1800)
        log(f"compose: seeded {users} users in {time.monotonic() - began:.0f} s")

    def restart_service(self):
        """A fresh JVM in the service's container, as each local run starts one; back when healthy."""
        self("restart", "app")
        deadline = time.monotonic() + 300
        while http_status("http://127.0.0.1:8081/actuator/health/readiness") != 200:
            if time.monotonic() > deadline:
                fail("the compose service was not ready within 300 s")
            time.sleep(1)

    def down(self):
        self("down", "-v", "--remove-orphans", check=False)

    def calibrate(self):
        """calibrate() on the compose nodes, as the schema owner (it makes the tables), through the
        host's bridge to the admin network: a bridge like the one the service reaches them through."""
        return calibrate(self.admin_address("primary"), tuple(map(self.admin_address, ("replica1", "replica2"))),
                         port=5432, env=self.owner_env())

    def owner_env(self):
        """libpq's variables for the schema owner on the compose primary."""
        password = (self.work / "secrets/app-db-migration-password").read_text().strip()
        return {"PGHOST": self.admin_address("primary"), "PGPASSWORD": password}

    def admin_address(self, service):
        """A node's address on the admin network, the one network whose clients pg_hba.conf accepts as
        the schema owner. The host reaches it through the network's bridge, from its gateway (.1),
        which is inside that subnet; from the app network's addresses the owner is refused."""
        ps = subprocess.run(["docker", "compose", "-p", self.NAME, *self.options, "ps", "-q", service], cwd=ROOT,
                            env=self.env, capture_output=True, text=True)
        network = f'{{{{(index .NetworkSettings.Networks "{self.NAME}_admin").IPAddress}}}}'
        address = subprocess.run(["docker", "inspect", "-f", network, *ps.stdout.split()], capture_output=True,
                                 text=True).stdout.strip()
        if ps.returncode or not address:
            fail(f"no address of {service} on the admin network:\n{ps.stderr}")
        return address


def run_gatling(simulation, options, output=None, java_home=None):
    """One simulation, ./mvnw gatling:test at the repository root; its exit status and newest run directory (or None)."""
    env = dict(os.environ, **({"JAVA_HOME": java_home} if java_home else {}))
    # A formatting slip in a simulation being tried out must not stop a run: the formatter is CI's job.
    status = subprocess.run(["./mvnw", "-B", "-ntp", "gatling:test",
                             "-Dspring-javaformat.validate.skip=true",
                             f"-Dgatling.simulationClass=dev.highload.profiles.gatling.{simulation}", *options],
                            cwd=ROOT, env=env, stdout=output, stderr=output and subprocess.STDOUT,
                            preexec_fn=joining(LOAD_GROUP)).returncode
    runs = sorted(glob.glob(f"{ROOT}/target/gatling/{simulation.lower()}-*"), key=os.path.getmtime)
    return status, Path(runs[-1]) if runs else None


def listening_pid(port):
    """The pid of the process listening on a loopback port (ss), or fail."""
    found = re.search(r"pid=(\d+)", subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True,
                                                    text=True).stdout)
    if not found:
        fail(f"nothing listens on port {port}")
    return int(found.group(1))


def wrk(url, seconds, script="get.lua", threads=2, connections=16, env=None):
    """A closed-loop wrk run: requests, rps, p99_ms, max_ms, errors (non-2xx and socket), output."""
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s",
                          str(ROOT / "bench" / script), url], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, **(env or {})), preexec_fn=joining(LOAD_GROUP)).stdout
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


def psql(port, *args, stdin=None, env=None):
    """psql without ~/.psqlrc, stopping at the first error, unaligned; its output. env: more PG* variables."""
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-p", str(port), *args], input=stdin,
                         capture_output=True, text=True,
                         env=pg_env(PGOPTIONS="-c client_min_messages=warning", **(env or {})))
    if out.returncode:
        fail(f"psql on port {port}: {out.stderr.strip()}")
    return out.stdout.strip()


def pgbench(ports, clients, threads, seconds, args, env=None):
    """pgbench on every port at once, clients and threads split between them; their outputs. A "port"
    may be a host name or address instead, with the port in env's PGPORT."""
    binary, runs = pgbench_binary(), []
    for i, port in enumerate(ports):
        share = lambda n: str(max(1, n // len(ports) + (i < n % len(ports))))
        target = ["-p", str(port)] if isinstance(port, int) else ["-h", port]
        runs.append(subprocess.Popen([binary, "-n", "-M", "prepared", "-c", share(clients), "-j", share(threads),
                                      "-T", str(seconds), *target, *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=pg_env(**(env or {}))))
    outputs = [run.communicate()[0] for run in runs]
    if any(run.returncode for run in runs):
        fail("pgbench failed:\n" + "\n".join(outputs))
    return outputs


def tps(output):
    return float(re.search(r"^tps = ([\d.]+)", output, re.M).group(1))


def calibrate(primary=15432, replicas=(15433, 15434), port=None, env=None):
    """The machine's own speed as one number: pgbench's select-only script (one primary-key lookup,
    prepared) on a scale-1 table set in the schema "calibration" (made on the primary the first time;
    DROP SCHEMA calibration CASCADE removes it), 4 clients on each replica for 15 s, TPS summed.
    load-test.py and cpu-per-request.py both take it, so their calibrations compare."""
    env = {**(env or {}), "PGOPTIONS": "-c search_path=calibration", **({"PGPORT": str(port)} if port else {})}
    target = ["-p", str(primary)] if isinstance(primary, int) else ["-h", primary]
    sql = lambda q: subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", *target, "-c", q],
                                   capture_output=True, text=True, check=True, env=pg_env(**env)).stdout.strip()
    if sql("SELECT to_regclass('calibration.pgbench_accounts') IS NOT NULL") != "t":
        sql("CREATE SCHEMA IF NOT EXISTS calibration")
        subprocess.run([pgbench_binary(), "-i", "-s", "1", "-q", *target], env=pg_env(**env),
                       capture_output=True, check=True)
        time.sleep(2)
    return round(sum(tps(out) for out in pgbench(replicas, 4 * len(replicas), len(replicas), 15, ["-S"], env)))


# The simulation's CPU series; on the compose deployment the service's is its container's, "app".
SERIES = "machine|steal|service|app|primary|replica1|replica2|gatling"


def warm_up(record, limit, ids_file=None, base_url="http://127.0.0.1:8080"):
    """JIT warm-up, not measured: 20 s wrk rounds until, after at least 60 s, one is within 5 % of the
    one before (a drop is no plateau: a fresh JVM dips while C2 recompiles). On a slow machine the
    JIT needed about 3 minutes, and throughput rose from 1,800 to 6,700 req/s meanwhile."""
    previous, elapsed, lines = 0, 0, []
    while elapsed < limit:
        result = wrk(base_url, 20, env={"IDS_FILE": str(ids_file)} if ids_file else None)
        rps = round(result["rps"])
        elapsed += 20
        # wrk's 16 connections can be more than the admission limit lets run: those answers are 503s.
        lines.append(f"warm-up {elapsed}s: {rps} req/s" + (f", {result['errors']} not 2xx" if result["errors"] else ""))
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


def exact_times(summary, label):
    """The simulation's exact figures (ClientFigures) of one summary line: label "answered" (its 200
    answers: count, p50, p95, p99, max in ms) or "shed" (its refusals at capacity: count, p99), with
    by_request {name: (count, p99)}; None when the summary has no such line."""
    m = re.search(rf"^{label}: (\d+) requests answered \d+(?: at capacity)?(.*?)(?: \((.*)\))?$", summary, re.M)
    if not m:
        return None
    times = {key: float(ms) for key, ms in re.findall(r"(p50|p95|p99|max) (\d+) ms", m.group(2))}
    times.update(count=int(m.group(1)), by_request={
        name: (int(count), float(p99)) for name, count, p99 in
        re.findall(r"(.+?): (\d+), p99 (\d+) ms(?:; |$)", m.group(3) or "")})
    return times


def figures(run_dir):
    """One runs.csv row from Gatling's statistics (requests, failed, latency of the successful
    requests), the simulation's CPU summary (CPU seconds per series, divided here by Gatling's
    request count) and Gatling's assertion lines: nothing the run did not measure, except sums over
    both replicas."""
    row = {}
    # Gatling prints "-" for a column without requests.
    number = lambda text: None if text == "-" else float(text.replace(",", ""))
    total_rps = None
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
            if name.startswith("mean throughput"):
                row["ok_rps"] = number(ok) or 0
                total_rps = number(total) or 0
    if not row.get("requests"):
        fail(f"no request count in Gatling's statistics of {run_dir}")
    row["failed_percent"] = round(100 * row["failed"] / row["requests"], 3)
    summary = next(run_dir.glob("*-summary.txt")).read_text()
    # Gatling's mean throughput is over the whole run, the generator's warm-up on its stub included
    # (MonitoredSimulation): the successful requests a second are over the measured part.
    warm = re.search(r"^generator warm-up: (\d+) s", summary, re.M)
    if warm and row.get("ok_rps") and total_rps:
        seconds = row["requests"] / total_rps - int(warm.group(1))
        row["ok_rps"] = round(row["ok_rps"] * row["requests"] / total_rps / seconds, 2) if seconds > 0 else None
    # Gatling's percentiles are t-digest estimates that can overstate a p99 by several ms; the
    # simulation counts the 200 answers per millisecond (ClientFigures), and its exact percentiles
    # replace them where the line is there. Gatling's own p99 of the successful is kept beside.
    row["gatling_ok_p99_ms"] = row.get("p99_ms")
    exact = exact_times(summary, "answered")
    if exact and exact["count"]:
        row.update(p50_ms=exact["p50"], p95_ms=exact["p95"], p99_ms=exact["p99"], max_ms=exact["max"])
    # The simulation's own count of refusals at capacity (ClientFigures), among Gatling's failed.
    shed = exact_times(summary, "shed")
    row["shed"] = shed["count"] if shed else 0
    row["shed_p99_ms"] = shed.get("p99") if shed else None
    row["other_failed"] = row["failed"] - row["shed"]
    # Of the failed, those that got no answer at all: the load generator's side (ClientFigures).
    unanswered = re.search(r"^unanswered: (\d+) reads got no answer", summary, re.M)
    row["unanswered"] = int(unanswered.group(1)) if unanswered else None
    averages, seconds = {}, {}
    for line in summary.splitlines():
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
