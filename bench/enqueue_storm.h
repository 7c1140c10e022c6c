// The enqueue phase engine_bench and pg_bench share: `clients` threads released at once, each
// enqueueing `per_client` "pushed" signals through one Enqueuer, on keys "acme/repo#<n>" drawn
// (seeded per client) from `keys` of them. Then the store's work.signals counter must be the
// number of signals sent: none lost, none counted twice.
#pragma once

#include <cstdint>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "bench/bench_format.h"
#include "bench/error_sink.h"
#include "engine/enqueuer.h"
#include "store/store.h"

namespace gatehouse::bench {

inline std::string RepoKey(int n) { return "acme/repo#" + std::to_string(n); }

struct EnqueueStorm {
  int clients = 16;
  int per_client = 2000;
  int keys = 500;
  int64_t signals() const { return static_cast<int64_t>(clients) * per_client; }
};

// Seconds from the clients' release to the last one's return; the first failed Enqueue (with
// the count of them), or a work.signals counter that does not add up, is the error.
inline Result<double> RunEnqueueStorm(Enqueuer& enqueuer, Store& store, const EnqueueStorm& storm) {
  ErrorSink errors;
  std::latch ready(storm.clients + 1);
  std::vector<std::thread> threads;
  for (int c = 0; c < storm.clients; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937 rng(static_cast<uint32_t>(1000 + c));
      std::uniform_int_distribution<int> pick(0, storm.keys - 1);
      ready.arrive_and_wait();
      for (int i = 0; i < storm.per_client; ++i) {
        Status s = enqueuer.Enqueue(Signal{RepoKey(pick(rng)), "pushed", Duration(0)});
        if (!s.ok()) errors.Record(s);
      }
    });
  }
  ready.arrive_and_wait();
  const auto start = Steady::now();
  for (auto& t : threads) t.join();
  const double seconds = SecondsSince(start);
  GH_RETURN_IF_ERROR(errors.Summary("enqueue"));
  GH_ASSIGN_OR_RETURN(Counters counters, store.GetCounters());
  if (counters["work.signals"] != storm.signals()) {
    return Internal("enqueue: counter work.signals is " + std::to_string(counters["work.signals"]) +
                    ", expected " + std::to_string(storm.signals()));
  }
  return seconds;
}

}  // namespace gatehouse::bench
