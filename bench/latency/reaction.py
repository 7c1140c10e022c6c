#!/usr/bin/env python3
"""Reaction latency (issue 15, point 2; docs/BENCHMARKS.md "Reaction latency").

From the webhook that makes a PR ready (its last required check turning green) to gatehouse's
merge call, both read from the simulator's effect log (its clock, millisecond stamps): the
check run's `check_run` effect (the simulator sends its webhooks as it records the effect) and
the PR's `merge` effect by the App.

One run starts `gatehouse-sim serve` and `gatehouse serve` (App mode, a fresh key pair, a fresh
SQLite file, default settings but --debounce-ms), builds a world of REPOS repositories whose
policy is "check ci green, one approval, autonomy auto", BACKGROUND other PRs that never become
ready (no approval) and TARGETS approved PRs whose `ci` is still missing, waits until gatehouse
is at rest, then turns one target's `ci` green every GAP seconds, while (under load) a second
thread adds check runs to random background PRs at RATE webhooks per second. Every one of
those webhooks is a real pass for gatehouse (live reads, a verdict, a check run of its own).

usage: reaction.py [--load RATE] [--targets N] [--background N] [--repos N] [--debounce-ms MS]
                   [--gap S] [--report progress|verdicts] [--build DIR]
Prints one line per target and the p50/p99 with the target the issue names, then the
rate-limit cost of the measured phase (a busy repository: the targets and, with --load, the
background check runs), counted by the simulator: costing requests per pass and per webhook.
"""
import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
from benchkit import (POLICY_CI_AND_ONE_APPROVAL, Client, app_key_pair, start_sim, percentile,  # noqa
                      start, status, wait_at_rest)
from benchkit import stop as stop_all  # noqa: E402

POLICY = POLICY_CI_AND_ONE_APPROVAL


def effects(sim, kind):
    return sim.call("GET", "/_sim/effects?kind=" + kind) or []


