// WorkQueue: the per-subject work items (DESIGN.md §2) — one mailbox per PR (or review run, or
// merge queue), folded signals, claims with leases and fencing tokens, finishes, dead items and
// re-arm.
//
// Every method is one atomic transaction. Every write a pass makes after its claim is
// conditional on the pass's fence and is rejected with kFenceLost once another claim has
// superseded it. The queue never reads a clock: callers pass `now` (docs/ENGINE.md, "Whose
// clock"). Implementations are safe for concurrent use from multiple threads and processes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/durability.h"

namespace gatehouse {

enum class WorkState { kIdle, kPending, kRunning, kDead };
std::string_view WorkStateName(WorkState state);
bool ParseWorkState(std::string_view text, WorkState* out);

// One trigger for a subject: routed webhook, sweep, operator request, ...
struct Signal {
  std::string key;     // subject key, e.g. "acme/app#12"; at most 512 bytes
  std::string reason;  // e.g. "pushed"; [a-z0-9_.:-]+, at most 64 bytes
  Duration debounce{0};
};

// A full work-item row, for inspection (CLI, tests). Times are absent when not set.
struct WorkItem {
  std::string key;
  WorkState state = WorkState::kIdle;
  int64_t requested_gen = 0;
  int64_t claimed_gen = 0;
  int64_t done_gen = 0;
  std::vector<std::string> reasons;          // arrived since the last claim
  std::vector<std::string> claimed_reasons;  // what the running (or failed) pass covers
  std::optional<Time> due_at;
  std::optional<Time> backoff_until;
  std::string lease_owner;
  std::optional<Time> lease_until;
  int64_t fence = 0;
  int attempts = 0;
  std::optional<Time> availability_since;
  std::string last_error;
  Time created_at;
  Time updated_at;
};

// What a claim hands to a worker: the right to run one pass of `key` until `lease_until`,
// proven by `fence` on every later write.
struct Lease {
  std::string key;
  int64_t fence = 0;
  int64_t claimed_gen = 0;
  std::vector<std::string> reasons;  // everything this pass must cover
  int attempts = 0;                  // consecutive transient failures so far
  std::optional<Time> availability_since;
  std::string owner;
  Time lease_until;
  bool reclaimed = false;  // the previous holder's lease had expired mid-pass
  // The earliest signal this pass is the first claim of (nullopt when every signal it covers
  // was claimed before: a retry, a reclaimed lease, a re-arm), for the signal-to-pass-start
  // latency. Enqueue sets it on a live item that has none; Claim hands it over and clears it.
  std::optional<Time> signalled_at;
};

struct LeaseRenewal {
  std::string key;
  int64_t fence = 0;
  Time lease_until;
};

// How a pass ended, as decided by the engine's retry policy.
struct PassFinish {
  enum class Kind { kCompleted, kRetry, kDead };
  std::string key;
  int64_t fence = 0;
  Kind kind = Kind::kCompleted;
  // kRetry only: no pass before this time, whatever signals arrive meanwhile.
  Time retry_at;
  // kRetry and kDead: the bookkeeping after this failure.
  int attempts = 0;
  std::optional<Time> availability_since;
  std::string error;
  // kRetry only: the pass waited for something (an unavailable outcome: a paused or busy
  // reviewer, an outage), so a Wake may hurry it; a transient or rate-limit backoff never is.
  bool unavailable = false;
};

struct WorkFilter {
  std::optional<WorkState> state;
  size_t limit = 1000;
  // Paging: only keys after this one (byte order); "" starts at the first.
  std::string after;
};

// How many work items are in each state, and how long the oldest due item has waited: what
// "is gatehouse behind?" needs (the admin API, /metrics, the dashboard).
struct WorkSummary {
  int64_t idle = 0;
  int64_t pending = 0;
  int64_t running = 0;
  int64_t dead = 0;
  // The earliest due_at among pending items (due or not yet); nullopt when none is pending.
  std::optional<Time> oldest_due;
};

class WorkQueue {
 public:
  virtual ~WorkQueue() = default;

