#!/usr/bin/env python3
"""The README as a test: every command it shows a reader, and every command of the reference pages
it sends a reader to (PAGES), run verbatim, in order, as a newcomer would type them, against the
service the README's own first command starts.

    python3 bench/readme-test.py            # about a quarter of an hour; CI runs it after ./mvnw verify
    python3 bench/readme-test.py --list     # only shows what it would run, and how

What it does:
- copies the working tree (tracked and untracked files, not ignored ones) to
  target/readme/repo, so the run starts from what a fresh clone holds and never touches
  this checkout's .data/ or target/;
- runs every ```bash block of those pages there, page by page and top to bottom, each block in one bash
  shell, so that a variable one line sets is there for the next. `curl` fails on an HTTP
  error status (--fail-with-body), so an example that answers 4xx or 5xx fails the test;
- treats two lines as what the README says they are: `./mvnw spring-boot:run` is the
  service "in its own terminal" (started in the background the first time and waited for,
  left running afterwards), and `./mvnw verify` is CI's own command, run before this test;
- a server the README starts with `java -jar` runs in the background until its block ends;
- skips a block whose first line is `# Not run in CI: <reason>` and a line ending in
  `# not run in CI: <reason>`, and lists each with its reason;
- from the moment the service is ready, sends a light load of its own beside the README's
  commands (point reads, searches, a registration a second from addresses of its
  own) and records every answer. No request may fail, except registrations answered 503
  "Database unavailable" or "Outcome unknown" during the failover command and for
  GRACE_SECONDS after it, the window docs/reliability.md documents;
- then, beyond the README: a second `./mvnw spring-boot:run` must be refused naming the
  owner; `kill -9` of the service leaves its nodes running and the next
  `./mvnw spring-boot:run` takes them over and serves every acknowledged registration and
  seeded id; Ctrl-C (SIGINT to its process group) stops the service and every node.

Needs the README's ports free (8080, 8081, 8090, 8091, 15432-15434) and what the README's
commands need (a JDK, curl, psql, wrk). Writes its log to target/readme/commands.log and its
figures to target/readme/report.txt. Exit status 0 passed, 1 failed, 2 could not run.
"""

import fcntl
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import string
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "readme"
COPY = WORK / "repo"
LOG = WORK / "commands.log"
REPORT = WORK / "report.txt"

PORTS = [8080, 8081, 8090, 8091, 15432, 15433, 15434]
API = ("127.0.0.1", 8080)
READINESS = "http://127.0.0.1:8081/actuator/health/readiness"
SERVICE_COMMAND = "./mvnw spring-boot:run"
# The README, then the reference pages it sends a reader to for commands, in the order a newcomer
# follows them: the load tests need the README's seeding, and the failover comes after them.
PAGES = ["README.md", "docs/load-testing.md", "docs/operations.md", "docs/deployment.md"]
FAILOVER = re.compile(r"--app\.failover\b")
SEEDING = re.compile(r"--app\.seed\.users=")
JAR_SERVER = re.compile(r"(^|\s)java -jar \S*user-profiles\S*\.jar")
SKIP_BLOCK = re.compile(r"^#\s*Not run in CI:\s*(.+)$", re.IGNORECASE)
SKIP_LINE = re.compile(r"\s#\s*not run in CI:\s*(.+)$", re.IGNORECASE)
GRACE_SECONDS = 10
READY_TIMEOUT = 420
BLOCK_TIMEOUT = 1800
DEADLINE = time.monotonic() + 60 * 60

# Registrations the load sends (one a second) come from addresses of their own, 20 per
# address and hour being the service's default limit: 100 addresses allow 2,000 in the hour.
WRITER_ADDRESSES = [f"127.0.0.{i}" for i in range(20, 120)]


def log(message):
    line = f"[readme {time.strftime('%H:%M:%S')}] {message}"
    print(line, flush=True)
    with LOG.open("a") as f:
        f.write(line + "\n")


# ---------------------------------------------------------------------------- README


