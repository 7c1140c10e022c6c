// The randomized storm with real threads: two worker pools (two stores, 12 workers) on one
// database, on every backend (SQLite file, PostgreSQL database), hundreds of keys, tens of signals each at random times,
// random pass durations, random transient failures, always-failing keys, and passes that
// stall past their lease. The invariants are proven from the log the passes wrote
// (tests/storm_log.h), never from timings.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "base/log.h"
#include "store/store_test_util.h"
#include "tests/storm_driver.h"
#include "tests/storm_log.h"

namespace gatehouse::storm {
namespace {

class StormTest : public ::testing::TestWithParam<testing::StoreBackend> {};

INSTANTIATE_TEST_SUITE_P(Backends, StormTest, ::testing::ValuesIn(testing::ContractBackends()),
                         testing::BackendName);

TEST_P(StormTest, ThreadsKeepEveryInvariant) {
  SetLogLevel(LogLevel::kOff);
  testing::TempDir dir;
  const std::string log_path = dir.File("storm.log"), heal = dir.File("healed");
  const char* env_seed = std::getenv("GATEHOUSE_STORM_SEED");
  const uint64_t seed = env_seed ? std::strtoull(env_seed, nullptr, 10) : std::random_device{}();
  std::printf("storm seed %llu (GATEHOUSE_STORM_SEED to replay)\n",
              static_cast<unsigned long long>(seed));
  StorePtr producer_store = GetParam().open_fresh(dir);

  StormLog log(log_path);
  auto stalls = std::make_shared<StallSet>();
  StormPassConfig config;
  config.heal_file = heal;
  config.seed = seed;
  EngineOptions options;
  options.workers = 6;
  options.lease = config.lease;
  options.poll_interval = std::chrono::milliseconds(5);
  options.retry.max_attempts = 4;
  options.retry.transient_base = std::chrono::milliseconds(20);
  options.retry.transient_cap = std::chrono::milliseconds(200);
  options.skip_renewal = [stalls](const Lease& l) { return stalls->Contains(l); };

  std::mutex mu;
  std::condition_variable cv;
  PassObserver observer = [&](const PassReport& r) {
    log.Recorded(r);
    cv.notify_all();
  };
  std::vector<StorePtr> pool_stores;
  std::vector<std::unique_ptr<WorkerPool>> pools;
  for (int i = 0; i < 2; ++i) {
    pool_stores.push_back(GetParam().open_again(dir));
    options.seed = seed + static_cast<uint64_t>(i) * 1000;
    pools.push_back(std::make_unique<WorkerPool>(*pool_stores.back(), std::make_shared<RealClock>(),
                                                 MakeStormPass(&log, config, stalls), options,
                                                 observer));
    ASSERT_TRUE(pools.back()->Start().ok());
  }
  auto wake_all = [&] {
    for (auto& p : pools) p->Wake();
  };
  Enqueuer enqueuer(*producer_store, std::make_shared<RealClock>(), Durability::kRecoverable,
                    wake_all);

  const StormPlan plan = MakeStormPlan(300, 8, 10, 40, seed);
  ProduceSignals(enqueuer, plan, 4, seed);

  auto tick = [&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::milliseconds(20));
  };
  StormExpectations want;
  want.max_attempts = options.retry.max_attempts;
  ASSERT_TRUE(HealAndDrain(*producer_store, heal, tick, plan, &want)) << "storm never drained";
  for (auto& p : pools) p->Stop();

  std::map<std::string, int64_t> stats;
  auto violations = CheckStormInvariants(ParseStormLog(log_path), want, &stats);
  for (const auto& v : violations) ADD_FAILURE() << v;
  std::printf(
      "storm: %zu signals, %lld passes (%lld completed, %lld retries, %lld dead, "
      "%lld overlaps with a stalled pass, %lld stale finishes rejected, %lld of them while "
      "the successor ran), "
      "%.1f signals per completed pass\n",
      plan.signals.size(), static_cast<long long>(stats["passes"]),
      static_cast<long long>(stats["completed"]), static_cast<long long>(stats["retries"]),
      static_cast<long long>(stats["deaths"]), static_cast<long long>(stats["overlaps"]),
      static_cast<long long>(stats["rejected"]),
      static_cast<long long>(stats["rejected_while_successor_ran"]),
      static_cast<double>(plan.signals.size()) /
          static_cast<double>(std::max<int64_t>(1, stats["completed"])));
  // The storm must actually have exercised what it claims to test.
  EXPECT_GT(stats["retries"], 0);
  EXPECT_GE(stats["deaths"], 8);
  EXPECT_GT(stats["rejected_while_successor_ran"], 0)
      << "no stale finish arrived while its successor ran; the storm proved nothing about fences";
}

}  // namespace
}  // namespace gatehouse::storm
