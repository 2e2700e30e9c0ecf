#!/usr/bin/env python3
"""Schemathesis against the service (build first: ./mvnw package): property-based requests generated from the
OpenAPI document it serves, each answer checked for no 5xx and a documented status, content type,
schema and headers; any finding, or an unexpected error in the service's log, fails the run. The
service runs on a cluster of its own (target/schemathesis) with its default limits except
registrations per address (off, so that generated registrations reach validation and the database);
failed logins stay throttled, so 429 answers are checked too. Schemathesis comes from PyPI into a
virtualenv under target/; its settings are in .ci/schemathesis.toml. A fixed seed: the same cases
every run. JUnit reports: target/schemathesis/report; the service's log: target/schemathesis-service.log.

With --contract FILE, the document is the OTUS Highload Architect API v1.2.0 instead (homework/openapi.json
of github.com/OtusTeam/highload, saved by hand: it is not in the repository and CI does not fetch it), its four
profile operations only, all checks, 100 cases each: what a client written to that contract meets. Its
findings are expected to be only the deviations docs/api.md lists ("OTUS API v1.2.0 compatibility"); the
run is skipped, exit 0, when the file is absent.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

# The service, Gatling and process helpers are the benchmarks' (bench/common.py), shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from common import ROOT, fail, log, own_cluster, service

VERSION = "4.32.5"
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
          "response_headers_conformance,negative_data_rejection")
# The contract's operations this service implements; the rest (friends, posts, dialogs) it does not.
CONTRACT_PATHS = r"^/(login|user/register|user/get/\{id\}|user/search)$"


def post(url, body):
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=18090, help="API port [%(default)s]")
    parser.add_argument("--management-port", type=int, default=18091, help="[%(default)s]")
    parser.add_argument("--cluster-port", type=int, default=28432, help="the primary's; the replicas' the next two [%(default)s]")
    parser.add_argument("--max-examples", type=int, help="cases per operation and phase [40; 100 with --contract]")
    parser.add_argument("--max-time", type=int, help="seconds for the whole run [150; 900 with --contract]")
    parser.add_argument("--contract", help="the OTUS API's openapi.json: run against it instead (see above)")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--venv", default=str(ROOT / "target/schemathesis-venv"))
    args = parser.parse_args()
    if args.contract and not os.path.exists(args.contract):
        log(f"schemathesis: skipped, no contract file at {args.contract}")
        sys.exit(0)
    args.max_examples = args.max_examples or (100 if args.contract else 40)
    args.max_time = args.max_time or (900 if args.contract else 150)
    work, st = ROOT / "target/schemathesis", f"{args.venv}/bin/st"
    version = subprocess.run([st, "--version"], capture_output=True, text=True).stdout.strip() if os.path.exists(st) else ""
    if version != f"st, version {VERSION}":
        log(f"installing schemathesis {VERSION} into {args.venv}")
        shutil.rmtree(args.venv, ignore_errors=True)
        if subprocess.run([sys.executable, "-m", "venv", args.venv]).returncode:
            fail("python3 -m venv failed: install python3-venv", 2)
        subprocess.run([f"{args.venv}/bin/pip", "install", "-q", "--disable-pip-version-check",
                        f"schemathesis=={VERSION}"], check=True)
    work.mkdir(parents=True, exist_ok=True)
    service_log = ROOT / "target/schemathesis-service.log"
    log(f"starting the service on port {args.port} (management {args.management_port})")
    with service(service_log, [*own_cluster(work, args.cluster_port, args.port, args.management_port),
                               "--app.auth.throttle.registrations-per-address=0"], args.port, args.management_port):
        api, document = f"http://127.0.0.1:{args.port}", f"http://127.0.0.1:{args.management_port}/actuator/openapi"
        # One real user, so that GET /user/me is exercised with a valid token too (the others ignore it).
        user = post(f"{api}/user/register", {"first_name": "Schema", "second_name": "Thesis", "birthdate": "1990-01-01",
                                             "password": "schemathesis-password"})["user_id"]
        token = post(f"{api}/login", {"id": user, "password": "schemathesis-password"})["token"]
        if args.contract:
            target = [str(Path(args.contract).resolve()), "--include-path-regex", CONTRACT_PATHS, "--checks", "all"]
            report = work / "contract-report"
        else:
            target = [document, "-H", f"Authorization: Bearer {token}", "--checks", CHECKS]
            report = work / "report"
        log(f"schemathesis: {target[0]}, up to {args.max_examples} cases per operation and phase, "
            f"at most {args.max_time}s, seed {args.seed}")
        status = subprocess.run([st, "--config-file", ".ci/schemathesis.toml", "--no-color", "run", *target, "--url", api,
                                 "--max-examples", str(args.max_examples), "--max-time", str(args.max_time),
                                 "--seed", str(args.seed), "--workers", str(args.workers), "--request-timeout", "10",
                                 "--generation-database", "none", "--report", "junit", "--report-dir", str(report)],
                                cwd=ROOT).returncode
    if "Unexpected error" in service_log.read_text(errors="replace"):
        print(f"the service logged an unexpected error (see {service_log})", file=sys.stderr)
        status = status or 1
    log("schemathesis: no findings" if status == 0 else f"schemathesis: findings (exit {status})")
    sys.exit(status)


if __name__ == "__main__":
    main()