  // Folds each signal into its subject's work item (DESIGN.md §2 rule 1): creates the item
  // if absent, requested_gen += 1, reasons merged, due_at = min(due_at, now + debounce) but
  // never before a failure backoff. A running item becomes dirty; a dead item records the
  // signal and stays dead until re-armed. All signals commit together or none does.
  virtual Status Enqueue(std::span<const Signal> signals, Time now, Durability durability) = 0;

  // Claims up to `max_items` items that are due (pending with due_at <= now) or whose lease
  // has expired (running with lease_until <= now), in one transaction. Each claim sets the
  // lease, fence += 1 and claimed_gen = requested_gen (rule 2). Reclaiming an expired lease
  // counts as one failed attempt (attempts += 1, last_error says so). Returns fewer, or none,
  // when fewer are claimable.
  virtual Result<std::vector<Lease>> Claim(std::string_view owner, size_t max_items, Duration lease,
                                           Time now) = 0;

  // Extends leases, each only if its fence is current. The outer Result fails only when the
  // transaction could not run; per-lease outcomes are OK or kFenceLost.
  virtual Result<std::vector<Status>> Renew(std::span<const LeaseRenewal> renewals, Time now) = 0;

  // Records how passes ended, each only if its fence is current (rules 3, 5, 6). A completed
  // pass sets done_gen = claimed_gen and leaves the item pending if it got dirty, idle
  // otherwise. Per-pass outcomes are OK or kFenceLost.
  virtual Result<std::vector<Status>> Finish(std::span<const PassFinish> finishes, Time now) = 0;

  // Finish(finishes) and then Claim(owner, max_items, lease, now) in one transaction: the
  // worker pool's steady-state step, one commit per cycle instead of two. `max_items` may be
  // 0 (finish only) and `finishes` may be empty (claim only).
  struct Cycle {
    std::vector<Status> finished;  // one per finish: OK or kFenceLost
    std::vector<Lease> claimed;
    // When it claimed fewer than `max_items` (> 0): the earliest due_at of a pending item
    // after this cycle's claims (later than `now` unless another process has signalled since),
    // nullopt when no item is pending. The pool sleeps until then instead of a whole poll.
    std::optional<Time> next_due;
  };
  virtual Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                                       size_t max_items, Duration lease, Time now) = 0;

  // Brings a dead item back: pending, due now, budgets reset, one more generation requested.
  // kNotFound for an unknown key, kFailedPrecondition if the item is not dead. Durable
  // (kAcknowledged) on return.
  virtual Status Rearm(std::string_view key, Time now) = 0;

  // "A freed resource or an operator says: retry now", for each key, in one transaction:
  //  - a pending item that waits for availability (its last finish was an unavailable kRetry)
  //    is made due now (due_at = min(due_at, now)) and its backoff is cleared, so the next
  //    Claim at `now` takes it; one that backs off from a transient failure or a rate limit is
  //    untouched (waking must never turn an outage into a retry storm);
  //  - a running item is marked woken: when its pass finishes with an unavailable kRetry, the
  //    item is due at that finish's `now` instead of at retry_at. Any finish, and any claim,
  //    clears the mark, so any other finish just drops it;
  //  - idle, dead and unknown keys are untouched (a dead item comes back only by Rearm).
  // No generation is requested. Recoverable: a lost wake only lets the item wait for its own
  // retry_at. Bad keys (empty, too long) are kInvalidArgument and nothing is written.
  virtual Status Wake(std::span<const std::string> keys, Time now) = 0;

  // nullopt when the key has no item.
  virtual Result<std::optional<WorkItem>> GetWorkItem(std::string_view key) = 0;
  // Ordered by key (bytes), at most filter.limit, after filter.after.
  virtual Result<std::vector<WorkItem>> ListWorkItems(const WorkFilter& filter) = 0;
  // One snapshot of every item's state.
  virtual Result<WorkSummary> SummarizeWork() = 0;
};

// Validation shared by every backend, so that they reject the same input the same way.
Status ValidateSignal(const Signal& signal);

// Reasons are kept as a sorted, de-duplicated set; on disk as "a,b,c".
std::string JoinReasons(const std::vector<std::string>& reasons);
std::vector<std::string> SplitReasons(std::string_view joined);
std::string UnionReasons(std::string_view a, std::string_view b);

}  // namespace gatehouse
