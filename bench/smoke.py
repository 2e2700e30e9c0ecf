#!/usr/bin/env python3
"""Smoke run of every Gatling simulation against the real service, so that none of them rots: a few
hundred users each, a few seconds each, 0 errors allowed, loose latency thresholds (a cold JVM is
measured). Build first (./mvnw package or verify). The service runs on a cluster of its own (data in
target/smoke, ports below Linux's ephemeral range) and HTTP ports of its own, so that it can run
beside a developer's service or another smoke run.
"""
import argparse
import subprocess

from common import ROOT, fail, log, run_gatling, service, service_command

SIMULATIONS = [("GetUserSimulation", ["-Dusers=300"]), ("SearchUserSimulation", ["-Dusers=200"]),
               ("RegisterUserSimulation", ["-Dusers=40"]),
               ("MixedSimulation", ["-Dusers=300", "-DregisterPercent=5", "-DregisterP99=2000"])]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=18080, help="API port [%(default)s]")
    parser.add_argument("--management-port", type=int, default=18081, help="[%(default)s]")
    parser.add_argument("--cluster-port", type=int, default=27432, help="the primary's; the replicas' the next two [%(default)s]")
    args = parser.parse_args()
    work = ROOT / "target" / "smoke"
    work.mkdir(parents=True, exist_ok=True)
    service_args = [f"--app.cluster.base-dir={work}", f"--app.cluster.primary-port={args.cluster_port}",
                    f"--app.cluster.replica1-port={args.cluster_port + 1}",
                    f"--app.cluster.replica2-port={args.cluster_port + 2}", "--app.cluster.shared-buffers=64MB",
                    f"--server.port={args.port}", f"--management.server.port={args.management_port}",
                    # A few dozen registrations from 16 loopback addresses: raised so that the default
                    # flood limit (20 per address per hour) never decides the outcome.
                    "--app.auth.throttle.registrations-per-address=1000"]
    log("seeding 5,000 users")
    with open(f"{work}-seed.log", "w") as out:
        seeding = subprocess.run([*service_command(), *service_args, "--app.seed.users=5000",
                                  f"--app.seed.ids-file={work}/user-ids.csv"], cwd=ROOT, stdout=out, stderr=out)
    if seeding.returncode:
        fail(f"seeding failed (log {work}-seed.log)")
    log(f"starting the service on port {args.port}")
    with service(f"{work}-service.log", service_args, args.port, args.management_port):
        for simulation, options in SIMULATIONS:
            log(f"{simulation} {' '.join(options)}")
            status, _ = run_gatling(simulation, [
                "-q", f"-DbaseUrl=http://127.0.0.1:{args.port}", f"-DmanagementUrl=http://127.0.0.1:{args.management_port}",
                f"-DidsFile={work}/user-ids.csv", f"-DclusterDir={work}/cluster", "-Dwindow=5", "-Dramp=0", "-Dp99=2000",
                "-DmaxFailed=0", *options])
            if status:
                fail(f"{simulation} failed (exit {status})")
    log("all simulations passed")


if __name__ == "__main__":
    main()
