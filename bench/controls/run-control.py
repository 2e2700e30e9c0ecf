#!/usr/bin/env python3
"""Starts one benchmark control server in the background and prints its PID once it is ready.

  python3 bench/controls/run-control.py spring-jdbc|vertx-pg     # then: kill <pid>

Builds the control when its jar is missing or older than its sources, refuses a port already taken
(the readiness probe would otherwise answer for someone else's server), starts `java -jar` from the
control's own directory (so that no stray ./application.properties of the caller's is read), waits
until GET /user/<zero uuid> answers 404 (which needs the replicas: the query has to run) and prints
the PID; the server's output goes to NAME/target/control.log. Environment passed to the control:
PORT, PGPASSWORD, and REPLICAS (vertx-pg) or SPRING_DATASOURCE_URL (spring-jdbc) for other replicas.
"""
import argparse
import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import TARGET_GROUP, ZERO_ID, http_status, joining  # noqa: E402 (bench/common.py, found through the path above)

CONTROLS = {"spring-jdbc": ("spring-jdbc-control.jar", 18090), "vertx-pg": ("vertx-pg-control.jar", 18091)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=CONTROLS)
    parser.add_argument("--java", default="java")
    parser.add_argument("--java-opts", default="", help='extra JVM options, e.g. "-Xmx512m"')
    parser.add_argument("--timeout", type=int, default=120, help="seconds to wait for the 404 [%(default)s]")
    args = parser.parse_args()
    jar_name, default_port = CONTROLS[args.name]
    project, port = HERE / args.name, int(os.environ.setdefault("PORT", str(default_port)))
    jar = project / "target" / jar_name
    if socket.socket().connect_ex(("127.0.0.1", port)) == 0:
        sys.exit(f"run-control: port {port} is already in use; stop that process or choose another PORT=...")
    sources = [p for p in [project / "pom.xml", *(project / "src").rglob("*")] if p.is_file()]
    if not jar.exists() or any(p.stat().st_mtime > jar.stat().st_mtime for p in sources):
        print(f"run-control: building {args.name} ...", file=sys.stderr)
        if subprocess.run([str(HERE.parent.parent / "mvnw"), "-f", str(project / "pom.xml"), "-q", "package"],
                          stdout=sys.stderr).returncode:
            sys.exit(f"run-control: build of {args.name} failed")
    log = project / "target" / "control.log"
    with log.open("w") as out:
        server = subprocess.Popen([args.java, *shlex.split(args.java_opts), "-jar", str(jar)], cwd=project,
                                  stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                  # the bench tools' side of the target (bench/common.py, TARGET_GROUP)
                                  preexec_fn=joining(TARGET_GROUP))
    deadline, code = time.monotonic() + args.timeout, None
    try:  # stopped on every way out but ready, Ctrl-C included, so that no server is left behind
        while time.monotonic() < deadline and server.poll() is None:
            code = http_status(f"http://127.0.0.1:{port}/user/{ZERO_ID}")
            if code == 404:
                print(f"run-control: {args.name} ready, pid {server.pid}, port {port} (log {log})", file=sys.stderr)
                print(server.pid)
                return
            time.sleep(0.5)
        print(log.read_text(errors="replace")[-3000:], file=sys.stderr)
        sys.exit(f"run-control: {args.name} not ready within {args.timeout} s (last status {code}); stopped pid {server.pid}")
    finally:
        if code != 404:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
