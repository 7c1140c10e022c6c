// WorkerPool: runs passes over due work items (DESIGN.md §2).
//
// One dispatcher thread owns every store write the pool makes; `workers` threads run passes.
// The dispatcher loops: renew leases that are past half-life (one transaction); record every
// finish that workers reported and claim as many due items as there are idle workers (one
// transaction together); hand them out; then wait until a worker finishes, Wake() is called,
// or the poll interval passes on the pool's Clock. Batching every step is what lets a pool complete
// more passes per second than the disk can fsync.
//
// Correctness does not depend on the pool: every write it makes is fenced in the store, so
// two pools (threads or processes) on one store never run two passes of one key at once
// unless one of them has lost its lease, and then its writes are rejected.
//
// Thread-safe. Start() once; Stop() blocks until running passes finished and were recorded.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "engine/retry_policy.h"
#include "store/store.h"

namespace gatehouse {

// The live state of one claim, shared by the dispatcher (which renews it) and the pass.
struct LeaseState {
  std::atomic<bool> lost{false};     // a renewal was rejected: someone else holds the item
  std::atomic<int64_t> until_us{0};  // lease_until as last renewed
};

// What a pass sees of its claim.
class PassContext {
 public:
  PassContext(const Lease& lease, std::shared_ptr<const LeaseState> state, const Clock& clock)
      : lease_(lease), state_(std::move(state)), clock_(clock) {}
  const Lease& lease() const { return lease_; }
  // True once the lease ran out or a renewal was rejected: another worker may hold the item
  // now, and nothing this pass writes through its fence will be accepted. A pass should stop
  // early when it sees it.
  bool lease_lost() const {
    return state_->lost.load(std::memory_order_acquire) ||
           ToMicros(clock_.Now()) >= state_->until_us.load(std::memory_order_acquire);
  }

 private:
  const Lease& lease_;
  std::shared_ptr<const LeaseState> state_;
  const Clock& clock_;
};

using PassFn = std::function<PassOutcome(PassContext&)>;

struct EngineOptions {
  size_t workers = 4;
  Duration lease = std::chrono::seconds(60);
  // A pass running longer than this stops being renewed, so its lease runs out and another
  // worker takes the item over: a hung pass cannot hold a PR forever.
  Duration max_pass = std::chrono::minutes(10);
  // Time between claim attempts when nothing wakes the dispatcher (other processes' signals,
  // debounce and backoff expiry are found by this poll), measured on the pool's Clock: on a
  // SimClock the poll happens when the test moves the time past it (or calls Wake()).
  // After a failed store step the dispatcher also pauses a multiple of it, on the Clock.
  std::chrono::milliseconds poll_interval{200};
  // Items claimed beyond the number of idle workers, so that a worker finishing a pass finds
  // the next one ready while the dispatcher records the finish: the pass and the store
  // transaction overlap instead of alternating. A prefetched item is leased (exclusive, and
  // renewed like a running one) while it waits; keep this small so one process does not
  // hoard items other processes could run.
  size_t prefetch = 1;
  RetryPolicy retry;
  std::string owner;  // default: "<hostname>:<pid>:<random>"
  uint64_t seed = 0;  // 0: random
  // Fault injection (tests, the proof harness): when this returns true for a running pass,
  // its lease is not renewed, as if the process had stalled.
  std::function<bool(const Lease&)> skip_renewal;
};

Status ValidateEngineOptions(const EngineOptions& options);

// Everything known about one finished pass, for observers (tests, metrics, the audit log).
struct PassReport {
  Lease lease;
  PassOutcome outcome;
  PassFinish finish;
  Status recorded;  // OK; kFenceLost when the finish was rejected; another error if the
                    // store could not record it at all (the lease then runs out)
  bool ran = true;  // false: not run, the item had used up its attempts on expired leases
  Time started;
  Time ended;
  Time submitted;  // when the transaction recording this finish began
};

using PassObserver = std::function<void(const PassReport&)>;

class WorkerPool {
 public:
  WorkerPool(Store& store, ClockPtr clock, PassFn pass, EngineOptions options,
             PassObserver observer = nullptr);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  Status Start();
  // Stops claiming, lets running passes finish, records them, joins every thread.
  void Stop();
  // Makes the dispatcher look for due work now instead of at the next poll.
  void Wake();

  const std::string& owner() const { return options_.owner; }

 private:
  struct Running {
    Lease lease;
    Time started;  // claim time, then the time a worker picked it up
    std::shared_ptr<LeaseState> state;
  };
  struct Finished {
    PassReport report;
  };

  void DispatcherLoop();
  void WorkerLoop(uint64_t seed);
  // Records `done` and claims up to `want` items in one store transaction; returns how many
  // were claimed. On failure the finishes are kept in unrecorded_ for the next loop.
  size_t Step(std::vector<Finished>& done, size_t want, Time now);
  void RecordFinishes(std::vector<Finished>& done, const std::vector<Status>& results);
  void RenewLeases(Time now);
  void Dispatch(std::vector<Lease>& leases, Time now);

  Store& store_;
  int64_t wakeup_ = 0;  // the store's kWork subscription while started
  ClockPtr clock_;
  PassFn pass_;
  EngineOptions options_;
  PassObserver observer_;

  Mutex mu_;
  CondVar dispatcher_cv_;
  CondVar worker_cv_;
  std::deque<Lease> ready_ GUARDED_BY(mu_);         // claimed, not yet picked up
  std::vector<Finished> finished_ GUARDED_BY(mu_);  // run, not yet recorded
  // Keyed by (key, fence): a pool can hold a stale pass and the reclaimed pass of one key.
  std::map<std::pair<std::string, int64_t>, Running> running_ GUARDED_BY(mu_);
  size_t busy_ GUARDED_BY(mu_) = 0;  // claimed and not yet recorded
  bool wake_ GUARDED_BY(mu_) = false;
  bool stopping_ GUARDED_BY(mu_) = false;
  bool workers_exit_ GUARDED_BY(mu_) = false;
  bool started_ = false;

  std::vector<Finished> unrecorded_;  // dispatcher only: finishes whose commit failed
  int failed_steps_ = 0;              // dispatcher only: consecutive failed store steps
  std::optional<Time> next_due_;      // dispatcher only: the last step's Cycle::next_due
  std::thread dispatcher_;
  std::vector<std::thread> workers_;
};

// "<hostname>:<pid>:<6 hex>", unique per pool instance.
std::string DefaultOwnerId();

}  // namespace gatehouse
