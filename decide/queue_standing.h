// QueueStanding: what a PR's own pass decides about the merge queue (docs/MERGE_QUEUE.md, "Who
// moves an entry"). When the repository's `merge_queue:` is enabled, a PR whose verdict is
// `pass` enters its base branch's queue at its head instead of being merged, and a PR that no
// longer deserves its place leaves it, with the reason. The queue's own pass (act/queue_pass.h)
// does everything after entering: update, test, merge.
//
// What keeps an entry: the PR open, not a draft, its head the entry's head or the head the
// queue itself made (the tested SHA of an update), and no blocker. Waiting is judged by rule:
// at the queued head only `mergeable` may wait (GitHub computing it, or the base moved, which
// is the queue's to fix); at the tested head `required_checks` and `reviews` may wait too,
// since testing that head is exactly what the queue is doing. Anything else waiting — an
// approval that is gone, a required label — drops the entry.
//
// Pure functions over plain values; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "decide/gate.h"
#include "decide/policy.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// One of the PR's merge-queue entries as the pass read it (store/merge_queue.h).
struct QueueEntryFact {
  int64_t id = 0;
  std::string head_sha;
  int64_t head_occurrence = 1;
  std::string state;       // queued, updating, testing, merging, merged, dropped
  std::string tested_sha;  // updating: the head the update started from; testing on: tested
  std::string reason;      // why it was dropped, or what its last step said
  bool terminal() const { return state == "merged" || state == "dropped"; }
};

// The merge queue as the PR's pass sees it.
struct QueueFacts {
  std::string queue;                    // the PR's queue ("owner/repo@base/queue"); "" if none
  std::vector<QueueEntryFact> entries;  // the PR's entries, oldest first
};

struct QueueStanding {
  // An open entry to drop (0: none), why, and the head whose entry must stay ("" none).
  int64_t leave_entry = 0;
  std::string leave_reason;
  std::string keep_sha;
  // Whether the head enters the queue; when it does not although the verdict passes, why.
  bool enter = false;
  std::string enter_skip;
  int priority = 0;  // the head's priority from its labels (QueuePriority)
};

// Decides for `pr` (verdict `verdict` under `policy`, whose merge queue is enabled) at head
// occurrence `head_occurrence`. `reclose`: this pass closes the PR again (it must not enter).
QueueStanding DecideQueueStanding(const Policy& policy, const PrSnapshot& pr,
                                  const GateVerdict& verdict, const QueueFacts& facts,
                                  int64_t head_occurrence, bool reclose);

// The first 12 characters of a SHA, as reasons name commits.
std::string ShortHead(const std::string& sha);

}  // namespace gatehouse::decide
