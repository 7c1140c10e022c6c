#include "bench/engine_phases.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <latch>
#include <map>
#include <memory>
#include <random>
#include <string_view>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "bench/bench_format.h"
#include "bench/enqueue_storm.h"
#include "bench/error_sink.h"
#include "bench/pool_options.h"
#include "bench/sqlite_disk.h"
#include "engine/enqueuer.h"
#include "engine/worker_pool.h"
#include "store/sqlite/sqlite_store.h"

namespace gatehouse::bench {

void Progress(const std::string& line) {
  std::fprintf(stderr, "[engine_bench] %s\n", line.c_str());
}

// ---------------------------------------------------------------------------------------------
// enqueue: signals/s through the group-committing Enqueuer.

Result<EnqueueResult> MeasureEnqueue(const std::string& path, Durability durability,
                                     const EngineBenchConfig& cfg, CallStats& stats) {
  RemoveDbFiles(path);
  GH_ASSIGN_OR_RETURN(StorePtr sqlite_store, OpenSqliteStore(path));
  CountingStore store(*sqlite_store);
  Enqueuer enqueuer(store, std::make_shared<RealClock>(), durability);
  const EnqueueStorm storm{cfg.enqueue_clients, cfg.enqueue_signals_per_client, cfg.enqueue_keys};
  EnqueueResult result;
  GH_ASSIGN_OR_RETURN(result.seconds, RunEnqueueStorm(enqueuer, store, storm));
  result.signals = storm.signals();
  result.commits = enqueuer.commits();
  stats.calls = store.counts().enqueue.calls.load();
  stats.items = store.counts().enqueue.items.load();
  stats.nanos = store.counts().enqueue.nanos.load();
  return result;
}

// ---------------------------------------------------------------------------------------------
// passes and bursts: the WorkerPool.

namespace {

// Counts completed passes as the pool records them; wakes a waiter when `target` is reached.
class CompletionCounter {
 public:
  explicit CompletionCounter(int64_t target) : target_(target) {}

  void Observe(const PassReport& r) {
    MutexLock lock(&mu_);
    if (!r.recorded.ok() || r.finish.kind != PassFinish::Kind::kCompleted) {
      ++not_completed_;
      return;
    }
    ++completed_;
    ++per_key_[r.lease.key];
    last_ = Steady::now();
    if (completed_ == target_) cv_.SignalAll();
  }

  // False on timeout (real time: the benchmark measures real time).
  bool WaitForTarget(std::chrono::seconds timeout) {
    const auto deadline = CondVar::Steady::now() + timeout;
    MutexLock lock(&mu_);
    while (completed_ < target_) {
      if (!cv_.WaitUntil(&mu_, deadline)) return completed_ >= target_;
    }
    return true;
  }

  int64_t completed() const {
    MutexLock lock(&mu_);
    return completed_;
  }
  int64_t not_completed() const {
    MutexLock lock(&mu_);
    return not_completed_;
  }
  Steady::time_point last() const {
    MutexLock lock(&mu_);
    return last_;
  }
  std::map<std::string, int> per_key() const {
    MutexLock lock(&mu_);
    return per_key_;
  }

