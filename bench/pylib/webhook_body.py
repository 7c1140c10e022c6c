#!/usr/bin/env python3
"""The benchmark webhook bodies, made one way for every door benchmark (bench/ingress/run.sh,
bench/door/budget.py): the fixture minified as GitHub sends it ("full"), or the same without
its "*_url" / "url" fields ("small", about 5.4 KB for the pull_request fixture).

usage: webhook_body.py FIXTURE OUT small|full
"""
import json
import sys


def strip_urls(o):
    if isinstance(o, dict):
        return {k: strip_urls(v) for k, v in o.items() if not (k.endswith("_url") or k == "url")}
    if isinstance(o, list):
        return [strip_urls(x) for x in o]
    return o


def make_body(fixture, out, kind):
    """Writes the `kind` body of `fixture` to `out`; returns `out`."""
    if kind not in ("small", "full"):
        raise ValueError(f"body kind must be small or full, not {kind!r}")
    payload = json.load(open(fixture))
    if kind == "small":
        payload = strip_urls(payload)
    with open(out, "w") as f:
        json.dump(payload, f, separators=(",", ":"))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    make_body(*sys.argv[1:])
