// Several `gatehouse serve` nodes on one PostgreSQL database, end to end: `gatehouse demo
// --nodes 3` (real gatehouse-sim and gatehouse serve processes, real HTTP on loopback, real
// signatures and App JWTs) with one node SIGKILLed mid-play and replaced. The demo's own
// verdict must be ok with no duplicate and no stale effect in the simulator's effect log;
// then the database, read through OpenStore, must show a balanced funnel, no work left, no
// open intent and exactly one merge per PR the world expects merged.
//
// Needs GATEHOUSE_TEST_PG_URL (scripts/test.sh sets it); skips, saying so, without it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "base/subject.h"
#include "store/open_store.h"
#include "store/pg_test_database.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"

namespace gatehouse {
namespace {

// 3 repositories × 4 PRs: long enough for a kill to land mid-play, short enough for CI.
constexpr int kPrsPerRepo = 4;
constexpr int kKillAfterSeconds = 3;

struct DemoRun {
  int exit = -1;
  std::string output;  // stdout, every line
};

DemoRun RunDemo(const std::string& dir, const std::string& db) {
  testing::ChildProcess demo(
      {GATEHOUSE_BIN, "demo", "--dir", dir, "--db", db, "--nodes", "3", "--kill-node-after-seconds",
       std::to_string(kKillAfterSeconds), "--prs", std::to_string(kPrsPerRepo), "--sim",
       GATEHOUSE_SIM_BIN, "--timeout-seconds", "90"},
      dir + "/demo.stderr");
  DemoRun run;
  if (!demo.ok()) return run;
  // ReadLine answers "" for a blank line and, at once and forever, at the end of the output;
  // the report never has two blank lines in a row.
  for (int blanks = 0; blanks < 3;) {
    const std::string line = demo.ReadLine();
    blanks = line.empty() ? blanks + 1 : 0;
    run.output += line + "\n";
    if (line.starts_with("verdict: ")) break;
  }
  run.exit = demo.Wait();
  return run;
}

// "key=value" fields of the verdict line.
std::map<std::string, std::string> VerdictFields(const std::string& output) {
  std::map<std::string, std::string> fields;
  std::smatch m;
  if (!std::regex_search(output, m, std::regex("verdict: (\\S+)([^\n]*)"))) return fields;
  fields["verdict"] = m[1];
  const std::string rest = m[2];
  const std::regex kv("(\\w+)=(\\S+)");
  for (auto it = std::sregex_iterator(rest.begin(), rest.end(), kv); it != std::sregex_iterator();
       ++it) {
    fields[(*it)[1]] = (*it)[2];
  }
  return fields;
}

class MultiNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* url = std::getenv(testing::kTestPgUrlEnv);
    if (url == nullptr || *url == '\0') {
      GTEST_SKIP() << testing::kTestPgUrlEnv
                   << " is not set: no PostgreSQL to run several nodes on (scripts/test.sh "
                      "starts one)";
    }
    cluster_ = url;
    auto db = testing::CreatePgTestDatabase(cluster_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  void TearDown() override {
    if (!db_.name.empty()) {
      EXPECT_TRUE(testing::DropPgTestDatabase(cluster_, db_.name).ok());
    }
  }

  std::string cluster_;
  testing::PgTestDatabase db_;
};

TEST_F(MultiNodeTest, ThreeNodesOneKilledMidPlayEndOkWithOneMergePerMergedPr) {
  testing::TempDir dir;
  const DemoRun run = RunDemo(dir.path(), db_.url);
  SCOPED_TRACE("demo output:\n" + run.output + "(logs in " + dir.path() + ")");
  const auto v = VerdictFields(run.output);
  ASSERT_EQ(v.count("verdict"), 1u) << "no verdict line";
  EXPECT_EQ(v.at("verdict"), "ok");
  EXPECT_EQ(run.exit, 0);
  EXPECT_EQ(v.count("nodes") ? v.at("nodes") : "", "3");
  EXPECT_EQ(v.count("kills") ? v.at("kills") : "", "1");
  EXPECT_EQ(v.count("duplicate_effects") ? v.at("duplicate_effects") : "", "0");
  EXPECT_EQ(v.count("stale_effects") ? v.at("stale_effects") : "", "0");
  EXPECT_EQ(v.count("lost") ? v.at("lost") : "", "0");
  EXPECT_EQ(v.count("duplicate_reviews") ? v.at("duplicate_reviews") : "", "0");
  // The progress lines (stderr) say which node was killed and which replaced it.
  std::ifstream progress(dir.path() + "/demo.stderr");
  std::string progress_text;
  for (std::string line; std::getline(progress, line);) progress_text += line + "\n";
  EXPECT_NE(progress_text.find("killed with SIGKILL; node 4 started on"), std::string::npos)
      << progress_text;

  // Every PR the world expects merged was merged by its story (the report's "merged M/M").
  std::smatch merged;
  ASSERT_TRUE(std::regex_search(run.output, merged, std::regex(" merged (\\d+)/(\\d+)")));
  const int want_merged = std::stoi(merged[2]);
  EXPECT_GT(want_merged, 0);
  EXPECT_EQ(std::stoi(merged[1]), want_merged);

  // The database at rest, as an operator would read it.
  StoreOptions options;
  options.listen = false;
  options.pool_size = 1;
  auto store = OpenStore(db_.url, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto funnel = (*store)->inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok()) << funnel.status().ToString();
  EXPECT_GT(funnel->routed, 0);
  EXPECT_EQ(funnel->in_flight, 0);
  EXPECT_EQ(funnel->dead, 0);

  auto items = (*store)->work().ListWorkItems(WorkFilter{std::nullopt, 100000, ""});
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  int prs_merged = 0;
  for (const WorkItem& w : *items) {
    SCOPED_TRACE(w.key);
    EXPECT_NE(w.state, WorkState::kDead) << w.last_error;
    EXPECT_NE(w.state, WorkState::kRunning);
    if (w.state == WorkState::kPending) {
      // Only the periodic sweep (or a PR's own timer) may have asked again since the demo
      // settled.
      for (const std::string& r : w.reasons) EXPECT_TRUE(r == "swept" || r == "timer") << r;
    }
    auto actions = (*store)->ledger().ListActions(w.key);
    ASSERT_TRUE(actions.ok()) << actions.status().ToString();
    int merges = 0;
    for (const ActionRecord& a : *actions) {
      EXPECT_NE(a.state, ActionState::kIntent) << "open intent " << a.key.kind;
      if (a.key.kind == "merge" && a.state == ActionState::kDone) ++merges;
    }
    EXPECT_LE(merges, 1) << "merged more than once";
    prs_merged += merges;
    // A merge queue's PRs merge through its entries (a batch landing), once each.
    if (QueueKey::Parse(w.key)) {
      auto entries = (*store)->queues().ListQueue(w.key, 100000);
      ASSERT_TRUE(entries.ok()) << entries.status().ToString();
      std::set<std::string> merged_prs;
      for (const QueueEntry& e : *entries) {
        if (e.state != EntryState::kMerged) continue;
        EXPECT_TRUE(merged_prs.insert(e.key.subject).second) << e.key.subject << " merged twice";
        ++prs_merged;
      }
    }
  }
  EXPECT_EQ(prs_merged, want_merged);
}

}  // namespace
}  // namespace gatehouse
