"""Medians and the issue's ratios from bench/frontdoor/run.sh's JSON lines.

usage: python3 bench/frontdoor/summarize.py results/sidebyside.jsonl
"""
import json
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)  # (body, who) -> [(rps, p99)]
    bytes_of = {}
    for line in open(path):
        d = json.loads(line)
        if "who" in d:  # gatehouse and the floor: {"who","body","wrk":{...}}
            who, w = d["who"], d["wrk"]
        else:  # the Node receivers: run_webhook.sh's line
            who, w = "node+" + d["backend"], d
            bytes_of[d["body"]] = d.get("body_bytes")
        if w["errors_status"] or w["errors_connect"] or w["errors_read"] or w["errors_timeout"]:
            print(f"warning: {who} {d['body']} had errors: {w}")
        runs[(d["body"], who)].append((w["rps"], w["p99_ms"]))
    for body in sorted({b for b, _ in runs}, key=lambda b: bytes_of.get(b) or 0):
        med = {}
        print(f"\n{body} ({bytes_of.get(body)} bytes), median of {len(runs[(body, 'gatehouse')])} runs")
        for who in ("gatehouse", "node+bullmq", "node+none", "floor"):
            vals = runs.get((body, who))
            if not vals:
                continue
            rps = statistics.median(v[0] for v in vals)
            p99 = statistics.median(v[1] for v in vals)
            med[who] = (rps, p99)
            print(f"  {who:12} {rps:9.0f}/s  p99 {p99:6.2f} ms   (runs: "
                  + ", ".join(f"{v[0]:.0f}" for v in vals) + ")")
        g = med.get("gatehouse")
        if not g:
            continue
        for who, name in (("node+bullmq", "Node + BullMQ"), ("node+none", "Node storing nothing"),
                          ("floor", "the HTTP floor")):
            if who in med:
                print(f"  gatehouse / {name}: {g[0] / med[who][0]:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1])
