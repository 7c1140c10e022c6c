// MergeQueue: the entries of the merge queues (docs/MERGE_QUEUE.md). An entry is one PR at
// one head in one queue — the queue of a repository's base branch, whose mailbox is the work
// item QueueKey::key() ("acme/app@main/queue", base/subject.h) — and it moves through
// queued → updating → testing → merging → merged, or ends dropped with a reason.
//
// Exactly once by construction: an entry is identified by (PR subject, head SHA, head
// occurrence, the command that admitted it) and the store enforces that key (a unique index, never check-then-insert), so
// replays, redeliveries and concurrent passes make one entry per head. The PR pass enters and
// drops entries under the PR's fence; the queue pass moves them under the queue's fence; each
// change signals the queue's work item in the same transaction, so the queue hears of it
// exactly when it happened.
//
// Every method is one atomic transaction. The store never reads a clock: callers pass `now`.
// Implementations are safe for concurrent use from several threads and processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse {

enum class EntryState { kQueued, kUpdating, kTesting, kMerging, kMerged, kDropped };
std::string_view EntryStateName(EntryState state);  // queued, updating, ..., dropped
bool ParseEntryState(std::string_view text, EntryState* out);
bool IsTerminal(EntryState state);  // merged, dropped

// What identifies an entry: a PR's head, as the ledger numbers its occurrences (a head that
// comes back after another is a second occurrence, and may enter again).
struct QueueEntryKey {
  std::string subject;  // the PR, "owner/repo#12"
  std::string head_sha;
  int64_t head_occurrence = 1;
  // The `queue` or `merge` comment that let this head in once more (docs/MERGE_QUEUE.md
  // "Commands"); 0 for an entry the PR's readiness alone made. Each command admits a head once.
  int64_t admitted_by = 0;
  bool operator==(const QueueEntryKey&) const = default;
};

struct QueueEntry {
  int64_t id = 0;
  std::string queue;  // the queue's key, "owner/repo@main/queue"
  QueueEntryKey key;
  int priority = 0;
  EntryState state = EntryState::kQueued;
  std::string tested_sha;        // the SHA under test (updating: "" until it is known)
  std::optional<Time> deadline;  // testing: when the checks must have reported by
  std::string reason;            // why it was dropped, or what the last step said
  // The batch it is tested in (integration_branch method, docs/MERGE_QUEUE.md "Batches"): the
  // entries of one batch share it; 0 for none. A queued entry with a batch is half of a batch
  // that failed, waiting to be tested again with the rest of its half.
  int64_t batch = 0;
  Time entered_at;
  Time updated_at;
};

// One step of the queue pass on one entry: from `from` to `to`, setting what is given.
struct EntryStep {
  EntryState from = EntryState::kQueued;
  EntryState to = EntryState::kQueued;
  std::optional<std::string> tested_sha{};  // kept when not given
  // Set when given; kept when the entry stays in (or enters) testing without one, cleared
  // otherwise.
  std::optional<Time> deadline{};
  std::string reason{};
  std::optional<int64_t> batch{};  // kept when not given
};

// Validation shared by every backend: `queue` is a canonical QueueKey, `key.subject` a
// canonical PR key of that queue's repository, with a head SHA and an occurrence >= 1.
Status ValidateQueueEntry(std::string_view queue, const QueueEntryKey& key);
// A step from a terminal state, or a drop without a reason, is refused.
Status ValidateEntryStep(const EntryStep& step);

class MergeQueue {
 public:
  virtual ~MergeQueue() = default;

  struct Entered {
    QueueEntry entry;
    bool created = false;  // false: the entry already existed (same key); nothing written
  };
  // Creates the entry (queued) in `queue` unless one with the same key exists, and signals the
  // queue's work item (reason `queue-enter`), in one transaction that checks that the PR's work
  // item `key.subject` is still running under `fence` (kFenceLost otherwise, nothing written).
  // kInvalidArgument for a `queue` that is not a QueueKey of the PR's repository, or an empty
  // head SHA. Durable (kAcknowledged) on return.
  virtual Result<Entered> Enter(std::string_view queue, const QueueEntryKey& key, int priority,
                                int64_t fence, Time now) = 0;

  // Drops every entry of the PR `subject` that is not terminal, except one whose head SHA or
  // tested SHA is `keep_sha` ("" keeps none), with `reason`, under the PR's fence; signals each
  // queue that lost an entry (reason `queue-leave`). Returns the entries it dropped.
  virtual Result<std::vector<QueueEntry>> Leave(std::string_view subject, std::string_view keep_sha,
                                                std::string_view reason, int64_t fence,
                                                Time now) = 0;

  // Moves entry `id` one step, under the fence of its queue's work item: kFenceLost when that
  // item is not running under `fence`, kFailedPrecondition when the entry is not in
  // `step.from` (someone moved it first: a drop by its PR's pass), kNotFound for no entry.
  // A terminal entry never moves again. Returns the entry as it is now.
  virtual Result<QueueEntry> Step(int64_t id, const EntryStep& step, int64_t fence, Time now) = 0;

  // The entries of `queue` that are not terminal, in the order the queue takes them: the ones
  // past `queued` first (a batch under way is never overtaken), then queued ones with a batch
  // (the halves of a batch being bisected), then by priority (highest first), then by when
  // they entered, then by id. With `ended`, also up to `ended` of the
  // latest terminal ones, after those.
  virtual Result<std::vector<QueueEntry>> ListQueue(std::string_view queue, int ended = 0) = 0;
  // Every entry of one PR, oldest first.
  virtual Result<std::vector<QueueEntry>> EntriesOf(std::string_view subject) = 0;
  // Every entry of `queue` whose tested SHA is `sha`, terminal ones included, by id: the
  // members a batch's integration SHA was built from, and whether one has left since.
  virtual Result<std::vector<QueueEntry>> EntriesTested(std::string_view queue,
                                                        std::string_view sha) = 0;
  // The queues whose open entries have `sha` as their head or tested SHA in repository `repo`
  // ("owner/repo"): who to wake for a check run or status on that SHA. Sorted, each once.
  virtual Result<std::vector<std::string>> QueuesWatching(std::string_view repo,
                                                          std::string_view sha) = 0;
};

}  // namespace gatehouse
