#!/usr/bin/env python3
"""Registration latency with and without forged consistency tokens hitting the service meanwhile.

A forged `Consistency-Token` (a position far ahead, signed with no key of the service's) must be
refused with 400 before any node is asked, so that anonymous clients cannot move reads onto the
primary, which registrations need (issue 35). This measures what a registering user sees:
each round registers --registrations users from --writers keep-alive connections, once alone and
once while --forged GETs of existing ids with a forged token arrive from --concurrency connections,
spread over the same time, and once with as many GETs without a token, the same way: the control,
which tells what any such traffic costs on the same two cores from what a forged token adds. The
order of the three rotates from round to round. It prints each round's registration p99, the medians
of the three and their ratios to the first, the GETs' statuses (every forged one must be 400) and
whether any node was marked down (the nodes' health details).

The service runs on a small embedded cluster of its own (ports 19080/19081, cluster 19432-19434;
build first: ./mvnw -q -DskipTests package test-compile), with the per-address registration
limit off. The machine is calibrated in the same run (pgbench -S on that cluster's replicas).

  python3 bench/forged-tokens.py --rounds 5
"""
import argparse
import asyncio
import collections
import os
import http.client
import multiprocessing
import json
import random
import re
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


def gets(total, concurrency, seconds, ids, statuses, forged):
    """`total` GETs of existing ids from `concurrency` keep-alive connections, each spacing its own
    evenly over `seconds` from a random start within its first gap (so that they do not arrive in
    waves); with a forged token or none; their statuses counted into `statuses` when the returned
    join() is called. One asyncio loop in a process of its own: in this process its work would hold
    the interpreter's lock and delay the registering threads' own timing."""
    results = multiprocessing.Queue()
    process = multiprocessing.Process(target=_gets, args=(total, concurrency, seconds, ids, forged, FORGED[0],
                                                          results))
    process.start()

    def join():
        statuses.update(results.get())
        process.join()

    return join


def _gets(total, concurrency, seconds, ids, forged, forged_token, results):
    statuses = collections.Counter()
    token = f"Consistency-Token: {forged_token}\r\n" if forged else ""

    async def read_body(reader, head):
        length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        if length:
            await reader.readexactly(int(length.group(1)))
        elif re.search(rb"(?i)\r\ntransfer-encoding: *chunked", head):
            while (size := int((await reader.readuntil(b"\r\n")).strip(), 16)) > 0:
                await reader.readexactly(size + 2)
            await reader.readuntil(b"\r\n")

    async def client(share):
        reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
        gap = seconds / share
        await asyncio.sleep(random.uniform(0, gap))
        for _ in range(share):
            began = time.perf_counter()
            writer.write(f"GET /user/get/{random.choice(ids)} HTTP/1.1\r\nHost: 127.0.0.1\r\n{token}\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            statuses[int(head.split(b" ", 2)[1])] += 1
            await read_body(reader, head)
            if re.search(rb"(?i)\r\nconnection: *close", head):
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
            await asyncio.sleep(max(0.0, gap - (time.perf_counter() - began)))
        writer.close()

    async def clients():
        shares = [total // concurrency + (1 if i < total % concurrency else 0) for i in range(concurrency)]
        await asyncio.gather(*(client(share) for share in shares if share))

    asyncio.run(clients())
    results.put(statuses)


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
    parser.add_argument("--concurrency", type=int, default=200, help="connections of the GETs")
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
        # Spread over about as long as the registrations took alone in the warm-up.
        seconds = max(1.0, sum(warm) / 1000 / args.writers)
        p99s = {"alone": [], "forged": [], "plain": []}
        statuses = {"forged": collections.Counter(), "plain": collections.Counter()}
        down = set()
        refused = collections.Counter()
        variants = list(p99s)
        for n in range(args.rounds):
            for variant in variants[n % 3:] + variants[:n % 3]:
                join = None if variant == "alone" else gets(args.forged, args.concurrency, seconds, ids,
                                                            statuses[variant], variant == "forged")
                latencies, registered = registrations(args.registrations, args.writers)
                if join:
                    join()
                p99s[variant].append(p99(latencies))
                refused[variant] += len(latencies) - len(registered)
                down.update(nodes_down())
                log(f"round {n + 1}, {variant}: registration p99 {p99(latencies):.1f} ms over {len(latencies)}, "
                    f"{len(latencies) - len(registered)} refused 503")
        alone, forged, plain = p99s["alone"], p99s["forged"], p99s["plain"]
        print(f"registration p99 alone: {median(alone):.1f} ms {spread(alone)}")
        print(f"registration p99 with {args.forged} GETs with a forged token at concurrency {args.concurrency}: "
              f"{spread(forged)} ms, {median(forged) / median(alone):.2f} of alone")
        print(f"registration p99 with {args.forged} GETs without a token, the same way: "
              f"{spread(plain)} ms, {median(plain) / median(alone):.2f} of alone")
        print(f"registrations refused 503 (admission control at capacity): {dict(refused)}")
        print(f"statuses of the GETs with a forged token: {dict(statuses['forged'])}; "
              f"without: {dict(statuses['plain'])}")
        print(f"nodes marked down at any check: {sorted(down) or 'none'}")
        print(f"calibration: {calibration} TPS")
        if set(statuses["forged"]) != {400}:
            fail("a GET with a forged token was answered other than 400")
        if down:
            fail("a node was marked down")


if __name__ == "__main__":
    main()
