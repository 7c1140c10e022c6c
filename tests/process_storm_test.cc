// The randomized storm with several OS processes sharing one database, on every backend (a
// SQLite file; a PostgreSQL database, where the engines' wake-ups also cross processes). Three storm_child
// engines (4 workers each) run passes while this process sends the signals. On top of the
// in-pass faults (random failures, always-failing keys, passes that stall past their lease)
// one child is frozen with SIGSTOP for several lease lengths and later another is killed with
// SIGKILL and replaced. The invariants are proven from the shared pass log.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "base/log.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"
#include "tests/storm_driver.h"
#include "tests/storm_log.h"

namespace gatehouse::storm {
namespace {

using testing::ChildProcess;

uint64_t StormSeed() {
  if (const char* s = std::getenv("GATEHOUSE_STORM_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

std::unique_ptr<ChildProcess> SpawnEngine(const testing::TempDir& dir, const std::string& db,
                                         uint64_t seed) {
  auto child = std::make_unique<ChildProcess>(std::vector<std::string>{
      STORM_CHILD_PATH, "--mode", "storm", "--db", db, "--log", dir.File("storm.log"),
      "--heal", dir.File("healed"), "--workers", "4", "--lease-ms", "200", "--seed",
      std::to_string(seed)});
  EXPECT_TRUE(child->ok());
  EXPECT_EQ(child->ReadLine().rfind("ready ", 0), 0u) << "child did not start";
  return child;
}

class ProcessStormTest : public ::testing::TestWithParam<testing::StoreBackend> {};

INSTANTIATE_TEST_SUITE_P(Backends, ProcessStormTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

TEST_P(ProcessStormTest, ProcessesSharingOneDatabaseKeepEveryInvariant) {
  SetLogLevel(LogLevel::kOff);
  testing::TempDir dir;
  const uint64_t seed = StormSeed();
  std::printf("process storm seed %llu (GATEHOUSE_STORM_SEED to replay)\n",
              static_cast<unsigned long long>(seed));
  StorePtr store = GetParam().open_fresh(dir);
  const std::string db = GetParam().url(dir);

  std::vector<std::unique_ptr<ChildProcess>> engines;
  for (int i = 0; i < 3; ++i) engines.push_back(SpawnEngine(dir, db, seed + 100 * (i + 1)));

  const StormPlan plan = MakeStormPlan(240, 6, 10, 30, seed);
  Enqueuer enqueuer(*store, std::make_shared<RealClock>(), Durability::kRecoverable);
  std::set<int> crashed;
  std::thread faults([&] {
    // Real faults while the signals flow: a process frozen past its leases, then a crash.
    // The sleeps are the fault schedule itself, in the real time the engine processes run on.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    engines[0]->Signal(SIGSTOP);
    std::this_thread::sleep_for(std::chrono::milliseconds(800));  // 4 lease lengths
    engines[0]->Signal(SIGCONT);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    crashed.insert(engines[1]->pid());
    engines[1]->Signal(SIGKILL);
    EXPECT_EQ(engines[1]->Wait(), 128 + SIGKILL);
  });
  ProduceSignals(enqueuer, plan, 4, seed);
  faults.join();
  engines.push_back(SpawnEngine(dir, db, seed + 999));  // the replacement for the killed one

  // Between looks at the shared database: the engines are other processes, whose progress this
  // process can only see by polling the database.
  auto tick = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  StormExpectations want;
  want.max_attempts = 4;
  want.crashed_pids = crashed;
  ASSERT_TRUE(HealAndDrain(*store, dir.File("healed"), tick, plan, &want))
      << "storm never drained";
  for (size_t i = 0; i < engines.size(); ++i) {
    if (i == 1) continue;  // killed
    engines[i]->Signal(SIGTERM);
    EXPECT_EQ(engines[i]->Wait(), 0) << "engine " << i << " did not stop cleanly";
  }

  std::map<std::string, int64_t> stats;
  auto violations = CheckStormInvariants(ParseStormLog(dir.File("storm.log")), want, &stats);
  for (const auto& v : violations) ADD_FAILURE() << v;
  std::printf(
      "process storm: %zu signals, %lld passes (%lld completed, %lld retries, %lld dead, "
      "%lld overlaps, %lld stale finishes rejected, %lld while the successor ran)\n",
      plan.signals.size(), static_cast<long long>(stats["passes"]),
      static_cast<long long>(stats["completed"]), static_cast<long long>(stats["retries"]),
      static_cast<long long>(stats["deaths"]), static_cast<long long>(stats["overlaps"]),
      static_cast<long long>(stats["rejected"]),
      static_cast<long long>(stats["rejected_while_successor_ran"]));
  EXPECT_GT(stats["retries"], 0);
  EXPECT_GT(stats["rejected_while_successor_ran"], 0) << "fences were never exercised";
  EXPECT_GE(stats["deaths"], 6);
  auto counters = store->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_GT((*counters)["work.leases_expired"], 0) << "no lease ever expired: no stall happened";
}

}  // namespace
}  // namespace gatehouse::storm
