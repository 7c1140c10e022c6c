#!/usr/bin/env python3
# Writes tests/scenarios/queue_*.json, the merge queue scenarios of tests/merge_queue_e2e_test.cc
# (docs/MERGE_QUEUE.md "What runs today"). Run it after changing it; commit the JSON it writes.
#   python3 tests/scenarios/gen_queue_scenarios.py
import json
import os
POLICY = ("version: 1\nrules:\n  required_checks:\n    checks: [ci]\n  approvals:\n    mode: off\n"
          "actions:\n  autonomy: auto\nmerge_queue:\n  enabled: true\n")
def repo(ci, policy_extra="", enforce=False):
    return {"call": "POST /_sim/repos", "body": {
        "owner": "acme", "name": "app", "installation_id": 1,
        "files": {".github/gatehouse.yml": POLICY + policy_extra},
        "protection": {"strict": True, "required_checks": ["ci"], "enforce": enforce},
        "ci": ci}}
def pull(at, n, labels=None):
    b = {"title": "Change %d" % n, "author": "alice", "author_association": "CONTRIBUTOR"}
    if labels: b["labels"] = labels
    return {"at_ms": at, "call": "POST /_sim/repos/acme/app/pulls", "body": b}
def invariants():
    return [{"no_untested_merges": True}, {"no_duplicate_effects": True}, {"no_stale_effects": True}]
def state(n, st):
    return {"pull": "acme/app#%d" % n, "state": st}
def write(name, s):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".json"), "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")

# 20 PRs ready at the same instant on a strict base.
n = 20
write("queue_storm", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 300})],
  "timeline": [pull(0, i) for i in range(1, n + 1)],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": n},
             {"kind": "check_run", "who": "ci-bot", "status": 201, "at_least": 2 * n - 4}]
            + invariants() + [state(i, "merged") for i in range(1, n + 1)],
  "timeout_ms": 180000, "settle_ms": 3000})

# Five PRs, for the crash tests (a kill between update and merge, between merge and record).
write("queue_crash", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 500})],
  "timeline": [pull(200 * (i - 1), i) for i in range(1, 6)],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 5}]
            + invariants() + [state(i, "merged") for i in range(1, 6)],
  "timeout_ms": 90000, "settle_ms": 3000})

# A push to a queued PR: it leaves the queue and re-enters at its new head once that is green.
write("queue_push", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 2000})],
  "timeline": [pull(0, 1), pull(500, 2), pull(1000, 3),
               {"at_ms": 4000, "call": "POST /_sim/repos/acme/app/pulls/3/push",
                "body": {"user": "alice"}}],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 3}]
            + invariants() + [state(i, "merged") for i in range(1, 4)],
  "timeout_ms": 90000, "settle_ms": 3000})

# The head entry's checks never report (#2), and a tested head fails (#3): each is dropped
# with its reason and the queue goes on (#1 and #4 merge).
write("queue_never_wedges", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 1000, "hanging_later": [2],
                  "failing_later": [3]}, "  checks_timeout: 10s\n")],
  "timeline": [pull(0, 1), pull(300, 2), pull(600, 3), pull(900, 4)],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 2}]
            + invariants() + [state(1, "merged"), state(2, "open"), state(3, "open"),
                              state(4, "merged")],
  "timeout_ms": 90000, "settle_ms": 3000})

# A hotfix label jumps the queue, but not the entry already under test.
write("queue_priority", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 2000}, "  priorities:\n    hotfix: 10\n")],
  "timeline": [pull(0, 1), pull(400, 2), pull(800, 3), pull(1200, 4, ["hotfix"])],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 4}]
            + invariants() + [state(i, "merged") for i in range(1, 5)],
  "timeout_ms": 90000, "settle_ms": 3000})

# --- batches (method: integration_branch) ---
def batch(size):
    return "  method: integration_branch\n  batch_size: %d\n" % size
def queue_check(n, conclusion):
    # The merge queue's own check run on the PR's head says how its entry ended.
    return {"pull": "acme/app#%d" % n,
            "check_run": {"name": "gatehouse/queue", "status": "completed", "conclusion": conclusion}}
def ci_runs(**bound):
    return dict({"kind": "check_run", "who": "ci-bot", "status": 201}, **bound)

