// QueueMoves: what one queue pass (act/queue_pass.h) lends the code that moves its entries —
// the queue, its repository and policy, the PRs read live, the fenced steps, the ledger — so
// that each method's moves (the serial update-branch moves in act/queue_pass.cc, the batches of
// act/queue_batches.h) are written once against it. Not thread-safe: one pass, one thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "act/executor.h"
#include "act/pass_outcome.h"
#include "base/clock.h"
#include "base/subject.h"
#include "decide/policy.h"
#include "decide/queue_step.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

class QueueMoves {
 public:
  // What one move came to: go on with the (re-listed) queue, wait until `wait`, or stop.
  struct Moved {
    std::optional<PassOutcome> stop;
    std::optional<Time> wait;
  };
  static Moved GoOn() { return {}; }
  static Moved Stop(PassOutcome o) { return Moved{std::move(o), std::nullopt}; }
  static Moved WaitUntil(Time at) { return Moved{std::nullopt, at}; }

  virtual ~QueueMoves() = default;

  virtual Time now() const = 0;
  virtual const QueueKey& queue() const = 0;
  virtual const RepoRef& repo() const = 0;
  virtual const CallContext& call() const = 0;
  virtual const decide::Policy& policy() const = 0;
  // The checks the tested SHA must pass (the queue's required_checks, else the PR's).
  virtual const std::vector<decide::RequiredCheck>& required() const = 0;
  virtual GitHub& github() = 0;
  virtual Store& store() = 0;

  // Entry `e`'s PR as GitHub shows it now; a PR GitHub no longer has reads as !found.
  // Otherwise the outcome that ends the pass (rate limited, transient).
  virtual std::optional<PassOutcome> ReadPull(const QueueEntry& e, decide::QueuePull* out) = 0;
  // A fenced step of entry `e` (store/merge_queue.h Step), told in its PR's audit log, and its
  // PR signalled when the entry ends. An entry its PR's pass moved first is taken as it is.
  virtual Moved Step(const QueueEntry& e, const EntryStep& step) = 0;
  // One ledgered action under the queue's key, on entry `e`'s PR.
  virtual ActionReport ExecuteOne(const QueueEntry& e, const decide::PlannedAction& a) = 0;
  // The outcome that ends the pass after an action stopped (rate limited, lease lost, ...).
  virtual PassOutcome StopOutcome(const ActionReport& report) const = 0;
  // A line in entry `e`'s PR's audit log (kind `queue`), at `sha` ("" its queued head).
  virtual void Audit(const QueueEntry& e, const std::string& sha, const std::string& summary) = 0;
};

}  // namespace gatehouse::act
