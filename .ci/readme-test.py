#!/usr/bin/env python3
"""The README as a test: every ```bash block of README.md and of the pages it sends a reader to for
commands (PAGES), run verbatim and in order in a copy of the working tree, as a newcomer would type
them. `./mvnw spring-boot:run` is the service in its own terminal, started once and waited for, and
stopped with Ctrl-C at the end; a `java -jar` server runs in the background until its block ends; a
block or line marked `# not run in CI: <reason>` is skipped and listed. docs/testing.md has the rest.

    python3 .ci/readme-test.py            # CI runs it after ./mvnw verify
    python3 .ci/readme-test.py --list     # only shows what it would run, and how

Needs the README's ports free (8080, 8081, 8090, 8091, 15432-15434) and what its commands need (a
JDK, curl, psql, wrk). Writes target/readme/commands.log and target/readme/report.txt.
Exit status 0 passed, 1 failed, 2 could not run.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

# The service, Gatling and process helpers are the benchmarks' (bench/common.py), shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from common import http_status

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "readme"
COPY = WORK / "repo"
LOG = WORK / "commands.log"
# The README, then the pages it sends a reader to for commands, in the order a newcomer follows
# them: the load tests need the README's seeding, and the failover comes after them.
PAGES = ["README.md", "docs/load-testing.md", "docs/operations.md", "docs/deployment.md"]
PORTS = [8080, 8081, 8090, 8091, 15432, 15433, 15434]
SERVICE = "./mvnw spring-boot:run"
JAR_SERVER = re.compile(r"(^|\s)java -jar \S*user-profiles\S*\.jar(?!.*--app\.failover)")
SKIP_BLOCK = re.compile(r"^#\s*Not run in CI:\s*(.+)$", re.IGNORECASE)
SKIP_LINE = re.compile(r"\s#\s*not run in CI:\s*(.+)$", re.IGNORECASE)
READY_TIMEOUT = 420
BLOCK_TIMEOUT = 1800


class Failure(Exception):
    """A command failed, or what it started did not behave."""


def log(message):
    line = f"[readme {time.strftime('%H:%M:%S')}] {message}"
    print(line, flush=True)
    with LOG.open("a") as f:
        f.write(line + "\n")


def blocks(text, page):
    """The ```bash blocks of a page: (line number of the first command line, [lines])."""
    found, current, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
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
    """The logical commands of a block, (line, text, kind, skip reason): continuation lines
    joined, comment lines dropped; a block marked not run in CI is one skipped command."""
    skip_block = SKIP_BLOCK.match(lines[0].strip()) if lines else None
    if skip_block:
        text = "\n".join(l for l in lines[1:] if l.strip() and not l.lstrip().startswith("#"))
        return [(start, text, "run", skip_block.group(1))]
    result, pending = [], []
    for offset, line in enumerate(lines):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending.append((start + offset, line))
        if line.rstrip().endswith("\\"):
            continue
        text = "\n".join(l for _, l in pending)
        bare = re.sub(r"\s+#.*$", "", text).strip()
        kind = ("service" if bare == SERVICE else "ci" if bare == "./mvnw verify"
                else "server" if JAR_SERVER.search(text) else "run")
        skip = SKIP_LINE.search(pending[-1][1])
        result.append((pending[0][0], text, kind, skip.group(1) if skip else None))
        pending = []
    return result


def await_ready(process, url, name):
    deadline = time.monotonic() + READY_TIMEOUT
    while http_status(url) != 200:
        if process.poll() is not None or time.monotonic() > deadline:
            why = f"exited with {process.returncode}" if process.poll() is not None else "was not ready in time"
            lines = (WORK / f"{name}.log").read_text(errors="replace").splitlines()[-40:]
            raise Failure(f"{name} {why}:\n" + "\n".join(lines))
        time.sleep(1)


def interrupt(process, timeout=120):
    """Ctrl-C in the process's terminal: SIGINT to its process group."""
    try:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise Failure(f"process {process.pid} did not stop within {timeout} s of Ctrl-C")


class Run:
    def __init__(self):
        self.service = None
        self.started = []
        self.ran = 0
        self.skipped = []

    def background(self, text, name):
        """A command in its own terminal: a session of its own, so that Ctrl-C reaches all of it."""
        out = WORK / f"{name}.log"
        log(f"$ {text}    [in its own terminal: {out}]")
        process = subprocess.Popen(["bash", "-c", text], cwd=COPY, stdout=out.open("ab"), stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.started.append(process)
        return process

    def block(self, page, start, block):
        script, servers = [], []
        for line, text, kind, skip in block:
            if skip:
                self.skipped.append(f"{page}:{line}: {text.splitlines()[0]}  ({skip})")
                log(f"skipped {page} line {line}: {text.splitlines()[0]}  ({skip})")
            elif kind == "ci":
                log(f"$ {text.split('#')[0].strip()}    [CI's own command: .ci/run ran it before this test]")
            elif kind == "run":
                script.append((line, text))
            else:
                self.shell(page, script)
                script = []
                if kind == "server":
                    servers.append(self.server(line, text))
                elif self.service is not None and self.service.poll() is None:
                    log(f"$ {SERVICE}    [runs in its own terminal since the first block]")
                else:
                    self.service = self.background(SERVICE, "service")
                    await_ready(self.service, "http://127.0.0.1:8081/actuator/health/readiness", "service")
                    self.ran += 1
        self.shell(page, script)
        for process in servers:
            log(f"stopping the server of the block at {page} line {start} (pid {process.pid})")
            interrupt(process)

    def server(self, line, text):
        """A server in the background, ready and answering a search on its API port."""
        process = self.background(text, f"server-{line}")
        management = re.search(r"MANAGEMENT_SERVER_PORT=(\d+)", text)
        await_ready(process, f"http://127.0.0.1:{management.group(1) if management else 8081}"
                    "/actuator/health/readiness", f"server-{line}")
        api = re.search(r"(?<!_)SERVER_PORT=(\d+)", text)
        if api and http_status(f"http://127.0.0.1:{api.group(1)}/user/search?first_name=A&last_name=B&limit=1") != 200:
            raise Failure(f"the server of line {line} does not answer a search on port {api.group(1)}")
        self.ran += 1
        return process

    def shell(self, page, script):
        """Runs commands in one bash, in order, stopping at the first that fails."""
        if not script:
            return
        lines = ["set -o pipefail", 'curl() { command curl --fail-with-body --show-error "$@"; }']
        for line, text in script:
            lines += [f"printf '\\n::: {line}\\n'", f"eval \"$(cat <<'__README__'\n{text}\n__README__\n)\" || exit $?"]
        texts, output, current = dict(script), [], None
        process = subprocess.Popen(["bash", "-c", "\n".join(lines)], cwd=COPY, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True, errors="replace",
                                   start_new_session=True)
        # A command that hangs without a word is ended all the same.
        watchdog = threading.Timer(BLOCK_TIMEOUT, lambda: os.killpg(process.pid, signal.SIGKILL))
        watchdog.start()
        with LOG.open("a") as logfile:
            for out in process.stdout:
                marker = re.fullmatch(r"::: (\d+)", out.strip())
                if marker:
                    current, output = int(marker.group(1)), []
                    logfile.flush()
                    log(f"$ {texts[current]}")
                else:
                    logfile.write(out)
                    output.append(out)
        watchdog.cancel()
        if process.wait() != 0:
            raise Failure(f"{page} line {current} failed with exit status {process.returncode}:\n"
                          f"{texts.get(current, '')}\n" + "".join(output[-40:]))
        self.ran += len(script)


def copy_tree():
    if COPY.exists():
        shutil.rmtree(COPY)
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    files = [name for name in listed if name and (ROOT / name).is_file()]
    for name in files:
        (COPY / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, COPY / name)
    return len(files)


def stop_leftover_nodes():
    """Nodes a service that had to be killed left behind."""
    for pid_file in (COPY / ".data" / "cluster").glob("*/postmaster.pid"):
        try:
            pid = int(pid_file.read_text().split("\n", 1)[0])
            os.kill(pid, signal.SIGINT)
            log(f"stopped node {pid_file.parent.name} (postmaster {pid}), left running")
        except (OSError, ValueError):
            pass


def main():
    # A process started in the background by a shell without job control inherits SIGINT ignored,
    # and an ignored signal stays ignored across exec: the service would never see the test's
    # Ctrl-C. With a handler of its own here, every child starts with the default disposition.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    parsed = [(page, start, commands(start, lines))
              for page in PAGES for start, lines in blocks((ROOT / page).read_text(), page)]
    if sys.argv[1:] == ["--list"]:
        for page, _, block in parsed:
            for line, text, kind, skip in block:
                how = f"not run in CI: {skip}" if skip else kind
                print(f"{page + ':' + str(line):26} {how:10.60} {text.splitlines()[0][:100]}")
        return 0
    WORK.mkdir(parents=True, exist_ok=True)
    for old in WORK.glob("*.log"):
        old.unlink()
    busy = [p for p in PORTS if socket.socket().connect_ex(("127.0.0.1", p)) == 0]
    if busy:
        print(f"readme-test: ports {busy} are in use; the README's commands need them (is a service running?). "
              "Stop it and run again.", file=sys.stderr)
        return 2
    log(f"{', '.join(PAGES)}: {len(parsed)} bash blocks, {sum(len(b) for _, _, b in parsed)} commands")
    log(f"copied {copy_tree()} files to {COPY}")
    run, started, outcome = Run(), time.time(), "passed"
    try:
        for page, start, block in parsed:
            run.block(page, start, block)
        if run.service is not None:
            log("Ctrl-C in the service's terminal")
            interrupt(run.service)
    except Failure as ex:
        outcome = "FAILED"
        log(f"FAILED: {ex}")
    finally:
        for process in run.started:
            try:
                interrupt(process)
            except Failure as ex:
                log(str(ex))
        stop_leftover_nodes()
    report = [f"README test {outcome}: {run.ran} commands run, {len(run.skipped)} marked not run in CI, "
              f"{time.time() - started:.0f} s", "", "Not run in CI, as the pages mark them:"]
    report += ["  " + skipped for skipped in run.skipped]
    (WORK / "report.txt").write_text("\n".join(report) + "\n")
    print("\n".join(report), flush=True)
    return 0 if outcome == "passed" else 1


if __name__ == "__main__":
    sys.exit(main())
