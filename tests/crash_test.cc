// kill -9 a process in the middle of a pass: after a restart the item is reclaimed with a
// higher fence once the lease has run out, and nothing is lost.
#include <gtest/gtest.h>

#include <sstream>

#include "base/log.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"
#include "tests/storm_log.h"

namespace gatehouse {
namespace {

using testing::ChildProcess;

std::vector<std::string> Words(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> out;
  for (std::string w; ss >> w;) out.push_back(w);
  return out;
}

TEST(CrashTest, KilledMidPassIsReclaimedWithAHigherFenceAndNothingIsLost) {
  SetLogLevel(LogLevel::kOff);
  testing::TempDir dir;
  const std::string db = dir.File("g.db"), log = dir.File("crash.log");
  auto store = OpenSqliteStore(db);
  ASSERT_TRUE(store.ok());
  std::vector<Signal> first(2, Signal{"crash/app#1", "pushed", Duration(0)});
  ASSERT_TRUE((*store)->work().Enqueue(first, RealClock().Now(), Durability::kAcknowledged).ok());

  // 1. A process claims the item and hangs mid-pass (its heartbeat still renewing).
  ChildProcess victim({STORM_CHILD_PATH, "--mode", "crash", "--db", db, "--log", log, "--workers",
                       "2", "--lease-ms", "500"});
  ASSERT_TRUE(victim.ok());
  ASSERT_EQ(Words(victim.ReadLine())[0], "ready");
  const auto in_pass = Words(victim.ReadLine());
  ASSERT_EQ(in_pass.size(), 3u);
  ASSERT_EQ(in_pass[0], "in-pass");
  ASSERT_EQ(in_pass[1], "crash/app#1");
  const int64_t victim_fence = std::stoll(in_pass[2]);

  // 2. More signals arrive while it works, then it dies without a word.
  std::vector<Signal> more(3, Signal{"crash/app#1", "ci-completed", Duration(0)});
  ASSERT_TRUE((*store)->work().Enqueue(more, RealClock().Now(), Durability::kAcknowledged).ok());
  victim.Signal(SIGKILL);
  ASSERT_EQ(victim.Wait(), 128 + SIGKILL);

  auto item = (*store)->work().GetWorkItem("crash/app#1");
  ASSERT_TRUE(item.ok() && item->has_value());
  const WorkItem dead_holder = **item;
  EXPECT_EQ(dead_holder.state, WorkState::kRunning);
  EXPECT_EQ(dead_holder.fence, victim_fence);
  EXPECT_EQ(dead_holder.requested_gen, 5);
  EXPECT_EQ(dead_holder.done_gen, 0);
  ASSERT_TRUE(dead_holder.lease_until.has_value());
  const Time lease_until = *dead_holder.lease_until;
  // Before the lease runs out nobody may take the item.
  auto early = (*store)->work().Claim("intruder", 1, std::chrono::seconds(1),
                               lease_until - std::chrono::milliseconds(1));
  ASSERT_TRUE(early.ok());
  EXPECT_TRUE(early->empty());

  // 3. A restarted engine reclaims it once the lease has run out and covers every signal.
  ChildProcess restarted({STORM_CHILD_PATH, "--mode", "recover", "--db", db, "--log", log,
                          "--workers", "2", "--lease-ms", "500"});
  ASSERT_TRUE(restarted.ok());
  ASSERT_EQ(Words(restarted.ReadLine())[0], "ready");
  const auto finished = Words(restarted.ReadLine());
  ASSERT_EQ(finished.size(), 5u);
  EXPECT_EQ(finished[0], "finished");
  EXPECT_EQ(finished[1], "crash/app#1");
  EXPECT_EQ(std::stoll(finished[2]), victim_fence + 1);
  EXPECT_EQ(finished[3], "ok");
  EXPECT_EQ(std::stoll(finished[4]), 5) << "the reclaiming pass covers all five signals";
  restarted.Signal(SIGTERM);
  EXPECT_EQ(restarted.Wait(), 0);

  auto after = (*store)->work().GetWorkItem("crash/app#1");
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->state, WorkState::kIdle);
  EXPECT_EQ((*after)->done_gen, 5);
  EXPECT_EQ((*after)->requested_gen, 5);
  EXPECT_EQ((*after)->fence, victim_fence + 1);
  // The reclaiming pass started only after the dead holder's lease had run out.
  auto passes = storm::ParseStormLog(log)["crash/app#1"];
  ASSERT_EQ(passes.size(), 2u);
  EXPECT_FALSE(passes[0].finished) << "the killed pass recorded nothing";
  EXPECT_GE(passes[1].start_us, ToMicros(lease_until));
  auto counters = (*store)->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ((*counters)["work.leases_expired"], 1);
}

}  // namespace
}  // namespace gatehouse