class Command:
    def __init__(self, line, text, skip):
        self.line = line
        self.text = text
        self.skip = skip

    def kind(self):
        bare = self.text if "\n" in self.text else re.sub(r"\s+#.*$", "", self.text).strip()
        if bare == SERVICE_COMMAND:
            return "service"
        if bare == "./mvnw verify":
            return "ci"
        if JAR_SERVER.search(self.text) and not FAILOVER.search(self.text):
            return "server"
        return "run"


def blocks(readme, page="README.md"):
    """The ```bash blocks of a page: (first line number, [physical lines])."""
    found, current, start = [], None, 0
    for number, line in enumerate(readme.splitlines(), 1):
        if current is None:
            if line.strip() == "```bash":
                current, start = [], number + 1
        elif line.strip() == "```":
            found.append((start, current))
            current = None
        else:
            current.append(line)
    if current is not None:
        raise SystemExit(f"{page}: the ```bash block at line {start - 1} is not closed")
    return found


def commands(start, lines):
    """Logical commands of a block: continuation lines joined, comment lines dropped."""
    if lines and SKIP_BLOCK.match(lines[0].strip()):
        reason = SKIP_BLOCK.match(lines[0].strip()).group(1)
        text = "\n".join(l for l in lines[1:] if l.strip() and not l.lstrip().startswith("#"))
        return [Command(start, text, reason)]
    result, pending, pending_line = [], [], 0
    for offset, line in enumerate(lines):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            pending_line = start + offset
        pending.append(line)
        if line.rstrip().endswith("\\"):
            continue
        text = "\n".join(pending)
        skip = SKIP_LINE.search(pending[-1])
        result.append(Command(pending_line, text, skip.group(1) if skip else None))
        pending = []
    return result


# ---------------------------------------------------------------------------- the load


class Load:
    """Point reads, searches and registrations beside the README's commands."""

    def __init__(self):
        self.results = []  # (start, kind, ok, status, millis, note)
        self.lock = threading.Lock()
        self.ids = []
        self.seeded = []
        self.acknowledged = []
        self.names = []
        self.stopping = threading.Event()
        self.threads = []
        self.windows = []  # (start, end) in which registrations may get the documented 503

    def start(self):
        for target in (self.reader, self.reader, self.writer):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self.threads.append(thread)

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(30)
        self.threads = []
        self.stopping = threading.Event()

    def record(self, started, kind, ok, status, millis, note=""):
        with self.lock:
            self.results.append((started, kind, ok, status, millis, note))

    def request(self, connection, method, path, body=None, headers=None):
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()

    def reader(self):
        rng = random.Random()
        connection = None
        while not self.stopping.is_set():
            with self.lock:
                pool = self.seeded or self.ids
                id_ = rng.choice(pool) if pool else None
                names = list(self.names[-50:])
            if id_ is None:
                time.sleep(0.1)
                continue
            search = names and rng.random() < 0.1
            if search:
                first, last = rng.choice(names)
                path = "/user/search?first_name=" + quote(first[:2]) + "&last_name=" + quote(last[:2]) + "&limit=10"
                kind = "search"
            else:
                path, kind = "/user/" + id_, "read"
            started = time.time()
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(*API, timeout=10)
                status, _ = self.request(connection, "GET", path)
                self.record(started, kind, status == 200, status, (time.time() - started) * 1000)
            except (OSError, http.client.HTTPException) as ex:
                self.record(started, kind, False, 0, (time.time() - started) * 1000, repr(ex))
                connection = None
            time.sleep(0.04)

    def writer(self):
        rng = random.Random()
        turn = 0
        while not self.stopping.is_set():
            first = "Readme" + "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
            last = "Tester" + "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
            body = json.dumps({"first_name": first, "second_name": last, "birthdate": "1991-02-03",
                               "password": "readme-password"})
            address = WRITER_ADDRESSES[turn % len(WRITER_ADDRESSES)]
            turn += 1
            started = time.time()
            try:
                connection = http.client.HTTPConnection(*API, timeout=20, source_address=(address, 0))
                status, payload = self.request(connection, "POST", "/user/register", body,
                                               {"Content-Type": "application/json"})
                connection.close()
                ok = 200 <= status < 300
                note = ""
                if ok:
                    id_ = json.loads(payload)["user_id"]
                    with self.lock:
                        self.ids.append(id_)
                        self.acknowledged.append(id_)
                        self.names.append((first, last))
                else:
                    try:
                        note = json.loads(payload).get("title", "")
                    except ValueError:
                        note = payload[:100].decode("utf-8", "replace")
                self.record(started, "register", ok, status, (time.time() - started) * 1000, note)
            except (OSError, http.client.HTTPException) as ex:
                self.record(started, "register", False, 0, (time.time() - started) * 1000, repr(ex))
            time.sleep(1.0)

    def allowed(self, result):
        started, kind, ok, status, _, note = result
        return (kind == "register" and status == 503 and note in ("Database unavailable", "Outcome unknown")
                and any(a <= started <= b + GRACE_SECONDS for a, b in self.windows))

    def figures(self, since=None, until=None):
        with self.lock:
            chosen = [r for r in self.results if (since is None or r[0] >= since) and (until is None or r[0] <= until)]
        lines = []
        for kind in ("read", "search", "register"):
            of_kind = [r for r in chosen if r[1] == kind]
            if not of_kind:
                continue
            failed = [r for r in of_kind if not r[2] and not self.allowed(r)]
            allowed = [r for r in of_kind if not r[2] and self.allowed(r)]
            millis = sorted(r[4] for r in of_kind if r[2])
            pct = (lambda q: millis[min(len(millis) - 1, int(q * len(millis)))]) if millis else (lambda q: 0)
            lines.append(f"{kind:8} {len(of_kind):6} sent, {len(failed)} failed"
                         + (f", {len(allowed)} refused in the failover window (documented)" if allowed else "")
                         + (f"; ms p50 {pct(0.5):.1f} p99 {pct(0.99):.1f} max {millis[-1]:.1f}" if millis else ""))
        return lines

    def failures(self):
        with self.lock:
            return [r for r in self.results if not r[2] and not self.allowed(r)]