# 20 PRs ready at once, tested in batches of 5: all merge, each tested on exactly the SHA that
# became the base, with far fewer CI runs than the serial queue_storm (20 heads + 19 updates).
write("queue_batch_storm", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 300}, batch(5))],
  "timeline": [pull(0, i) for i in range(1, n + 1)],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": n},
             ci_runs(at_most=n + 8)]
            + invariants() + [state(i, "merged") for i in range(1, n + 1)]
            + [queue_check(i, "success") for i in range(1, n + 1)],
  "timeout_ms": 180000, "settle_ms": 3000})

# #3 breaks in combination (its own head passes): bisection finds it in the first batch of 4,
# drops it with the reason, and the other seven merge.
write("queue_bisect", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 500, "failing_later": [3]}, batch(4))],
  "timeline": [pull(0, i) for i in range(1, 9)],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 7},
             ci_runs(at_most=8 + 8)]
            + invariants() + [state(i, "merged") for i in range(1, 9) if i != 3]
            + [state(3, "open"), queue_check(3, "neutral"), queue_check(4, "success")],
  "timeout_ms": 120000, "settle_ms": 3000})

# A hotfix PR becomes ready while the first batch of three is under test (its CI, 3 s, ends
# about 1.5 s into that batch's test): it does not break that batch, and it goes before the
# PRs queued before it that are not in it.
write("queue_batch_priority", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 3000}, batch(3) + "  priorities:\n    hotfix: 10\n")],
  "timeline": [pull(0, i) for i in range(1, 7)] + [pull(1500, 7, ["hotfix"])],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 7}]
            + invariants() + [state(i, "merged") for i in range(1, 8)],
  "timeout_ms": 120000, "settle_ms": 3000})

# The crash test's five PRs in one batch (a kill right after the base branch was fast-forwarded,
# before the ledger recorded it).
write("queue_batch_crash", {
  "setup": [repo({"checks": ["ci"], "duration_ms": 500}, batch(5))],
  "timeline": [pull(0, i) for i in range(1, 6)],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 5}]
            + invariants() + [state(i, "merged") for i in range(1, 6)],
  "timeout_ms": 90000, "settle_ms": 3000})

# --- commands (docs/MERGE_QUEUE.md "Commands") ---
# The merge actions at `suggest`: nothing enters the queue by itself. `maint` has write access,
# `eve` does not. #1 and #4: `merge` queues them anyway, and they merge. #2: `queue` is refused
# with a reply pointing to `merge` (the autonomy), eve's `merge` is ignored, `refresh` is
# acknowledged. #3: behind its base, so the queue updates it, and the update's CI never
# reports; `dequeue` takes it out and the others go on.
def comment(at, n, user, body):
    return {"at_ms": at, "call": "POST /_sim/repos/acme/app/pulls/%d/comments" % n,
            "body": {"user": user, "body": body}}
suggest = repo({"checks": ["ci"], "duration_ms": 500, "hanging_later": [3]},
               "  checks_timeout: 5m\n")
suggest["body"]["files"][".github/gatehouse.yml"] = suggest["body"]["files"][
    ".github/gatehouse.yml"].replace("autonomy: auto", "autonomy: suggest")
suggest["body"]["members"] = ["maint"]
write("queue_commands", {
  "setup": [suggest],
  "timeline": [pull(0, i) for i in range(1, 5)]
              + [{"at_ms": 0, "call": "POST /_sim/repos/acme/app/pulls/3/base", "body": {}},
                 comment(100, 1, "maint", "/gatehouse merge"),
                 comment(100, 2, "maint", "/gatehouse queue"),
                 comment(100, 2, "eve", "/gatehouse merge"),
                 comment(100, 3, "maint", "/gatehouse merge"),
                 comment(100, 4, "maint", "/gatehouse merge"),
                 comment(12000, 3, "maint", "/gatehouse dequeue"),
                 comment(12000, 2, "maint", "/gatehouse refresh")],
  "expect": [{"kind": "merge", "who_prefix": "installation:", "status": 200, "count": 2},
             {"kind": "reaction", "who_prefix": "installation:", "number": 1, "count": 1},
             {"kind": "reaction", "who_prefix": "installation:", "number": 2, "count": 2},
             {"kind": "reaction", "who_prefix": "installation:", "number": 3, "count": 2},
             {"no_duplicate_summaries": True}]
            + invariants() + [state(1, "merged"), state(4, "merged"), state(2, "open"),
                              state(3, "open"), queue_check(3, "neutral"),
                              {"pull": "acme/app#3",
                               "summary_contains": ["**Merge queue** (`main`): ",
                                                    "dequeued by @maint"]}],
  "timeout_ms": 90000, "settle_ms": 3000})
