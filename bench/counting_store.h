// CountingStore: a Store that forwards to another and counts its work queue's transactions —
// calls, items handled, calls that handled nothing, and time — so that a benchmark can say
// where the engine spends its store time. Everything but the work queue is the target's.
// The counters are atomics: any number of engine threads may go through it at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bench/bench_format.h"
#include "store/store.h"
#include "store/store_wrapper.h"

namespace gatehouse::bench {

struct CallStats {
  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> items{0};  // signals, leases or finishes handled
  std::atomic<int64_t> empty{0};  // calls that handled nothing (a Claim that found nothing due)
  std::atomic<int64_t> nanos{0};

  void Add(int64_t n, Steady::duration took) {
    calls.fetch_add(1, std::memory_order_relaxed);
    items.fetch_add(n, std::memory_order_relaxed);
    if (n == 0) empty.fetch_add(1, std::memory_order_relaxed);
    nanos.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count(),
                    std::memory_order_relaxed);
  }
  double seconds() const { return static_cast<double>(nanos.load()) / 1e9; }
};

// Counts the work queue's transactions; everything else is forwarded (store/store_wrapper.h).
class CountingQueue final : public WorkQueueWrapper {
 public:
  explicit CountingQueue(WorkQueue& target) : WorkQueueWrapper(target) {}

  Status Enqueue(std::span<const Signal> signals, Time now, Durability durability) override {
    const auto start = Steady::now();
    Status s = WorkQueueWrapper::Enqueue(signals, now, durability);
    enqueue.Add(s.ok() ? static_cast<int64_t>(signals.size()) : 0, Steady::now() - start);
    return s;
  }
  Result<std::vector<Lease>> Claim(std::string_view owner, size_t max_items, Duration lease,
                                   Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::Claim(owner, max_items, lease, now);
    claim.Add(r.ok() ? static_cast<int64_t>(r->size()) : 0, Steady::now() - start);
    return r;
  }
  Result<std::vector<Status>> Renew(std::span<const LeaseRenewal> renewals, Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::Renew(renewals, now);
    renew.Add(static_cast<int64_t>(renewals.size()), Steady::now() - start);
    return r;
  }
  Result<std::vector<Status>> Finish(std::span<const PassFinish> finishes, Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::Finish(finishes, now);
    finish.Add(static_cast<int64_t>(finishes.size()), Steady::now() - start);
    return r;
  }
  Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                               size_t max_items, Duration lease, Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::FinishAndClaim(finishes, owner, max_items, lease, now);
    step.Add(r.ok() ? static_cast<int64_t>(r->claimed.size()) : 0, Steady::now() - start);
    step_finishes.fetch_add(static_cast<int64_t>(finishes.size()), std::memory_order_relaxed);
    return r;
  }

  CallStats enqueue;
  CallStats claim;
  CallStats renew;
  CallStats finish;
  CallStats step;  // FinishAndClaim: items are the leases claimed
  std::atomic<int64_t> step_finishes{0};
};

// A Store whose work queue counts; the other concepts are the target's.
class CountingStore final : public StoreWrapper {
 public:
  explicit CountingStore(Store& target) : StoreWrapper(target), queue_(target.work()) {}
  WorkQueue& work() override { return queue_; }
  CountingQueue& counts() { return queue_; }

 private:
  CountingQueue queue_;
};

}  // namespace gatehouse::bench
