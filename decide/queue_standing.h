// QueueStanding: what a PR's own pass decides about the merge queue (docs/MERGE_QUEUE.md, "Who
// moves an entry"). When the repository's `merge_queue:` is enabled, a PR whose verdict is
// `pass` enters its base branch's queue at its head instead of being merged, and a PR that no
// longer deserves its place leaves it, with the reason. The queue's own pass (act/queue_pass.h)
// does everything after entering: update, test, merge.
//
// A `dequeue` command drops the open entry and keeps the PR out; a `queue` or `merge` command
// lets a head the queue dropped enter once more (decide/queue_commands.h).
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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "decide/gate.h"
#include "decide/policy.h"
#include "decide/queue_commands.h"
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
  int64_t admitted_by = 0;  // the command comment that admitted it (0: readiness alone)
  bool terminal() const { return state == "merged" || state == "dropped"; }
};

// Where the PR's open entry stands in its queue, read with the queue (act/pass_queue.h).
struct QueuePlace {
  int64_t entry = 0;   // the open entry (0: the PR has none)
  int position = 0;    // 1 = the next to land (0: not known)
  int size = 0;        // open entries in the queue
  int64_t batch = 0;   // the batch it is tested in (0: none)
  // How long until it should land, at the queue's recent pace; nullopt until known. A wait,
  // not an instant, so the summary does not change with the clock alone.
  std::optional<Duration> wait;
};

// The merge queue as the PR's pass sees it.
struct QueueFacts {
  std::string queue;                    // the PR's queue ("owner/repo@base/queue"); "" if none
  std::vector<QueueEntryFact> entries;  // the PR's entries, oldest first
  // What the PR's queue, merge and dequeue comments say (decide/queue_commands.h); read
  // whether or not the queue is enabled (`merge` also grants a merge without a queue).
  QueueCommandStanding commands;
  QueuePlace place;
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
  int64_t admitted_by = 0;  // enter: the command that admits the head (QueueEntryKey)
};

// Decides for `pr` (verdict `verdict` under `policy`, whose merge queue is enabled) at head
// occurrence `head_occurrence`. `reclose`: this pass closes the PR again (it must not enter).
QueueStanding DecideQueueStanding(const Policy& policy, const PrSnapshot& pr,
                                  const GateVerdict& verdict, const QueueFacts& facts,
                                  int64_t head_occurrence, bool reclose);

// The merge queue's line of the PR's summary comment (docs/MERGE_QUEUE.md "Visibility"), as it
// stands once this pass's `standing` is carried out: why the entry leaves; the open entry's
// state, position, batch and ETA; that the head enters; that a `dequeue` keeps it out; how its
// last entry ended; "" when the PR never entered, or has no queue (`facts.queue` "").
std::string QueueSummaryLine(const QueueFacts& facts, const QueueStanding& standing);

// The first 12 characters of a SHA, as reasons name commits.
std::string ShortHead(const std::string& sha);

}  // namespace gatehouse::decide
