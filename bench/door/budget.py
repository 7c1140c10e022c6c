#!/usr/bin/env python3
"""The front door's budget: where an accepted webhook's microseconds go (issue 15, point 4;
docs/BENCHMARKS.md, "The front door's budget").

For each body (the real pull_request payload, minified as GitHub sends it, and the same
without its "*_url" fields, as bench/ingress/run.sh makes them):

1. `door_stages` times each stage of accepting one webhook alone, on one thread: the
   signature, the body's hash, the parse, the whole handler, the compression, and the inbox's
   fsync'd group commit (its CPU and its wall time per delivery).
2. The HTTP floor (`http_floor`: gatehouse's HTTP server answering 202, no work) and then
   `gatehouse serve` (durable, as shipped, on a fresh SQLite file) each take wrk's load
   (-t2, CONNECTIONS connections, SECONDS seconds, bench/ingress/post.lua). Over wrk's whole
   run it reads the CPU of every server thread (/proc/PID/task/*/stat), of wrk (its rusage)
   and of the whole machine (/proc/stat), and divides by the requests wrk counted.

Works in BUILD/bench-door/budget.XXXX, removed at the end. Prints, per body, the CPU per
request by thread group for the floor and for serve, wrk's, the machine's busy share, and the
stage table: what the floor does not do, microsecond by microsecond. Nothing is asserted.

usage: budget.py [--seconds S] [--connections N] [--build DIR] [--body small|full|both]
                 [--gatehouse BIN]
--gatehouse runs another gatehouse binary (or a wrapper that execs one) as the server, to
compare builds one after the other on the same machine.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
from benchkit import start  # noqa: E402
from webhook_body import make_body  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FIXTURE = os.path.join(ROOT, "..", "shared", "fixtures", "github-webhooks", "pull_request",
                       "synchronize.payload.json")
TICK = os.sysconf("SC_CLK_TCK")
SECRET = "door-budget-secret"


def thread_ticks(pid):
    """{thread name: utime+stime ticks} summed over the process's threads with that name."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except FileNotFoundError:
            continue  # a thread that ended between the listing and the read
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[name] = out.get(name, 0) + int(fields[11]) + int(fields[12])
    return out


def machine_ticks():
    """(busy, total) ticks of all cores; iowait counts as idle."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    idle = fields[3] + fields[4]
    total = sum(fields[:8])
    return total - idle, total


def group_of(name):
    if name.startswith("gh-http"):
        return "HTTP threads"
    if name == "gh-inbox":
        return "inbox writer"
    if name == "gh-router":
        return "router"
    return "other threads"


def measure(argv, prefix, env, body, seconds, connections, work):
    """Runs the server under wrk; returns the rate, p99 and the per-request CPU figures, all
    over wrk's whole run: the server's threads and the machine from just before wrk starts to
    just after it exits, wrk's own CPU from its rusage, divided by the requests wrk counted."""
    log = os.path.join(work, prefix + ".log")
    server, url = start(argv, log, env=env, prefix=prefix)
    wrk = None
    try:
        base = url[:-len("/webhook")] if url.endswith("/webhook") else url
        wenv = dict(os.environ, GATEHOUSE_BENCH_BODY=body,
                    GATEHOUSE_BENCH_SIGNATURE=signature_of(body))
        s0, m0 = thread_ticks(server.pid), machine_ticks()
        wrk = subprocess.Popen(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                                "-s", os.path.join(ROOT, "bench", "ingress", "post.lua"), base],
                               stdout=subprocess.PIPE, text=True, env=wenv)
        out = wrk.stdout.read()  # until wrk exits
        _, _, usage = os.wait4(wrk.pid, 0)
        wrk.returncode = 0  # reaped here, not by Popen
        s1, m1 = thread_ticks(server.pid), machine_ticks()
    finally:
        if wrk is not None and wrk.returncode is None:
            wrk.kill()
        server.terminate()
        try:
            server.wait(timeout=600)
        except subprocess.TimeoutExpired:
            server.kill()
    m = re.search(r"requests (\d+) in ([\d.]+) s: (\d+)/s; latency p50 ([\d.]+) ms, "
                  r"p90 [\d.]+ ms, p99 ([\d.]+) ms.*non-2xx (\d+)", out)
    if not m:
        sys.exit(f"budget: wrk printed no summary:\n{out}")
    requests, rate = int(m.group(1)), float(m.group(3))
    p99, non2xx = float(m.group(5)), int(m.group(6))
    per_req = lambda seconds_of_cpu: seconds_of_cpu * 1e6 / requests  # noqa: E731
    groups = {}
    for name in set(s0) | set(s1):  # a thread gone by s1 lost its ticks with it: rare, small
        delta = s1.get(name, s0.get(name, 0)) - s0.get(name, 0)
        groups[group_of(name)] = groups.get(group_of(name), 0) + delta
    return {
        "rate": rate, "p99": p99, "non2xx": non2xx,
        "server": {g: per_req(t / TICK) for g, t in groups.items()},
        "wrk": per_req(usage.ru_utime + usage.ru_stime),
        "busy": (m1[0] - m0[0]) / max(1, m1[1] - m0[1]),
    }