def at_ms(stamp):
    # 2026-12-04T06:55:01.123Z
    t = time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")
    return (time.mktime(t) - time.timezone) * 1000 + int(stamp[20:23])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--load", type=float, default=0.0, help="background webhooks per second")
    ap.add_argument("--targets", type=int, default=40)
    ap.add_argument("--background", type=int, default=200)
    ap.add_argument("--repos", type=int, default=10)
    ap.add_argument("--debounce-ms", type=int, default=1000)
    ap.add_argument("--gap", type=float, default=0.5, help="seconds between two targets")
    ap.add_argument("--report", default="progress", choices=["progress", "verdicts"],
                    help="serve's --report: what gatehouse's check run tells")
    ap.add_argument("--build", default="build")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="reaction.", dir=args.build)
    key, pub = app_key_pair(work)
    env = dict(os.environ, GATEHOUSE_WEBHOOK_SECRET="bench-" + os.urandom(8).hex())
    sim_p, sim_url = start_sim(args.build, work, env, pub)
    procs = [sim_p]
    try:
        sim = Client(sim_url)
        owners = [("acme", f"repo{i}") for i in range(args.repos)]
        for i, (o, r) in enumerate(owners):
            sim.call("POST", "/_sim/repos", {"owner": o, "name": r, "installation_id": 1 + i % 4,
                                             "members": ["bob"],
                                             "files": {".github/gatehouse.yml": POLICY}})
        background, targets = [], []
        for i in range(args.background + args.targets):
            o, r = owners[i % len(owners)]
            pr = sim.call("POST", f"/_sim/repos/{o}/{r}/pulls",
                          {"title": f"change {i}", "author": "alice"})
            if i >= args.background:
                targets.append((o, r, pr["number"], pr["head"]["sha"]))
            else:
                background.append((o, r, pr["number"]))
        for o, r, n, _ in targets:
            sim.call("POST", f"/_sim/repos/{o}/{r}/pulls/{n}/reviews",
                     {"user": "bob", "event": "APPROVE"})

        db = os.path.join(work, "g.db")
        gh = os.path.join(args.build, "gatehouse")
        serve_env = dict(env, GATEHOUSE_GITHUB_APP_ID="4242",
                         GATEHOUSE_GITHUB_PRIVATE_KEY_FILE=key,
                         GATEHOUSE_GITHUB_API_URL=sim_url)
        serve_p, hook = start([gh, "serve", "--db", db, "--listen", "127.0.0.1:0",
                               "--admin-listen", "127.0.0.1:0", "--log-level", "warn",
                               "--debounce-ms", str(args.debounce_ms), "--report",
                               args.report],
                              os.path.join(work, "serve.log"), serve_env, "gatehouse")
        procs.append(serve_p)
        sim.call("PUT", "/_sim/webhook-url", {"url": hook})
        print(f"reaction: {args.repos} repositories, {args.background} background PRs, "
              f"{args.targets} targets, load {args.load:g} webhooks/s, debounce "
              f"{args.debounce_ms} ms, {os.cpu_count()} cores; gatehouse at {hook}", flush=True)
        # The world's creation was delivered too (opened PRs, reviews): let it settle.
        wait_at_rest(gh, db)
        # The rate-limit cost of what follows (a busy repository), on GitHub's side.
        sim.call("DELETE", "/_sim/requests")
        before = status(gh, db)

        stop = threading.Event()
        sent = [0]

        def load():
            c = Client(sim_url)
            rnd = random.Random(7)
            period = 1.0 / args.load
            next_at = time.monotonic()
            while not stop.is_set():
                o, r, n = rnd.choice(background)
                c.call("POST", f"/_sim/repos/{o}/{r}/check-runs",
                       {"pr": n, "name": f"lint-{rnd.randrange(5)}", "conclusion": "success"})
                sent[0] += 1
                next_at += period
                time.sleep(max(0.0, next_at - time.monotonic()))

        loader = threading.Thread(target=load, daemon=True)
        if args.load > 0:
            loader.start()
            time.sleep(5)  # the load reaches its steady state first
        for o, r, n, _ in targets:
            sim.call("POST", f"/_sim/repos/{o}/{r}/check-runs",
                     {"pr": n, "name": "ci", "conclusion": "success"})
            time.sleep(args.gap)
        # Every target merged (or give up after a minute).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            merged = {(e["repo"], e["number"]) for e in effects(sim, "merge")
                      if e["who"].startswith("installation:") and e["status"] == 200}
            if all((f"{o}/{r}", n) in merged for o, r, n, _ in targets):
                break
            time.sleep(0.5)
        stop.set()
        wait_at_rest(gh, db)
        counted = sim.call("GET", "/_sim/requests")
        tally = counted["total"]
        after = status(gh, db)
        passes = (after["counters"].get("work.passes_completed", 0) -
                  before["counters"].get("work.passes_completed", 0))
        webhooks = after.get("received", 0) - before.get("received", 0)

        merges = {}
        for e in effects(sim, "merge"):
            if e["who"].startswith("installation:") and e["status"] == 200:
                merges.setdefault((e["repo"], e["number"]), e)
        green = {}  # (repo, head sha) -> the effect of the `ci` run that made it ready
        for e in effects(sim, "check_run"):
            if e.get("detail", "").startswith("ci:completed:success"):
                green.setdefault((e["repo"], e["sha"]), e)
        lat, missing = [], []
        for o, r, n, sha in targets:
            k = (f"{o}/{r}", n)
            if k not in merges or (k[0], sha) not in green:
                missing.append(k)
                continue
            lat.append((at_ms(merges[k]["at"]) - at_ms(green[(k[0], sha)]["at"]), f"{k[0]}#{n}"))
        for v, name in lat:
            print(f"  {name}: {v:.0f} ms")
        lat = [v for v, _ in lat]
        p50, p99 = percentile(lat, 0.5), percentile(lat, 0.99)
        limit50, limit99 = args.debounce_ms + 100, args.debounce_ms + 500
        print(f"reaction latency: {len(lat)} merges, {len(missing)} missing; "
              f"p50 {p50:.0f} ms (target <= {limit50}), p99 {p99:.0f} ms "
              f"(target <= {limit99}), max {max(lat) if lat else float('nan'):.0f} ms; "
              f"background webhooks sent {sent[0]}")
        print(f"rate limit (report: {args.report}): {tally['requests']} GitHub requests, "
              f"{tally['costing']} costing, over {passes} passes and {webhooks} webhooks: "
              f"{tally['costing'] / max(passes, 1):.2f} costing per pass (target <= 2.0), "
              f"{tally['costing'] / max(webhooks, 1):.2f} per webhook (target <= 1.0)")
        for e in sorted(counted["endpoints"], key=lambda e: -e["costing"])[:6]:
            print(f"  {e['costing']:6d} costing  {e['method']} {e['endpoint']}")
        print(json.dumps({"load": args.load, "debounce_ms": args.debounce_ms,
                          "report": args.report, "passes": passes, "webhooks": webhooks,
                          "requests": tally["requests"], "costing": tally["costing"],
                          "targets": args.targets, "background": args.background,
                          "merges": len(lat), "missing": len(missing), "p50_ms": p50,
                          "p99_ms": p99, "max_ms": max(lat) if lat else None,
                          "background_sent": sent[0]}))
        return 0 if not missing else 1
    finally:
        stop_all(procs)


if __name__ == "__main__":
    sys.exit(main())