def quote(text):
    from urllib.parse import quote as q
    return q(text, safe="")


# ---------------------------------------------------------------------------- processes


def port_in_use(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def ready(url=READINESS):
    try:
        from urllib.request import urlopen
        with urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def start_background(text, name):
    out = (WORK / f"{name}.log").open("ab")
    log(f"$ {text}    [in its own terminal: {WORK / (name + '.log')}]")
    return subprocess.Popen(["bash", "-c", text], cwd=COPY, stdout=out, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)


def await_ready(process, url, name):
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if ready(url):
            return
        if process.poll() is not None:
            raise Failure(f"{name} exited with {process.returncode} before it was ready:\n" + tail(WORK / f"{name}.log"))
        time.sleep(1)
    raise Failure(f"{name} was not ready within {READY_TIMEOUT} s:\n" + tail(WORK / f"{name}.log"))


def interrupt(process, timeout=120):
    """Ctrl-C in the process's terminal: SIGINT to its process group."""
    try:
        os.killpg(process.pid, signal.SIGINT)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise Failure(f"process {process.pid} did not stop within {timeout} s of SIGINT")


def tail(path, lines=40):
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def owner_pid():
    text = (COPY / ".data" / "cluster.lock").read_text()
    return int(re.search(r"^pid=(\d+)$", text, re.MULTILINE).group(1))


def lock_free():
    with open(COPY / ".data" / "cluster.lock", "r+") as f:
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        fcntl.lockf(f, fcntl.LOCK_UN)
        return True


def postmasters():
    pids = {}
    for pid_file in sorted((COPY / ".data" / "cluster").glob("*/postmaster.pid")):
        pids[pid_file.parent.name] = int(pid_file.read_text().split("\n", 1)[0])
    return pids


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


class Failure(Exception):
    pass


# ---------------------------------------------------------------------------- the run


class Run:
    def __init__(self):
        self.load = Load()
        self.service = None
        self.page = PAGES[0]
        self.phases = []  # (name, start, end)
        self.skipped = []
        self.ran = 0
        self.background = []

    def service_up(self):
        if self.service is not None and self.service.poll() is None and ready():
            log(f"$ {SERVICE_COMMAND}    [runs in its own terminal since the first block]")
            return
        self.service = start_background(SERVICE_COMMAND, "service")
        self.background.append(self.service)
        started = time.monotonic()
        await_ready(self.service, READINESS, "service")
        log(f"service ready after {time.monotonic() - started:.0f} s (pid of its owner: {owner_pid()})")
        self.ran += 1
        if not self.load.threads:
            self.load.start()

    def run_block(self, start, block):
        runnable, servers = [], []
        for command in block:
            if command.skip:
                self.skipped.append((f"{self.page}:{command.line}", command.text.splitlines()[0], command.skip))
                log(f"skipped {self.page} line {command.line}: {command.text.splitlines()[0]}  ({command.skip})")
            elif command.kind() == "service":
                self.flush(runnable, start)
                runnable = []
                self.service_up()
            elif command.kind() == "ci":
                log(f"$ {command.text.split('#')[0].strip()}    [CI's own command: .ci/run ran it before this test]")
            elif command.kind() == "server":
                self.flush(runnable, start)
                runnable = []
                servers.append(self.server(command))
            else:
                runnable.append(command)
        self.flush(runnable, start)
        for process in servers:
            log(f"stopping the server started at {self.page} line {start} (pid {process.pid})")
            interrupt(process)

    def server(self, command):
        name = f"server-{command.line}"
        process = start_background(command.text, name)
        self.background.append(process)
        port = re.search(r"MANAGEMENT_SERVER_PORT=(\d+)", command.text)
        url = f"http://127.0.0.1:{port.group(1) if port else 8081}/actuator/health/readiness"
        await_ready(process, url, name)
        api = re.search(r"SERVER_PORT=(\d+)", command.text)
        if api:
            probe = f"http://127.0.0.1:{api.group(1)}/user/search?first_name=Readme&last_name=Tester&limit=1"
            from urllib.request import urlopen
            with urlopen(probe, timeout=10) as response:
                if response.status != 200:
                    raise Failure(f"the server of {self.page} line {command.line} answered {response.status}")
        log(f"the server of {self.page} line {command.line} is ready and answers")
        self.ran += 1
        return process

    def flush(self, block, start):
        if not block:
            return
        script = ["set -o pipefail", "cd " + sh_quote(str(COPY)),
                  "curl() { command curl --fail-with-body --show-error \"$@\"; }",
                  'readme_run() { echo "::: begin $1"; eval "$2"; local rc=$?; echo; echo "::: end $1 $rc";'
                  ' [ $rc -eq 0 ] || exit $rc; }']
        for command in block:
            script.append(f"readme_run {command.line} \"$(cat <<'__README_COMMAND__'\n{command.text}\n"
                          f"__README_COMMAND__\n)\"")
        texts = {c.line: c.text for c in block}
        process = subprocess.Popen(["bash", "-c", "\n".join(script)], cwd=COPY, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace",
                                   start_new_session=True)
        # A command that hangs without a word is ended all the same.
        watchdog = threading.Timer(min(BLOCK_TIMEOUT, max(1, DEADLINE - time.monotonic())),
                                   lambda: os.killpg(process.pid, signal.SIGKILL))
        watchdog.start()
        try:
            self.follow(process, texts, start)
        finally:
            watchdog.cancel()

    def follow(self, process, texts, start):
        began, output, current = {}, [], None
        with LOG.open("a") as logfile:
            for line in process.stdout:
                logfile.write(line)
                begin = re.match(r"^::: begin (\d+)$", line.strip())
                end = re.match(r"^::: end (\d+) (\d+)$", line.strip())
                if begin:
                    current = int(begin.group(1))
                    began[current] = time.time()
                    output = []
                    log("$ " + texts[current])
                    if FAILOVER.search(texts[current]):
                        self.load.windows.append((began[current], float("inf")))
                elif end:
                    number, rc = int(end.group(1)), int(end.group(2))
                    finished = time.time()
                    if FAILOVER.search(texts[number]) and self.load.windows:
                        self.load.windows[-1] = (began[number], finished)
                    self.phases.append((f"{self.page} line {number}: {texts[number].splitlines()[0][:90]}",
                                        began[number], finished))
                    shown = [l for l in output if l.strip()][-12:]
                    for l in shown:
                        print("    " + l.rstrip()[:300], flush=True)
                    log(f"exit {rc} after {finished - began[number]:.1f} s")
                    self.ran += 1
                    if rc != 0:
                        process.wait()
                        raise Failure(f"{self.page} line {number} failed with exit status {rc}:\n{texts[number]}\n"
                                      + "".join(output[-40:]))
                    current = None
                else:
                    output.append(line)
        process.wait()
        if process.returncode != 0:
            raise Failure(f"the block at {self.page} line {start} ended with exit status {process.returncode}")

    def epilogue(self):
        """What the README promises about the cluster's owner, checked the hard way."""
        owner = owner_pid()
        log(f"a second `{SERVICE_COMMAND}` while the service runs must be refused, naming process {owner}")
        second = subprocess.run(["bash", "-c", SERVICE_COMMAND], cwd=COPY, capture_output=True, text=True,
                                timeout=300, stdin=subprocess.DEVNULL)
        (WORK / "second-service.log").write_text(second.stdout + second.stderr)
        if second.returncode == 0 or f"already run by process {owner}" not in second.stdout + second.stderr:
            raise Failure(f"the second service was not refused (exit {second.returncode}):\n"
                          + tail(WORK / "second-service.log"))
        if not ready():
            raise Failure("the running service stopped answering after a second start was refused")
        log(f"refused with exit status {second.returncode}, naming process {owner}; the service still answers")

        self.load.stop()
        with self.load.lock:
            acknowledged = list(self.load.acknowledged)
            seeded = list(self.load.seeded)
        sample = acknowledged + random.Random(7).sample(seeded, min(200, len(seeded)))
        before = postmasters()
        log(f"kill -9 of the service (pid {owner}); its nodes {before} must run on")
        os.kill(owner, signal.SIGKILL)
        self.service.wait(120)
        orphans = {node: pid for node, pid in before.items() if alive(pid)}
        if not orphans:
            raise Failure("no node survived the service's kill -9: nothing to take over")
        log(f"nodes still running without their owner: {orphans}")

        self.service = None
        self.phases.append(("restart after kill -9", time.time(), None))
        self.service_up()
        self.phases[-1] = (self.phases[-1][0], self.phases[-1][1], time.time())
        left = [pid for pid in orphans.values() if alive(pid)]
        if left:
            raise Failure(f"the orphaned postmasters {left} still run after the restart took the cluster over")
        self.load.stop()
        with urlopen_json("http://127.0.0.1:8081/actuator/health/nodes") as health:
            nodes = health["details"]["nodes"]
        down = [address for address, node in nodes.items() if node.get("state") != "up"]
        primary = [node for node in nodes.values() if node.get("role") == "primary"]
        streaming = [r for r in primary[0].get("replicas", []) if r.get("state") == "streaming"] if primary else []
        if down or len(primary) != 1 or len(streaming) != 2:
            raise Failure(f"after the restart the nodes are not 1 primary + 2 streaming standbys: {nodes}")
        missing = []
        connection = http.client.HTTPConnection(*API, timeout=10)
        for id_ in sample:
            connection.request("GET", "/user/" + id_)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                missing.append((id_, response.status))
        if missing:
            raise Failure(f"{len(missing)} of {len(sample)} acknowledged or seeded ids missing after the restart: "
                          f"{missing[:5]}")
        log(f"after the restart: 1 primary + 2 streaming standbys, and all {len(acknowledged)} acknowledged "
            f"registrations and {len(sample) - len(acknowledged)} sampled seeded ids answer 200")

        running = postmasters()
        log(f"Ctrl-C in the service's terminal; nodes {running} must stop")
        interrupt(self.service)
        left = [pid for pid in running.values() if alive(pid)]
        if left or not lock_free():
            raise Failure(f"after Ctrl-C: postmasters still alive {left}, lock free: {lock_free()}")
        log("the service and all three nodes stopped; the cluster's lock is free")

    def seeded_ids(self):
        ids_file = COPY / ".data" / "user-ids.csv"
        if ids_file.exists():
            ids = [l.strip() for l in ids_file.read_text().splitlines()[1:] if l.strip()]
            with self.load.lock:
                self.load.seeded = random.Random(1).sample(ids, min(20000, len(ids)))


class urlopen_json:
    def __init__(self, url):
        self.url = url

    def __enter__(self):
        from urllib.request import urlopen
        with urlopen(self.url, timeout=10) as response:
            return json.load(response)

    def __exit__(self, *exc):
        return False


def sh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def copy_tree():
    if COPY.exists():
        shutil.rmtree(COPY)
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    count = 0
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = COPY / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            count += 1
    return count


def main():
    # Ctrl-C is part of the test: a process started in the background by a shell without job
    # control (`cmd &` in a script, nohup) inherits SIGINT ignored, and an ignored signal stays
    # ignored across exec, so the services it starts would never see the test's Ctrl-C. With a
    # handler of its own, every child starts with the default disposition.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parsed = [(page, start, commands(start, lines))
              for page in PAGES for start, lines in blocks((ROOT / page).read_text(), page)]
    if sys.argv[1:] == ["--list"]:
        for page, start, block in parsed:
            for command in block:
                how = f"not run in CI: {command.skip}" if command.skip else command.kind()
                print(f"{page + ':' + str(command.line):26} {how:10.60} {command.text.splitlines()[0][:100]}")
        return 0
    WORK.mkdir(parents=True, exist_ok=True)
    for old in WORK.glob("*.log"):
        old.unlink()
    LOG.write_text("")
    busy = [p for p in PORTS if port_in_use(p)]
    if busy:
        print(f"readme-test: ports {busy} are in use; the README's commands need them (is a service running?). "
              "Stop it and run again.", file=sys.stderr)
        return 2
    log(f"{', '.join(PAGES)}: {len(parsed)} bash blocks, {sum(len(c) for _, _, c in parsed)} commands")
    log(f"copied {copy_tree()} files to {COPY}")
    run = Run()
    started = time.time()
    outcome = "passed"
    try:
        for page, start, block in parsed:
            seeding = any(SEEDING.search(c.text) and not c.skip for c in block)
            run.page = page
            run.run_block(start, block)
            if seeding:
                run.seeded_ids()
        run.epilogue()
        failures = run.load.failures()
        if failures:
            raise Failure(f"{len(failures)} requests of the load failed, first: {failures[:5]}")
    except Failure as ex:
        outcome = "FAILED"
        log(f"FAILED: {ex}")
    finally:
        run.load.stop()
        for process in run.background:
            if process.poll() is None:
                interrupt(process)
        # Nodes a killed service left behind, if the run failed before taking them over.
        for node, pid in postmasters().items():
            if alive(pid):
                log(f"stopping node {node} (postmaster {pid}), left running by this test")
                os.kill(pid, signal.SIGINT)
    report = [f"README test {outcome}: {run.ran} commands run, {len(run.skipped)} marked not run in CI, "
              f"{time.time() - started:.0f} s", "", "Not run in CI, as the README marks them:"]
    report += [f"  {where}: {text}  ({why})" for where, text, why in run.skipped]
    report += ["", "The load beside the commands, all of it:"] + ["  " + l for l in run.load.figures()]
    for name, begin, end in run.phases:
        if end is not None and (end - begin >= 5 or FAILOVER.search(name)):
            figures = run.load.figures(begin, end)
            if figures:
                report += ["", f"During {name} ({end - begin:.0f} s):"] + ["  " + l for l in figures]
    REPORT.write_text("\n".join(report) + "\n")
    print("\n".join(report), flush=True)
    return 0 if outcome == "passed" else 1


if __name__ == "__main__":
    sys.exit(main())