 private:
  const int64_t target_;
  mutable Mutex mu_;
  CondVar cv_;
  int64_t completed_ GUARDED_BY(mu_) = 0;
  int64_t not_completed_ GUARDED_BY(mu_) = 0;
  Steady::time_point last_ GUARDED_BY(mu_);
  std::map<std::string, int> per_key_ GUARDED_BY(mu_);
};

}  // namespace

Result<PoolResult> MeasureNoopPasses(const std::string& path, size_t workers,
                                     const EngineBenchConfig& cfg) {
  RemoveDbFiles(path);
  GH_ASSIGN_OR_RETURN(StorePtr sqlite_store, OpenSqliteStore(path));
  CountingStore store(*sqlite_store);
  auto clock = std::make_shared<RealClock>();
  constexpr int kBatch = 1000;
  for (int first = 0; first < cfg.pool_keys; first += kBatch) {
    std::vector<Signal> batch;
    for (int k = first; k < std::min(first + kBatch, cfg.pool_keys); ++k) {
      batch.push_back(Signal{RepoKey(k), "pushed", Duration(0)});
    }
    GH_RETURN_IF_ERROR(store.work().Enqueue(batch, clock->Now(), Durability::kRecoverable));
  }
  CompletionCounter counter(cfg.pool_keys);
  WorkerPool pool(
      store, clock, [](PassContext&) { return PassOutcome::Done(); }, PoolOptions(workers),
      [&counter](const PassReport& r) { counter.Observe(r); });
  const auto start = Steady::now();
  GH_RETURN_IF_ERROR(pool.Start());
  const bool drained = counter.WaitForTarget(std::chrono::seconds(600));
  pool.Stop();
  if (!drained) {
    return Internal("passes: " + std::to_string(counter.completed()) + " of " +
                    std::to_string(cfg.pool_keys) + " completed before the timeout");
  }
  if (counter.not_completed() != 0) {
    return Internal("passes: " + std::to_string(counter.not_completed()) +
                    " passes were not recorded as completed");
  }
  PoolResult result;
  result.workers = workers;
  result.passes = counter.completed();
  result.seconds = std::chrono::duration<double>(counter.last() - start).count();
  result.claim_calls = store.counts().claim.calls.load() + store.counts().step.calls.load();
  result.claim_empty = store.counts().claim.empty.load() + store.counts().step.empty.load();
  result.claim_seconds = store.counts().claim.seconds() + store.counts().step.seconds();
  result.finish_calls = store.counts().finish.calls.load() + store.counts().step.calls.load();
  result.finish_seconds = store.counts().finish.seconds();
  result.step_finishes = store.counts().step_finishes.load();
  return result;
}

namespace {

// True when every key has an item, each idle with everything requested done.
Result<bool> AllDone(Store& store, int keys) {
  WorkFilter filter;
  filter.limit = static_cast<size_t>(keys) + 1;
  GH_ASSIGN_OR_RETURN(std::vector<WorkItem> items, store.work().ListWorkItems(filter));
  if (items.size() != static_cast<size_t>(keys)) return false;
  for (const WorkItem& w : items) {
    if (w.state != WorkState::kIdle || w.done_gen != w.requested_gen) return false;
  }
  return true;
}

}  // namespace

Result<BurstResult> MeasureBursts(const std::string& path, const EngineBenchConfig& cfg) {
  RemoveDbFiles(path);
  GH_ASSIGN_OR_RETURN(StorePtr store, OpenSqliteStore(path));
  auto clock = std::make_shared<RealClock>();
  CompletionCounter counter(-1);
  WorkerPool pool(
      *store, clock,
      [](PassContext&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return PassOutcome::Done();
      },
      PoolOptions(8), [&counter](const PassReport& r) { counter.Observe(r); });
  Enqueuer enqueuer(*store, clock, Durability::kRecoverable, [&pool] { pool.Wake(); });
  GH_RETURN_IF_ERROR(pool.Start());

  // Every key gets the same number of signals, in one random order split across the clients.
  std::vector<int> order;
  for (int k = 0; k < cfg.burst_keys; ++k) {
    for (int i = 0; i < cfg.burst_signals_per_key; ++i) order.push_back(k);
  }
  std::mt19937 shuffle_rng(42);
  std::shuffle(order.begin(), order.end(), shuffle_rng);
  const size_t per_client = (order.size() + static_cast<size_t>(cfg.burst_clients) - 1) /
                            static_cast<size_t>(cfg.burst_clients);

  ErrorSink errors;
  std::latch ready(cfg.burst_clients + 1);
  std::vector<std::thread> clients;
  for (int c = 0; c < cfg.burst_clients; ++c) {
    clients.emplace_back([&, c] {
      std::mt19937 rng(static_cast<uint32_t>(2000 + c));
      std::uniform_int_distribution<int> burst_len(1, 8);
      std::uniform_int_distribution<int> gap_us(0, 2000);
      const size_t begin = std::min(order.size(), static_cast<size_t>(c) * per_client);
      const size_t end = std::min(order.size(), begin + per_client);
      ready.arrive_and_wait();
      size_t i = begin;
      while (i < end) {
        // A burst: a few signals back to back, then a short pause.
        for (int n = burst_len(rng); n > 0 && i < end; --n, ++i) {
          Status s =
              enqueuer.Enqueue(Signal{RepoKey(order[i]), "pushed", std::chrono::milliseconds(5)});
          if (!s.ok()) errors.Record(s);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(gap_us(rng)));
      }
    });
  }
  ready.arrive_and_wait();
  const auto start = Steady::now();
  for (auto& t : clients) t.join();
  BurstResult result;
  result.send_seconds = SecondsSince(start);
  const auto sent = Steady::now();
  bool drained = false;
  while (SecondsSince(sent) < 120) {
    GH_ASSIGN_OR_RETURN(drained, AllDone(*store, cfg.burst_keys));
    if (drained) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  result.drain_seconds = SecondsSince(sent);
  pool.Stop();
  GH_RETURN_IF_ERROR(errors.Summary("bursts"));
  if (!drained) return Internal("bursts: work items did not drain within 120 s");

  result.signals = static_cast<int64_t>(order.size());
  result.passes = counter.completed();
  result.enqueue_commits = enqueuer.commits();
  const auto per_key = counter.per_key();
  result.min_per_key = per_key.empty() ? 0 : per_key.begin()->second;
  for (const auto& [key, n] : per_key) {
    result.min_per_key = std::min(result.min_per_key, n);
    result.max_per_key = std::max(result.max_per_key, n);
  }
  GH_ASSIGN_OR_RETURN(Counters counters, store->GetCounters());
  if (counters["work.passes_completed"] != result.passes ||
      counters["work.signals"] != result.signals) {
    return Internal("bursts: counters disagree with the observer: passes_completed=" +
                    std::to_string(counters["work.passes_completed"]) + " observed " +
                    std::to_string(result.passes) +
                    ", signals=" + std::to_string(counters["work.signals"]));
  }
  return result;
}

}  // namespace gatehouse::bench