def signature_of(body):
    out = subprocess.check_output(["openssl", "dgst", "-sha256", "-hmac", SECRET, "-r", body],
                                  text=True)
    return "sha256=" + out.split()[0]


def report(kind, size, floor, serve, stages):
    cores = os.cpu_count()
    print(f"\n== {kind} body, {size:,} bytes")
    print(f"{'':34}{'HTTP floor':>14}{'gatehouse serve':>18}")
    print(f"{'rate':34}{floor['rate']:>12,.0f}/s{serve['rate']:>16,.0f}/s")
    print(f"{'p99':34}{floor['p99']:>11.2f} ms{serve['p99']:>15.2f} ms")
    print("CPU per request (us):")
    total = {"floor": 0.0, "serve": 0.0}
    for g in ("HTTP threads", "inbox writer", "router", "other threads"):
        f, s = floor["server"].get(g, 0.0), serve["server"].get(g, 0.0)
        total["floor"] += f
        total["serve"] += s
        print(f"  {g:32}{f:>14.1f}{s:>18.1f}")
    print(f"  {'= the server':32}{total['floor']:>14.1f}{total['serve']:>18.1f}")
    print(f"  {'wrk (the load, same cores)':32}{floor['wrk']:>14.1f}{serve['wrk']:>18.1f}")
    print(f"{'machine busy':34}{floor['busy'] * 100:>13.0f}%{serve['busy'] * 100:>17.0f}%")
    for who, r in (("floor", floor), ("serve", serve)):
        cost = total[who] + r["wrk"]
        print(f"{who}: {cores} cores x {r['busy'] * 100:.0f}% busy / {cost:.1f} us per request "
              f"(server + wrk) = {cores * r['busy'] / cost * 1e6:,.0f}/s "
              f"(measured {r['rate']:,.0f}/s)")
    http_extra = serve["server"].get("HTTP threads", 0) - floor["server"].get("HTTP threads", 0)
    print(f"serve's HTTP threads beyond the floor's: {http_extra:.1f} us per request; "
          f"door_stages, alone on one thread: handler {stages['whole handler']:.1f} + compression "
          f"{stages['compression']:.1f} = {stages['whole handler'] + stages['compression']:.1f} us")
    print(f"serve's inbox writer: {serve['server'].get('inbox writer', 0):.1f} us per request; "
          f"door_stages: {stages['writer CPU']:.1f} us of CPU per delivery in groups of 10")
    if floor["non2xx"] or serve["non2xx"]:
        print(f"WARNING: non-2xx answers: floor {floor['non2xx']}, serve {serve['non2xx']}")


def stages_of(text):
    """door_stages' figures by a short name."""
    names = {"the whole handler": "whole handler", "compression": "compression",
             "writer CPU per delivery": "writer CPU"}
    out = {}
    for line in text.splitlines():
        for label, key in names.items():
            if label in line:
                out[key] = float(re.search(r"([\d.]+) us", line).group(1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--body", choices=["small", "full", "both"], default="both")
    ap.add_argument("--gatehouse", help="the gatehouse binary (default BUILD/gatehouse)")
    args = ap.parse_args()
    if args.seconds < 2:
        sys.exit("budget: --seconds must be at least 2")
    for b in ("gatehouse", "http_floor", "door_stages"):
        if not os.access(os.path.join(args.build, b), os.X_OK):
            sys.exit(f"budget: {args.build}/{b} is missing (ninja -C {args.build} gatehouse "
                     "http_floor door_stages)")
    os.makedirs(os.path.join(args.build, "bench-door"), exist_ok=True)
    work = tempfile.mkdtemp(prefix="budget.", dir=os.path.join(args.build, "bench-door"))
    try:
        run(args, work)
    finally:
        # The runs' databases hold every request served (gigabytes); the figures are printed.
        shutil.rmtree(work, ignore_errors=True)


def run(args, work):
    kinds = ["small", "full"] if args.body == "both" else [args.body]
    bodies = {k: make_body(FIXTURE, os.path.join(work, f"{k}.json"), k) for k in kinds}
    print(f"budget: {os.cpu_count()} cores, {os.uname().release}, wrk -t2 -c{args.connections} "
          f"-d{args.seconds}s; work in {work}", flush=True)
    for kind, body in bodies.items():
        text = subprocess.check_output([os.path.join(args.build, "door_stages"), "--body", body,
                                        "--dir", work], text=True)
        print(text, end="", flush=True)
        stages = stages_of(text)
        floor = measure([os.path.join(args.build, "http_floor")], "http_floor", None, body,
                        args.seconds, args.connections, work)
        db = os.path.join(work, f"{kind}.db")
        gatehouse = args.gatehouse or os.path.join(args.build, "gatehouse")
        serve = measure([gatehouse, "serve", "--db", db, "--listen", "127.0.0.1:0",
                         "--log-level", "warn"], "gatehouse",
                        dict(os.environ, GATEHOUSE_WEBHOOK_SECRET=SECRET), body, args.seconds,
                        args.connections, work)
        for suffix in ("", "-wal", "-shm"):  # every request served: gigabytes
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        report(kind, os.path.getsize(body), floor, serve, stages)

if __name__ == "__main__":
    main()
