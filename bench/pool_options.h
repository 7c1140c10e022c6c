// The worker pool's settings the engine benchmarks (engine_bench, pg_bench) run their pass
// phases with: `workers` workers, a 30 s lease (no pass in a benchmark comes near it), and a
// 5 ms poll so that an idle pool finds new work at once even without a wake-up.
#pragma once

#include <chrono>
#include <cstddef>

#include "engine/worker_pool.h"

namespace gatehouse::bench {

inline EngineOptions PoolOptions(size_t workers) {
  EngineOptions options;
  options.workers = workers;
  options.lease = std::chrono::seconds(30);
  options.poll_interval = std::chrono::milliseconds(5);
  return options;
}

}  // namespace gatehouse::bench
