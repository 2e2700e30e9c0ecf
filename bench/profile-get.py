#!/usr/bin/env python3
"""Where the CPU of a keep-alive GET goes, in servers side by side: async-profiler on each.

Each target is a server already listening on a loopback port (NAME=PORT), as for
bench/cpu-per-request.py: the service and the controls of bench/controls. For each in turn, it
warms the server with the same closed-loop load (wrk, 2 threads, 16 connections, GET /user/{id} of
random seeded ids), attaches async-profiler (tools.profiler:async-profiler from Maven Central,
unpacked under target/) through the JDK's attach API, samples the CPU (user and kernel stacks)
every --interval while wrk runs --seconds more, and writes to --out: NAME.collapsed (the stacks),
NAME.html (a flame graph) and summary.md, a table of the CPU per request of each stage of the
request path in microseconds, all threads and user space alone, one column per target.

Samples are CPU time, so a stage's figure is its samples × interval ÷ the requests wrk counted
while the profiler ran. A profiler's figures are estimates: the CPU per request to compare is
bench/cpu-per-request.py's; this tool says where it goes. One target at a time: the machine's two
cores are shared by the server, its database and wrk.
"""
import argparse
import collections
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path

from common import ROOT, fail, listening_pid, log, need, wrk

VERSION = "3.0"
JAR_URL = f"https://repo1.maven.org/maven2/tools/profiler/async-profiler/{VERSION}/async-profiler-{VERSION}.jar"
HOME = ROOT / "target" / "async-profiler"
ATTACH = Path(__file__).resolve().parent / "Attach.java"

# The stages of the request path: a sample belongs to a stage when one of its frames contains the
# text (a stage holds the stages below it, as a flame graph's towers do).
STAGES = [
    ("all threads", None),
    ("Tomcat's worker threads", "ThreadPoolExecutor.runWorker"),
    ("Tomcat's poller (ready sockets)", "NioEndpoint$Poller.run"),
    ("JIT compilers", "CompileBroker"),
    ("garbage collector", "G1"),
    ("the HTTP exchange (Http11Processor.service)", "Http11Processor.service"),
    ("reading the request line and headers", "Http11InputBuffer.parse"),
    ("the servlet filters and the servlet", "ApplicationFilterChain.doFilter"),
    ("the DispatcherServlet", "DispatcherServlet.doService"),
    ("finding the handler", "DispatcherServlet.getHandler"),
    ("resolving the handler's arguments", "InvocableHandlerMethod.getMethodArgumentValues"),
    ("the handler and what it calls", "InvocableHandlerMethod.doInvoke"),
    ("the JDBC query (JdbcTemplate.execute)", "JdbcTemplate.execute"),
    ("the PostgreSQL driver's statement", "PgPreparedStatement.executeQuery"),
    ("writing the body (message converters)", "writeWithMessageConverters"),
    ("JSON serialisation (Jackson)", "tools/jackson"),
    ("socket writes (NioSocketWrapper.doWrite)", "NioSocketWrapper.doWrite"),
]


def library():
    lib = HOME / "linux-x64" / "libasyncProfiler.so"
    if not lib.exists():
        HOME.mkdir(parents=True, exist_ok=True)
        jar = HOME / f"async-profiler-{VERSION}.jar"
        log(f"downloading {JAR_URL}")
        urllib.request.urlretrieve(JAR_URL, jar)
        with zipfile.ZipFile(jar) as zipped:
            zipped.extract("linux-x64/libasyncProfiler.so", HOME)
    return lib


def profiler(pid, lib, command):
    """One async-profiler command to the JVM of pid, through the attach API (Attach.java)."""
    done = subprocess.run(["java", str(ATTACH), str(pid), str(lib), command], capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"async-profiler {command.split(',')[0]} in pid {pid}: {done.stderr.strip()}")


def stages(collapsed, requests, interval_us):
    """Per stage: (all, user) microseconds per request."""
    totals = collections.Counter()
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        user = not frames[-1].endswith("_[k]")
        for name, text in STAGES:
            if text is None or any(text in frame for frame in frames):
                totals[(name, "all")] += int(count)
                if user:
                    totals[(name, "user")] += int(count)
    return {name: (totals[(name, "all")] * interval_us / requests, totals[(name, "user")] * interval_us / requests)
            for name, _ in STAGES}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="+", metavar="NAME=PORT")
    parser.add_argument("--warm-up", type=int, default=180, help="seconds of load before profiling [180]")
    parser.add_argument("--seconds", type=int, default=30, help="seconds profiled [30]")
    parser.add_argument("--interval", type=int, default=500, help="CPU sampling interval in µs [500]")
    parser.add_argument("--out", type=Path, default=ROOT / "target/profiles", help="[target/profiles]")
    args = parser.parse_args()
    need("wrk", "ss", "java")
    lib = library()
    args.out.mkdir(parents=True, exist_ok=True)
    results = {}
    for target in args.targets:
        name, _, port = target.partition("=")
        pid = listening_pid(int(port))
        url = f"http://127.0.0.1:{port}"
        log(f"{name}: {args.warm_up} s of warm-up load on pid {pid}")
        wrk(url, args.warm_up)
        collapsed, html = args.out / f"{name}.collapsed", args.out / f"{name}.html"
        profiler(pid, lib, f"start,event=cpu,interval={args.interval}us")
        started = time.monotonic()
        run = wrk(url, args.seconds)
        profiler(pid, lib, f"dump,file={html},flamegraph,title={name}: GET /user/get/{{id}}")
        profiler(pid, lib, f"stop,file={collapsed},collapsed")
        log(f"{name}: {run['requests']} requests in {time.monotonic() - started:.0f} s profiled, "
            f"{run['rps']:.0f}/s, p99 {run['p99_ms']} ms")
        results[name] = (run, stages(collapsed, run["requests"], args.interval))
    names = list(results)
    lines = [f"Sampled every {args.interval} µs of CPU for {args.seconds} s under wrk -t2 -c16, after "
             f"{args.warm_up} s of warm-up; µs of CPU per request, all threads / user space alone.", "",
             "| stage | " + " | ".join(names) + " |", "|---|" + "---|" * len(names),
             "| requests/s | " + " | ".join(f"{results[n][0]['rps']:,.0f}" for n in names) + " |"]
    for stage, _ in STAGES:
        lines.append(f"| {stage} | " + " | ".join(
            f"{results[n][1][stage][0]:.1f} / {results[n][1][stage][1]:.1f}" for n in names) + " |")
    (args.out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
