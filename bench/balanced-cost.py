#!/usr/bin/env python3
"""What app.db.routing=balanced costs a GET, against the per-node mode, in one sitting.

Two instances of the service on one embedded cluster (.data/, seeded the README's way): the first
started as `./mvnw spring-boot:run` starts it (per-node: each replica's own address), the second
with the embedded cluster off and its replicas behind one address that balances each new
connection over both, as a Kubernetes Service does: kube-proxy's way, an iptables DNAT rule in
the nat table's OUTPUT chain that sends each new connection to 127.0.0.1:--balanced-port on to
replica1 or replica2 at random (statistic module, probability 1/2), so that the balancing costs
the kernel what it costs there and no process of its own. bench/cpu-per-request.py then gives both
the same closed-loop GETs in turn, per-node last, so that its ratios are balanced over per-node.
The rules are removed when the run ends.

Needs root and iptables (Debian's `iptables` package); exits 2 saying so without them.

    python3 bench/balanced-cost.py --rounds 5 --out target/balanced-cost
"""
import argparse
import base64
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from common import ROOT, fail, log, psql, service

PRIMARY, REPLICA1, REPLICA2 = 15432, 15433, 15434


def iptables(action, port):
    """Adds (-A) or deletes (-D) the two rules that balance port over the replicas."""
    rules = [["-m", "statistic", "--mode", "random", "--probability", "0.5", "-j", "DNAT",
              "--to-destination", f"127.0.0.1:{REPLICA1}"],
             ["-j", "DNAT", "--to-destination", f"127.0.0.1:{REPLICA2}"]]
    for rule in rules:
        subprocess.run(["iptables", "-t", "nat", action, "OUTPUT", "-p", "tcp", "-d", "127.0.0.1", "--dport",
                        str(port), *rule], check=action == "-A")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=15, help="length of each measured wrk run [%(default)s]")
    parser.add_argument("--warm-up", type=int, default=60, help="seconds of wrk load per instance first [%(default)s]")
    parser.add_argument("--balanced-port", type=int, default=15440, help="the replicas' balanced address [%(default)s]")
    parser.add_argument("--read-pool", type=int, default=16,
                        help="the balanced instance's read pool (per-node: 8 per replica) [%(default)s]")
    parser.add_argument("--out", type=Path, default=ROOT / "target/balanced-cost")
    args = parser.parse_args()
    if os.geteuid() != 0 or not shutil.which("iptables"):
        fail("needs root and iptables (apt-get install iptables) for the balanced address", 2)
    if not (ROOT / ".data/user-ids.csv").is_file():
        fail("seed first: the README's seeding command (1,000,000 users into .data/)", 2)
    args.out.mkdir(parents=True, exist_ok=True)
    key = "bench:" + base64.b64encode(secrets.token_bytes(32)).decode()
    balanced = ["--app.cluster.enabled=false", f"--app.db.nodes=127.0.0.1:{PRIMARY}",
                f"--app.db.replicas=127.0.0.1:{args.balanced_port}", "--app.db.routing=balanced",
                "--app.db.migrations=validate", "--server.port=8090", "--management.server.port=8091",
                # The endpoint stands for both replicas: its pool holds what their two pools hold
                # in the per-node mode (8 each), so that neither instance's threads wait for a
                # connection the other has.
                f"--app.db.read-pool.maximum-size={args.read_pool}",
                f"--app.auth.token-keys={key}"]
    iptables("-A", args.balanced_port)
    try:
        with service(args.out / "per-node.log", []):
            with service(args.out / "balanced.log", balanced, port=8090, management_port=8091):
                # Where the read connections went, as each replica counts them (a client's socket
                # shows the balanced address, not the replica's): the per-node instance holds its
                # read pool's 8 on each, the balanced one 8 split between them.
                for port in (REPLICA1, REPLICA2):
                    count = psql(port, "-c", "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                                 "'user-profiles'")
                    log(f"the services' connections on port {port}: {count} (8 of them the per-node instance's)")
                with open(args.out / "cpu-per-request.txt", "w") as out:
                    status = subprocess.run([sys.executable, str(ROOT / "bench/cpu-per-request.py"), "--rounds",
                                             str(args.rounds), "--seconds", str(args.seconds), "--warm-up",
                                             str(args.warm_up), "balanced=8090", "per-node=8080"],
                                            stdout=subprocess.PIPE, text=True)
                    out.write(status.stdout)
                print(status.stdout)
                return status.returncode
    finally:
        iptables("-D", args.balanced_port)


if __name__ == "__main__":
    sys.exit(main())
