// engine_bench's phases (bench/engine_bench.cc says what each measures), each on a fresh
// SQLite file at `path` that it removes first: signals/s through the group-committing
// Enqueuer, no-op passes/s through a WorkerPool, and how many signals one pass absorbs in
// bursts. Each returns its figures, or the first error the engine reported, or an error when
// what it sent did not all arrive (a counter off, a phase that did not drain). Real threads,
// a real clock, a real disk: a benchmark, nothing asserted about speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "bench/counting_store.h"
#include "store/store.h"

namespace gatehouse::bench {

// The counts of a run; --quick makes them smaller.
struct EngineBenchConfig {
  std::string dir;
  bool quick = false;
  int raw_commits = 2000;
  int enqueue_clients = 16;
  int enqueue_signals_per_client = 2000;
  int enqueue_keys = 500;
  int pool_keys = 20000;
  int burst_clients = 16;
  int burst_keys = 200;
  int burst_signals_per_key = 50;
};

// One progress line on stderr.
void Progress(const std::string& line);

// enqueue: 16 clients calling Enqueuer::Enqueue at once, signals over enqueue_keys keys.
struct EnqueueResult {
  int64_t signals = 0;
  size_t commits = 0;
  double seconds = 0;
  double rate() const { return static_cast<double>(signals) / seconds; }
};

// Also fills `stats` with the store's Enqueue transactions.
Result<EnqueueResult> MeasureEnqueue(const std::string& path, Durability durability,
                                     const EngineBenchConfig& cfg, CallStats& stats);

// passes: a pool of `workers` completing no-op passes over pool_keys keys enqueued beforehand.
struct PoolResult {
  size_t workers = 0;
  int64_t passes = 0;
  double seconds = 0;
  int64_t claim_calls = 0;
  int64_t claim_empty = 0;
  double claim_seconds = 0;
  int64_t finish_calls = 0;
  double finish_seconds = 0;
  int64_t step_finishes = 0;
  double rate() const { return static_cast<double>(passes) / seconds; }
};

Result<PoolResult> MeasureNoopPasses(const std::string& path, size_t workers,
                                     const EngineBenchConfig& cfg);

// bursts: 8 workers running 2 ms passes while clients send bursts of signals (5 ms debounce).
struct BurstResult {
  int64_t signals = 0;
  int64_t passes = 0;
  int min_per_key = 0;
  int max_per_key = 0;
  double send_seconds = 0;   // first signal to last acknowledged signal
  double drain_seconds = 0;  // last signal to every item idle and done
  size_t enqueue_commits = 0;
  double ratio() const { return static_cast<double>(signals) / static_cast<double>(passes); }
};

Result<BurstResult> MeasureBursts(const std::string& path, const EngineBenchConfig& cfg);

}  // namespace gatehouse::bench
