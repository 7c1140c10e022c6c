// The chaos schedule: deterministic by seed, every kill inside the play, every fault kind
// present, stops past the lease, and the bodies it PUTs are JSON objects.
#include "bench/chaos/chaos_schedule.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

namespace gatehouse::chaos {
namespace {

TEST(ChaosScheduleTest, TheSameSeedGivesTheSameScheduleAndAnotherSeedAnother) {
  ChaosScheduleOptions o;
  const ChaosSchedule a = MakeChaosSchedule(o), b = MakeChaosSchedule(o);
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(a.events[i].at_ms, b.events[i].at_ms);
    EXPECT_EQ(a.events[i].label, b.events[i].label);
  }
  o.seed = 2;
  const ChaosSchedule c = MakeChaosSchedule(o);
  bool differs = c.events.size() != a.events.size();
  for (size_t i = 0; !differs && i < a.events.size(); ++i) {
    differs = a.events[i].at_ms != c.events[i].at_ms || a.events[i].label != c.events[i].label;
  }
  EXPECT_TRUE(differs);
}

TEST(ChaosScheduleTest, EveryKillLandsInThePlayAndEveryKindIsThere) {
  ChaosScheduleOptions o;
  o.kills = 200;
  o.play_ms = 160'000;
  o.nodes = 3;
  const ChaosSchedule s = MakeChaosSchedule(o);
  int64_t kills = 0, all = 0;
  std::set<ChaosFault> kinds;
  int64_t last = -1;
  for (const ChaosEvent& e : s.events) {
    EXPECT_GE(e.at_ms, last) << "events are in time order";
    last = e.at_ms;
    EXPECT_GE(e.at_ms, 0);
    EXPECT_LT(e.at_ms, o.play_ms);
    kinds.insert(e.kind);
    if (e.kind == ChaosFault::kKill) {
      ++kills;
      all += e.all_nodes;
    }
    if (e.kind == ChaosFault::kStop) {
      EXPECT_GT(e.down_ms, o.lease_ms) << "a stop outlasts the lease";
    }
    if (!e.faults_json.empty()) {
      boost::system::error_code ec;
      boost::json::value v = boost::json::parse(e.faults_json, ec);
      EXPECT_FALSE(ec) << e.faults_json;
      EXPECT_TRUE(v.is_object()) << e.faults_json;
    }
  }
  EXPECT_EQ(kills, 200);
  EXPECT_EQ(s.injected.at("kill"), 200);
  EXPECT_GT(all, 0) << "some kills take every node down";
  EXPECT_LT(all, kills) << "with three nodes, not every kill takes them all";
  EXPECT_EQ(kinds.size(), 5u);
}

TEST(ChaosScheduleTest, WithOneNodeEveryKillTakesTheServiceDown) {
  const ChaosSchedule s = MakeChaosSchedule(ChaosScheduleOptions{});
  for (const ChaosEvent& e : s.events) {
    if (e.kind == ChaosFault::kKill) {
      EXPECT_TRUE(e.all_nodes);
    }
  }
}

}  // namespace
}  // namespace gatehouse::chaos
