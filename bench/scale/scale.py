#!/usr/bin/env python3
"""Scale (issue 15, point 3; docs/BENCHMARKS.md "Scale").

A generated world in the simulator — PRS open PRs over REPOS repositories and INSTALLATIONS
installations (one account each) — and `gatehouse serve` started on a fresh SQLite file with
default settings but the sweep interval (App mode, a fresh key pair; nothing was delivered:
gatehouse finds everything through GET /app/installations and the sweep). Measured:

  start-up     from exec to the listening line, and to "caught up": every open PR had a pass
               and gatehouse is at rest (the first sweep round runs back to back)
  memory       gatehouse's resident set (VmRSS), the peak over the run and at rest
  full sweep   the first round's wall time (gatehouse_sweep_last_round_seconds)
  passes/s     passes completed during the catch-up over its wall time
  an unchanged world's sweep
               the second round after the catch-up (a changes round; the first one after it
               lists the world with gatehouse's own writes in it): the simulator's tally of
               rate-limit-costing requests per installation and per repository, and the
               passes it started
  rate limit   the lowest X-RateLimit-Remaining gatehouse saw per installation over the run
               (gatehouse_github_rate_limit_remaining), against the background reserve (200)

Each PR is left waiting on something gatehouse cannot change (no approval; its `ci` green,
red or missing), so the world stays unchanged once gatehouse has written its check run and
summary comment on each.

usage: scale.py [--prs N[,N...]] [--per-repo N] [--installations N]
                [--sweep-interval-seconds S] [--full-every N] [--build DIR]
One block per size, then a growth table; the last line is JSON.
"""
import argparse
import json
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
from benchkit import (POLICY_CI_AND_ONE_APPROVAL, Client, app_key_pair, start_sim, metric_sum, metrics,  # noqa
                      rss_kb, start, stop, wait_at_rest)

POLICY = POLICY_CI_AND_ONE_APPROVAL
RESERVE = 200  # GitHubClientOptions::background_reserve, docs/GITHUB.md
ADMIN_TOKEN = "scale-bench-" + os.urandom(8).hex()


def build_world(sim, prs, repos, installations):
    owners = [f"org{i}" for i in range(installations)]
    names = []
    for i in range(repos):
        o, r = owners[i % installations], f"repo{i}"
        sim.call("POST", "/_sim/repos", {"owner": o, "name": r,
                                         "installation_id": 1 + i % installations,
                                         "members": ["bob"],
                                         "files": {".github/gatehouse.yml": POLICY}})
        names.append((o, r))
    for j in range(prs):
        o, r = names[j % repos]
        pr = sim.call("POST", f"/_sim/repos/{o}/{r}/pulls",
                      {"title": f"change {j}", "author": "alice"})
        if j % 3 != 2:  # a third have no `ci` yet
            sim.call("POST", f"/_sim/repos/{o}/{r}/check-runs",
                     {"pr": pr["number"], "name": "ci",
                      "conclusion": "success" if j % 3 == 0 else "failure"})


class Watch(threading.Thread):
    """Samples gatehouse's RSS and its lowest rate-limit remaining per installation."""

    def __init__(self, pid, admin_url):
        super().__init__(daemon=True)
        self.pid, self.admin = pid, Client(admin_url, ADMIN_TOKEN)
        self.peak_kb, self.low = 0, {}
        self.halt = threading.Event()

    def sample(self):
        self.peak_kb = max(self.peak_kb, rss_kb(self.pid))
        for (name, labels), v in metrics(self.admin).items():
            if name == "gatehouse_github_rate_limit_remaining":
                inst = dict(labels).get("installation")
                self.low[inst] = min(self.low.get(inst, v), v)

    def run(self):
        while not self.halt.wait(0.5):
            self.sample()


