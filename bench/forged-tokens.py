#!/usr/bin/env python3
"""Registration latency with and without forged consistency tokens hitting the service meanwhile.

A forged `Consistency-Token` (a position far ahead, signed with no key of the service's) must be
refused with 400 before any node is asked, so that anonymous clients cannot move reads onto the
primary, which registrations need (issue 35). This measures what a registering user sees:
each round registers --registrations users from --writers keep-alive connections, once alone, once
while --forged GETs of existing ids with a forged token arrive from --concurrency connections,
spread over the time the registrations take, and twice with as many GETs without a token, the same
way: the controls, which tell what any such traffic costs on the same two cores from what a forged
token adds. The first control keeps its connections; the second asks for each to be closed after
its GET, as Tomcat closes one after each 400. The GETs come from wrk (bench/paced-gets.lua). The
order of the four rotates from round to round. It prints each round's registration p99, the medians
and their ratios to alone, the service's and wrk's CPU per GET, the GETs' statuses (every forged one
must be 400) and whether any node was marked down (the nodes' health details).

The service runs on a small embedded cluster of its own (ports 19080/19081, cluster 19432-19434;
build first: ./mvnw -q -DskipTests package test-compile), with the per-address registration
limit off. The machine is calibrated in the same run (pgbench -S on that cluster's replicas).

  python3 bench/forged-tokens.py --rounds 8
"""
import argparse
import collections
import os
import http.client
import json
import random
import re
import resource
import signal
import string
import subprocess
import threading
import time

from common import ROOT, calibrate, fail, log, median, own_cluster, service, spread

PORT, MANAGEMENT_PORT, CLUSTER_PORT = 19080, 19081, 19432
# The position far ahead, under the key id the service really signs with (filled in from a
# registration's token), with a MAC made up: what a client that read one token would try.
FORGED = ["7fffffffffffffff.{kid}.AAAAAAAAAAAAAAAAAAAAAA"]


def name(length=10):
    return "".join(random.choice(string.ascii_letters) for _ in range(length))


