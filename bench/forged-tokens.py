#!/usr/bin/env python3
"""Registration latency with and without forged consistency tokens hitting the service meanwhile.

A forged `Consistency-Token` (a position far ahead, signed with no key of the service's) must be
refused with 400 before any node is asked, so that anonymous clients cannot move reads onto the
primary, which registrations need (issue 35). This measures what a registering user sees:
each round registers --registrations users from --writers keep-alive connections, once alone and
once while --forged GETs of existing ids with a forged token arrive from --concurrency connections,
spread over the same time; the order of the two alternates from round to round. It prints each
round's registration p99 and the medians of both, their ratio, the forged GETs' statuses (all must be
400) and whether any node was marked down (the nodes' health details).

The service runs on a small embedded cluster of its own (ports 19080/19081, cluster 19432-19434;
build first: ./mvnw -q -DskipTests package test-compile), with the per-address registration
limit off. The machine is calibrated in the same run (pgbench -S on that cluster's replicas).

  python3 bench/forged-tokens.py --rounds 5
"""
import argparse
import collections
import http.client
import json
import random
import string
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
    if response.status != 200:
        fail(f"registration answered {response.status}: {payload[:300]!r}")
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
                ids.append(user)
        connection.close()

    threads = [threading.Thread(target=writer) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, ids


def forged_gets(total, concurrency, seconds, ids, statuses):
    """`total` GETs with a forged token from `concurrency` connections, each spacing its own evenly
    over `seconds`; their statuses counted into `statuses`."""
    lock = threading.Lock()

    def client(share):
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        gap = seconds / share
        for _ in range(share):
            began = time.perf_counter()
            connection.request("GET", f"/user/get/{random.choice(ids)}", headers={"Consistency-Token": FORGED[0]})
            response = connection.getresponse()
            response.read()
            with lock:
                statuses[response.status] += 1
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
            time.sleep(max(0.0, gap - (time.perf_counter() - began)))
        connection.close()

    shares = [total // concurrency + (1 if i < total % concurrency else 0) for i in range(concurrency)]
    threads = [threading.Thread(target=client, args=(share,)) for share in shares if share]
    for thread in threads:
        thread.start()
    return threads


def nodes_down():
    connection = http.client.HTTPConnection("127.0.0.1", MANAGEMENT_PORT, timeout=10)
    connection.request("GET", "/actuator/health/nodes")
    details = json.loads(connection.getresponse().read()).get("details", {})
    return sorted(host for host, node in details.get("nodes", {}).items() if node.get("state") != "up")


def p99(values):
    ordered = sorted(values)
    return ordered[max(0, -(-len(ordered) * 99 // 100) - 1)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--registrations", type=int, default=300, help="per measurement")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--forged", type=int, default=2000, help="forged GETs per measurement")
    parser.add_argument("--concurrency", type=int, default=200, help="connections of the forged GETs")
    args = parser.parse_args()

    base = ROOT / "target/forged-tokens"
    with service(base / "service.log", [*own_cluster(base / "cluster", CLUSTER_PORT, PORT, MANAGEMENT_PORT),
                                        "--app.auth.throttle.registrations-per-address=0",
                                        "--management.endpoint.health.show-details=always"],
                 port=PORT, management_port=MANAGEMENT_PORT):
        calibration = calibrate(CLUSTER_PORT, (CLUSTER_PORT + 1, CLUSTER_PORT + 2))
        log(f"calibration: pgbench point select {calibration} TPS")
        log("warm-up: registrations alone, not counted")
        warm, ids = registrations(args.registrations, args.writers)
        alone, forged, statuses, down = [], [], collections.Counter(), set()
        for n in range(args.rounds):
            for with_forged in ((False, True) if n % 2 == 0 else (True, False)):
                threads = []
                if with_forged:
                    # Spread over about as long as the registrations took alone in the warm-up.
                    seconds = max(1.0, sum(warm) / 1000 / args.writers)
                    threads = forged_gets(args.forged, args.concurrency, seconds, ids, statuses)
                latencies, _ = registrations(args.registrations, args.writers)
                for thread in threads:
                    thread.join()
                (forged if with_forged else alone).append(p99(latencies))
                down.update(nodes_down())
                log(f"round {n + 1}, {'with' if with_forged else 'without'} forged GETs: registration p99 "
                    f"{p99(latencies):.1f} ms over {len(latencies)}")
        ratio = median(forged) / median(alone)
        print(f"registration p99 without forged GETs: {median(alone):.1f} ms {spread(alone)}")
        print(f"registration p99 with {args.forged} forged GETs at concurrency {args.concurrency}: "
              f"{median(forged):.1f} ms {spread(forged)}")
        print(f"ratio of the medians: {ratio:.2f}")
        print(f"forged GETs' statuses: {dict(statuses)}")
        print(f"nodes marked down at any check: {sorted(down) or 'none'}")
        print(f"calibration: {calibration} TPS")
        if set(statuses) != {400}:
            fail("a forged GET was answered other than 400")
        if down:
            fail("a node was marked down")


if __name__ == "__main__":
    main()
