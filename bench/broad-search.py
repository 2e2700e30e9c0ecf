#!/usr/bin/env python3
"""The broadest searches, one at a time: a one-letter first-name prefix and a one-letter
last-name prefix, drawn at random (seed 7) from the Cyrillic and Latin capitals the seeded
names start with, mixed scripts included (those match nothing). Sends REQUESTS searches
back to back on one keep-alive connection, ignores the first WARMUP, and prints p50, p90,
p99 and max in milliseconds, with how many pages were full (100 rows, the default limit).

    python3 bench/broad-search.py [BASE_URL]      # against a service with the 1M seed

Environment: REQUESTS [3000], WARMUP [1000].
"""
import http.client
import os
import random
import statistics
import sys
import time
import urllib.parse

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
REQUESTS = int(os.environ.get("REQUESTS", "3000"))
WARMUP = int(os.environ.get("WARMUP", "1000"))
LETTERS = "АБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЭЮЯABCDEFGHIJKLMNOPRSTVW"

url = urllib.parse.urlparse(BASE_URL)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
random.seed(7)
times, sizes = [], []
for _ in range(REQUESTS):
    query = urllib.parse.urlencode({"first_name": random.choice(LETTERS), "last_name": random.choice(LETTERS)})
    started = time.perf_counter()
    connection.request("GET", "/user/search?" + query)
    response = connection.getresponse()
    body = response.read()
    times.append((time.perf_counter() - started) * 1000)
    if response.status != 200:
        sys.exit("%s: %d %s" % (query, response.status, body[:200]))
    sizes.append(body.count(b'"id"'))
ms = sorted(times[WARMUP:])
q = statistics.quantiles(ms, n=100)
print("%d searches after %d unmeasured: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms; %d full pages" % (
    len(ms), WARMUP, statistics.median(ms), q[89], q[98], ms[-1], sum(1 for s in sizes[WARMUP:] if s == 100)))