def register(connection):
    body = json.dumps({"first_name": name(), "second_name": name(), "birthdate": "1990-01-01",
                       "biography": "forged-token bench", "city": "Here", "password": "bench-password-1"})
    began = time.perf_counter()
    connection.request("POST", "/user/register", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    payload = response.read()
    elapsed = (time.perf_counter() - began) * 1000
    if response.status == 503:
        # Admission control at capacity: an answer, counted, and its time is in the p99.
        if response.getheader("Connection", "").lower() == "close":
            connection.close()
        return elapsed, None
    if response.status != 200:
        # From a writer thread: fail() would end that thread alone.
        print(f"registration answered {response.status}: {payload[:300]!r}", flush=True)
        os._exit(1)
    if "{kid}" in FORGED[0]:
        FORGED[0] = FORGED[0].format(kid=response.getheader("Consistency-Token").split(".")[1])
    return elapsed, json.loads(payload)["user_id"]


def registrations(count, writers):
    """`count` registrations from `writers` connections; their latencies in ms and the new ids."""
    latencies, ids, lock = [], [], threading.Lock()
    remaining = iter(range(count))

    def writer():
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        while True:
            with lock:
                if next(remaining, None) is None:
                    break
            elapsed, user = register(connection)
            with lock:
                latencies.append(elapsed)
                if user:
                    ids.append(user)
        connection.close()

    threads = [threading.Thread(target=writer) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, ids


def gets(total, concurrency, seconds, ids, statuses, forged, client_cpu, close=False):
    """`total` GETs of existing ids from `concurrency` keep-alive connections, each spacing its own
    evenly over `seconds` from a random start within its first gap (so that they do not arrive in
    waves); with a forged token or none, and asking for the connection to be closed after each
    GET (`close`) or not; their statuses counted into `statuses` when the returned
    join() is called, and wrk's CPU seconds appended to `client_cpu`. wrk sends them (bench/paced-gets.lua): a client in C, so that what is measured
    is mostly the service's cost of them, not a load generator's, on the same two cores."""
    ids_file = ROOT / "target/forged-tokens/ids.txt"
    ids_file.write_text("\n".join(ids) + "\n")
    process = subprocess.Popen(
        ["wrk", "-t1", f"-c{concurrency}", f"-d{int(seconds * 2) + 10}s", "--timeout", "10s", "-s",
         str(ROOT / "bench/paced-gets.lua"), f"http://127.0.0.1:{PORT}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, IDS_FILE=str(ids_file), TOKEN=FORGED[0] if forged else "", CLOSE="1" if close else "0", TOTAL=str(total),
                 SECONDS=str(seconds), CONNECTIONS=str(concurrency)))

    def join():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        process.stderr.readline()  # "done", or "" if wrk ended by itself
        process.send_signal(signal.SIGINT)
        out = process.communicate()[0]
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        client_cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        counted = {int(status): int(count) for status, count in re.findall(r"^status (\d+) (\d+)$", out, re.M)}
        if not counted:
            fail(f"wrk answered nothing countable:\n{out}")
        errors = re.search(r"Socket errors: (.*)", out)
        if errors:
            log(f"wrk: socket errors: {errors.group(1)}")
        statuses.update(counted)

    return join


def nodes_down():
    connection = http.client.HTTPConnection("127.0.0.1", MANAGEMENT_PORT, timeout=10)
    connection.request("GET", "/actuator/health/nodes")
    details = json.loads(connection.getresponse().read()).get("details", {})
    return sorted(host for host, node in details.get("nodes", {}).items() if node.get("state") != "up")


def cpu_seconds(pid):
    """User and system CPU of a process so far, in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p99(values):
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 99 // 100) - 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--registrations", type=int, default=300, help="per measurement")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--forged", type=int, default=2000, help="forged GETs per measurement")
    parser.add_argument("--concurrency", type=int, default=200, help="connections of the GETs")
    args = parser.parse_args()

    base = ROOT / "target/forged-tokens"
    with service(base / "service.log", [*own_cluster(base / "cluster", CLUSTER_PORT, PORT, MANAGEMENT_PORT),
                                        "--app.auth.throttle.registrations-per-address=0",
                                        "--management.endpoint.health.show-details=always"],
                 port=PORT, management_port=MANAGEMENT_PORT) as process:
        calibration = calibrate(CLUSTER_PORT, (CLUSTER_PORT + 1, CLUSTER_PORT + 2))
        log(f"calibration: pgbench point select {calibration} TPS")
        log("warm-up: registrations alone, not counted")
        _, ids = registrations(args.registrations, args.writers)
        # And the JIT's for the GETs: without this the first rounds measured their compilation, not
        # the refusal (docs/reports/load-testing.md, runs 3 and 4 of the forged tokens).
        log("warm-up: GETs with a forged token and without, not counted")
        for _ in range(3):
            for forged in (True, False):
                gets(20 * args.forged, args.concurrency, 5, ids, collections.Counter(), forged, [])()
        # The GETs are spread over as long as the registrations take alone, once warm: all of
        # them arrive while the registrations run.
        began = time.monotonic()
        registrations(args.registrations, args.writers)
        seconds = time.monotonic() - began
        log(f"warm registrations alone took {seconds:.1f} s: each measurement's GETs are spread over that")
        p99s = {"alone": [], "forged": [], "plain": [], "closing": []}
        statuses = {variant: collections.Counter() for variant in p99s if variant != "alone"}
        down = set()
        refused = collections.Counter()
        service_cpu = {variant: [] for variant in p99s}
        client_cpu = {variant: [] for variant in statuses}
        variants = list(p99s)
        for n in range(args.rounds):
            for variant in variants[n % 4:] + variants[:n % 4]:
                join = None if variant == "alone" else gets(args.forged, args.concurrency, seconds, ids,
                                                            statuses[variant], variant == "forged",
                                                            client_cpu[variant], variant == "closing")
                cpu, began = cpu_seconds(process.pid), time.monotonic()
                latencies, registered = registrations(args.registrations, args.writers)
                took = time.monotonic() - began
                if join:
                    join()
                gets_took = f", the GETs' {time.monotonic() - began:.1f} s" if join else ""
                service_cpu[variant].append(cpu_seconds(process.pid) - cpu)
                p99s[variant].append(p99(latencies))
                refused[variant] += len(latencies) - len(registered)
                down.update(nodes_down())
                log(f"round {n + 1}, {variant}: registration p99 {p99(latencies):.1f} ms over {len(latencies)}, "
                    f"{len(latencies) - len(registered)} refused 503; the registrations took {took:.1f} s{gets_took}")
        alone, forged, plain, closing = p99s["alone"], p99s["forged"], p99s["plain"], p99s["closing"]
        print(f"registration p99 alone: {median(alone):.1f} ms {spread(alone)}")
        print(f"registration p99 with {args.forged} GETs with a forged token at concurrency {args.concurrency}: "
              f"{spread(forged)} ms, {median(forged) / median(alone):.2f} of alone")
        print(f"registration p99 with {args.forged} GETs without a token, the same way: "
              f"{spread(plain)} ms, {median(plain) / median(alone):.2f} of alone")
        print(f"registration p99 with {args.forged} GETs without a token, each on a new connection (the client "
              f"closes it, as Tomcat does after a 400): {spread(closing)} ms, {median(closing) / median(alone):.2f} of alone")
        for variant in ("forged", "plain", "closing"):
            extra = [(cpu - alone_cpu) * 1e6 / args.forged for cpu, alone_cpu in zip(service_cpu[variant],
                                                                                     service_cpu["alone"])]
            print(f"CPU per GET ({variant}): service {median(extra):.0f} µs {spread(extra, 0)} over what the "
                  f"registrations alone took; wrk {median(client_cpu[variant]) * 1e6 / args.forged:.0f} µs")
        print(f"registrations refused 503 (admission control at capacity): {dict(refused)}")
        print(f"statuses of the GETs with a forged token: {dict(statuses['forged'])}; "
              f"without: {dict(statuses['plain'])}; without, closing: {dict(statuses['closing'])}")
        print(f"nodes marked down at any check: {sorted(down) or 'none'}")
        print(f"calibration: {calibration} TPS")
        if set(statuses["forged"]) != {400}:
            fail("a GET with a forged token was answered other than 400")
        if down:
            fail("a node was marked down")


if __name__ == "__main__":
    main()
