#!/usr/bin/env python3
"""Regenerates search-prefixes.csv: 500 (first name, last name) prefix pairs of seeded users.

Takes every 2000th id of the seeding command's ids file (default seed 42, 1,000,000 users), reads
those users' names from a replica, and cuts each name to a prefix whose length (1-4 letters of the
first name, 1-5 of the last name) is derived from the id's SHA-256, so the file is the same on
every run. Names are drawn by real-life frequency at seeding time, so the pairs mix common and rare
names, short and long prefixes.

Usage: python3 gatling/data/make-search-prefixes.py [ids-file] [replica-port]
"""
import hashlib
import os
import subprocess
import sys

ids_file = sys.argv[1] if len(sys.argv) > 1 else ".data/user-ids.csv"
port = sys.argv[2] if len(sys.argv) > 2 else "15433"
with open(ids_file) as f:
    ids = [line.strip() for line in f if line.strip() and line.strip() != "id"]
sample = ids[::2000][:500]
query = "SELECT id, first_name, second_name FROM users WHERE id IN (%s) ORDER BY id" % ",".join(
    "'%s'" % i for i in sample)
out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", port, "-U", "profiles", "profiles", "-At", "-F", "\t",
                      "-c", query], capture_output=True, text=True, check=True,
                     env=dict(os.environ, PGPASSWORD=os.environ.get("PGPASSWORD", "profiles"))).stdout
target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "search-prefixes.csv")
with open(target, "w") as f:
    f.write("first_name,last_name\n")
    for row in out.strip().split("\n"):
        user_id, first, last = row.split("\t")
        h = int(hashlib.sha256(user_id.encode()).hexdigest(), 16)
        f.write("%s,%s\n" % (first[:1 + h % 4], last[:1 + (h // 7) % 5]))
print("wrote", target)