def run_size(args, prs):
    repos = max(1, prs // args.per_repo)
    work = tempfile.mkdtemp(prefix=f"scale{prs}.", dir=args.build)
    key, pub = app_key_pair(work)
    env = dict(os.environ, GATEHOUSE_WEBHOOK_SECRET="bench-" + os.urandom(8).hex(),
               GATEHOUSE_ADMIN_TOKEN=ADMIN_TOKEN)
    sim_p, sim_url = start_sim(args.build, work, env, pub)
    procs = [sim_p]
    try:
        sim = Client(sim_url)
        t = time.monotonic()
        build_world(sim, prs, repos, args.installations)
        print(f"scale: {prs} PRs over {repos} repositories and {args.installations} "
              f"installations built in {time.monotonic() - t:.1f} s", flush=True)
        db = os.path.join(work, "g.db")
        gh = os.path.join(args.build, "gatehouse")
        serve_env = dict(env, GATEHOUSE_GITHUB_APP_ID="4242",
                         GATEHOUSE_GITHUB_PRIVATE_KEY_FILE=key,
                         GATEHOUSE_GITHUB_API_URL=sim_url)
        sim.call("DELETE", "/_sim/requests")
        t0 = time.monotonic()
        serve_p, (hook, admin_url) = start(
            [gh, "serve", "--db", db, "--listen", "127.0.0.1:0", "--admin-listen",
             "127.0.0.1:0", "--log-level", "warn", "--sweep-interval-seconds",
             str(args.sweep_interval_seconds), "--sweep-full-every", str(args.full_every)],
            os.path.join(work, "serve.log"), serve_env, "gatehouse", lines=2)
        listening_s = time.monotonic() - t0
        procs.append(serve_p)
        sim.call("PUT", "/_sim/webhook-url", {"url": hook})
        watch = Watch(serve_p.pid, admin_url)
        watch.start()
        st = wait_at_rest(gh, db, quiet_s=1.0, limit_s=3600, min_passes=prs)
        caught_up_s = time.monotonic() - t0
        passes_catch_up = st["counters"].get("work.passes_completed", 0)
        admin = Client(admin_url, ADMIN_TOKEN)
        m = metrics(admin)
        first_round_s = metric_sum(m, "gatehouse_sweep_last_round_seconds")
        rounds_before = metric_sum(m, "gatehouse_sweep_rounds_total")
        rss_rest_kb = rss_kb(serve_p.pid)
        catch_up = sim.call("DELETE", "/_sim/requests")  # the catch-up's requests, and reset

        def next_round(after):
            """Waits for the sweep round after `after` rounds to finish; the new count."""
            deadline = time.monotonic() + 3 * args.sweep_interval_seconds + 60
            while True:
                n = metric_sum(metrics(admin), "gatehouse_sweep_rounds_total")
                if n > after:
                    return n
                if time.monotonic() > deadline:
                    sys.exit("scale: a sweep round did not finish")
                time.sleep(0.1)

        # Round A sees the world with gatehouse's own writes (check runs, comments, labels);
        # round B is a sweep of an unchanged world.
        rounds_a = next_round(rounds_before)
        round_a = sim.call("DELETE", "/_sim/requests")
        next_round(rounds_a)
        round_b = sim.call("DELETE", "/_sim/requests")
        st2 = wait_at_rest(gh, db, quiet_s=1.0, limit_s=600)
        m2 = metrics(admin)
        unchanged = round_b
        watch.halt.set()
        watch.join()
        watch.sample()
        passes_round2 = st2["counters"].get("work.passes_completed", 0) - passes_catch_up
        per_inst = {w: c["costing"] for w, c in unchanged["windows"].items() if w != "app"}
        costing_inst = sum(per_inst.values())
        result = {
            "prs": prs, "repos": repos, "installations": args.installations,
            "listening_s": round(listening_s, 3), "caught_up_s": round(caught_up_s, 1),
            "first_round_s": round(first_round_s, 2),
            "passes_per_s": round(passes_catch_up / caught_up_s, 1),
            "passes_catch_up": passes_catch_up,
            "catch_up_costing": catch_up["total"]["costing"],
            "catch_up_costing_per_pr": round(catch_up["total"]["costing"] / prs, 2),
            "rss_peak_mb": round(watch.peak_kb / 1024, 1),
            "rss_rest_mb": round(rss_rest_kb / 1024, 1),
            # The first round after start is a deep one (every PR), the measured one full or not.
            "round2_kind": "changes" if metric_sum(m2, "gatehouse_sweep_rounds_total", kind="full")
            + metric_sum(m2, "gatehouse_sweep_rounds_total", kind="deep") < 2 else "full",
            "round_a_costing": round_a["total"]["costing"],
            "round2_passes": passes_round2,
            "round2_requests": unchanged["total"]["requests"],
            "round2_costing": unchanged["total"]["costing"],
            "round2_costing_installations": costing_inst,
            "round2_costing_app": unchanged["windows"].get("app", {}).get("costing", 0),
            "round2_costing_per_repo": round(unchanged["total"]["costing"] / repos, 3),
            "round2_costing_max_installation": max(per_inst.values()) if per_inst else 0,
            "lowest_remaining": min(watch.low.values()) if watch.low else None,
        }
        print(f"  start-up        listening after {listening_s * 1000:.0f} ms; caught up "
              f"(every PR passed, at rest) after {caught_up_s:.1f} s")
        print(f"  memory          peak RSS {result['rss_peak_mb']} MB, at rest "
              f"{result['rss_rest_mb']} MB (target <= 150 MB)")
        print(f"  first round     {first_round_s:.2f} s for {repos} repositories (back to back)")
        print(f"  passes          {passes_catch_up} in the catch-up, "
              f"{result['passes_per_s']}/s; {catch_up['total']['costing']} costing requests "
              f"({result['catch_up_costing_per_pr']} per PR)")
        print(f"  round after     {round_a['total']['requests']} requests, "
              f"{round_a['total']['costing']} costing (it lists what gatehouse wrote)")
        print(f"  unchanged world the next round ({result['round2_kind']}): "
              f"{unchanged['total']['requests']} requests, {unchanged['total']['costing']} "
              f"costing = {result['round2_costing_per_repo']} per repository (target <= 1), "
              f"at most {result['round2_costing_max_installation']} for one installation; "
              f"{passes_round2} passes")
        print(f"  rate limit      lowest remaining {result['lowest_remaining']} "
              f"(reserve {RESERVE})")
        for title, tally in (("catch-up", catch_up), ("unchanged world", unchanged)):
            print(f"  {title}, by endpoint:")
            for e in sorted(tally["endpoints"], key=lambda e: -e["requests"])[:8]:
                print(f"    {e['requests']:6d} requests {e['costing']:6d} costing  "
                      f"{e['method']} {e['endpoint']}")
        return result
    finally:
        stop(procs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prs", default="500,5000", help="sizes, comma-separated")
    ap.add_argument("--per-repo", type=int, default=10, help="open PRs per repository")
    ap.add_argument("--installations", type=int, default=20)
    ap.add_argument("--sweep-interval-seconds", type=int, default=60)
    ap.add_argument("--full-every", type=int, default=6,
                    help="serve's --sweep-full-every (2: the measured round is a full one)")
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    results = []
    for n in [int(x) for x in args.prs.split(",")]:
        print(f"scale: {n} PRs, {os.cpu_count()} cores", flush=True)
        results.append(run_size(args, n))
    if len(results) > 1:
        a, b = results[0], results[-1]
        f = b["prs"] / a["prs"]
        print(f"growth {a['prs']} -> {b['prs']} PRs (x{f:g}):")
        for k in ("caught_up_s", "first_round_s", "rss_peak_mb", "passes_per_s",
                  "catch_up_costing_per_pr", "round2_costing_per_repo"):
            ratio = b[k] / a[k] if a[k] else float("nan")
            print(f"  {k:26s} {a[k]:>10} -> {b[k]:>10}  x{ratio:.2f}")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
