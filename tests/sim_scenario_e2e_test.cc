// `gatehouse-sim run` against a real `gatehouse serve`, both as processes on loopback: the
// simulator plays a scenario file, sends its signed webhooks to gatehouse and prints a
// verdict; gatehouse's store must show every one of those webhooks received and routed.
// gatehouse runs without GitHub credentials here, which means it makes no GitHub call, so the
// scenarios expect a world it leaves alone.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "http/test_client.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"

namespace gatehouse {
namespace {

constexpr char kSecret[] = "sim-scenario-e2e-secret";

// Reads "<prefix>http://127.0.0.1:PORT..." from the child's first line.
uint16_t PortFrom(const std::string& line) {
  const size_t at = line.find("127.0.0.1:");
  if (at == std::string::npos) return 0;
  return static_cast<uint16_t>(std::stoi(line.substr(at + 10)));
}

// The key=value counts of a verdict line.
std::map<std::string, int64_t> Counts(const std::string& verdict) {
  std::map<std::string, int64_t> counts;
  std::istringstream in(verdict);
  std::string word;
  while (in >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    counts[word.substr(0, eq)] = std::stoll(word.substr(eq + 1));
  }
  return counts;
}

struct RunResult {
  int exit_code = -1;
  std::string last_line;
};

class SimScenarioE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);
    gatehouse_ = std::make_unique<testing::ChildProcess>(std::vector<std::string>{
        GATEHOUSE_BIN, "serve", "--db", dir_.File("g.db"), "--listen", "127.0.0.1:0",
        "--admin-listen", "127.0.0.1:0", "--debounce-ms", "0", "--log-level", "error"});
    ASSERT_TRUE(gatehouse_->ok());
    port_ = PortFrom(gatehouse_->ReadLine());
    ASSERT_NE(port_, 0);
  }
  void TearDown() override {
    if (gatehouse_ && gatehouse_->ok()) {
      gatehouse_->Signal(SIGTERM);
      EXPECT_EQ(gatehouse_->Wait(), 0);
    }
  }

  // Plays `scenario` with `gatehouse-sim run` and waits for it to exit.
  RunResult Run(const std::string& name, const std::string& scenario) {
    std::string path = dir_.File(name);
    std::ofstream(path) << scenario;
    testing::ChildProcess sim(std::vector<std::string>{
        GATEHOUSE_SIM_BIN, "run", path, "--target",
        "http://127.0.0.1:" + std::to_string(port_) + "/webhook", "--listen", "127.0.0.1:0",
        "--insecure-any-token", "--mergeable-delay-ms", "0", "--log-level", "error"});
    RunResult result;
    if (!sim.ok()) return result;
    for (std::string line = sim.ReadLine(); !line.empty(); line = sim.ReadLine()) {
      result.last_line = line;
    }
    result.exit_code = sim.Wait();
    return result;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::ChildProcess> gatehouse_;
  uint16_t port_ = 0;
};

// One PR with a label; a push and two check runs at the same instant; a review and a
// comment. gatehouse only routes (it does not act yet), so the PR stays open and unmerged.
constexpr char kScenario[] = R"({
  "setup": [
    {"call": "POST /_sim/repos", "body": {"owner": "acme", "name": "app", "installation_id": 7}},
    {"call": "POST /_sim/repos", "body": {"owner": "acme", "name": "lib", "installation_id": 7}}
  ],
  "timeline": [
    {"at_ms": 0, "call": "POST /_sim/repos/acme/app/pulls",
     "body": {"title": "Add feature", "author": "alice", "labels": ["ready"]}},
    {"at_ms": 20, "call": "POST /_sim/repos/acme/app/pulls/1/push", "body": {"user": "alice"}},
    {"at_ms": 20, "call": "POST /_sim/repos/acme/app/check-runs",
     "body": {"pr": 1, "name": "ci", "conclusion": "success"}},
    {"at_ms": 20, "call": "POST /_sim/repos/acme/app/check-runs",
     "body": {"pr": 1, "name": "lint", "conclusion": "success"}},
    {"at_ms": 40, "call": "POST /_sim/repos/acme/app/pulls/1/reviews",
     "body": {"user": "bob", "event": "APPROVE"}},
    {"at_ms": 40, "call": "POST /_sim/repos/acme/app/pulls/1/comments",
     "body": {"user": "bob", "body": "ship it"}}
  ],
  "expect": [
    {"pull": "acme/app#1", "state": "open", "labels": ["ready"], "reviews": 1, "comments": 1},
    {"kind": "push", "repo": "acme/app", "number": 1, "count": 1},
    {"kind": "merge", "count": 0}
  ],
  "timeout_ms": 2000,
  "settle_ms": 100
})";

TEST_F(SimScenarioE2eTest, ScenarioPassesAndEveryWebhookIsRouted) {
  RunResult run = Run("scenario.json", kScenario);
  EXPECT_EQ(run.exit_code, 0) << run.last_line;
  ASSERT_EQ(run.last_line.rfind("verdict: ok ", 0), 0u) << run.last_line;
  std::map<std::string, int64_t> counts = Counts(run.last_line);
  EXPECT_EQ(counts["expectations"], 3);
  EXPECT_EQ(counts["steps"], 8);
  EXPECT_EQ(counts["steps_failed"], 0);
  EXPECT_EQ(counts["unmet"], 0);
  EXPECT_EQ(counts["webhooks_failed"], 0);
  // opened, synchronize, 2 x check_run.completed (+ check_suite), review, comment.
  const int64_t sent = counts["webhooks_delivered"];
  EXPECT_GE(sent, 6);

  // Each delivery was answered 2xx, i.e. committed to gatehouse's inbox, before `run` exited;
  // routing may still be catching up, so poll the store (a bounded safety net only): routing
  // runs in the gatehouse process, visible here only through the shared database file.
  auto store = OpenSqliteStore(dir_.File("g.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Funnel f;
  for (int i = 0; i < 20000; ++i) {
    auto funnel = (*store)->inbox().GetFunnel();
    ASSERT_TRUE(funnel.ok());
    f = *funnel;
    if (f.received >= sent && f.in_flight == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(f.received, sent);
  EXPECT_EQ(f.rejected, 0) << "every simulator signature must verify";
  EXPECT_EQ(f.dead, 0);
  EXPECT_EQ(f.in_flight, 0);
  EXPECT_EQ(f.duplicate, 0);
  EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight);
  EXPECT_GE(f.routed, 1);
  auto item = (*store)->work().GetWorkItem("acme/app#1");
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  ASSERT_TRUE(item->has_value());
  EXPECT_GE((*item)->requested_gen, 1);
}

TEST_F(SimScenarioE2eTest, AnExpectationThatCannotHoldFails) {
  RunResult run = Run("impossible.json", R"({
    "setup": [{"call": "POST /_sim/repos",
               "body": {"owner": "acme", "name": "app", "installation_id": 7}}],
    "timeline": [{"at_ms": 0, "call": "POST /_sim/repos/acme/app/pulls", "body": {"title": "x"}}],
    "expect": [{"pull": "acme/app#1", "state": "merged"}],
    "timeout_ms": 200,
    "settle_ms": 0
  })");
  EXPECT_NE(run.exit_code, 0);
  ASSERT_EQ(run.last_line.rfind("verdict: FAIL ", 0), 0u) << run.last_line;
  EXPECT_EQ(Counts(run.last_line)["unmet"], 1);
}

// Both ends on port 0: `run --wait-for-target` prints its port, plays nothing until the
// harness PUTs gatehouse's webhook URL, then plays the scenario against it.
TEST_F(SimScenarioE2eTest, RunWaitsForItsTargetThenPlays) {
  std::string path = dir_.File("wait.json");
  std::ofstream(path) << kScenario;
  testing::ChildProcess sim(std::vector<std::string>{
      GATEHOUSE_SIM_BIN, "run", path, "--listen", "127.0.0.1:0", "--wait-for-target",
      "--insecure-any-token", "--mergeable-delay-ms", "0", "--log-level", "error"});
  ASSERT_TRUE(sim.ok());
  const uint16_t sim_port = PortFrom(sim.ReadLine());
  ASSERT_NE(sim_port, 0);
  using http_testing::BuildRequest;
  using http_testing::RoundTrip;
  // Waiting: not a step has been played.
  EXPECT_EQ(RoundTrip(sim_port, BuildRequest("GET", "/_sim/effects", {}, "")).body, "[]");
  const std::string url = "http://127.0.0.1:" + std::to_string(port_) + "/webhook";
  auto put = RoundTrip(
      sim_port, BuildRequest("PUT", "/_sim/webhook-url", {{"Content-Type", "application/json"}},
                             R"({"url":")" + url + R"("})"));
  EXPECT_EQ(put.status, 200) << put.body;
  std::string last;
  for (std::string line = sim.ReadLine(); !line.empty(); line = sim.ReadLine()) last = line;
  EXPECT_EQ(sim.Wait(), 0) << last;
  ASSERT_EQ(last.rfind("verdict: ok ", 0), 0u) << last;
  std::map<std::string, int64_t> counts = Counts(last);
  EXPECT_GE(counts["webhooks_delivered"], 6);
  EXPECT_EQ(counts["webhooks_failed"], 0);
  EXPECT_EQ(counts["webhooks_dropped"], 0);
}

// `run --linger` prints its verdict, then keeps serving GitHub's API (the PR it made is still
// there to read) until SIGTERM, and exits with the verdict's status: 0 for ok, 1 for FAIL.
TEST_F(SimScenarioE2eTest, RunWithLingerServesAfterItsVerdictUntilStopped) {
  // One PR opened at once; the scenario expects it in `state` within `timeout_ms`.
  auto scenario = [](const std::string& state, int timeout_ms) {
    return R"({"setup": [{"call": "POST /_sim/repos",
                          "body": {"owner": "acme", "name": "app", "installation_id": 7}}],
               "timeline": [{"at_ms": 0, "call": "POST /_sim/repos/acme/app/pulls",
                             "body": {"title": "x"}}],
               "expect": [{"pull": "acme/app#1", "state": ")" +
           state + R"("}], "timeout_ms": )" + std::to_string(timeout_ms) + R"(, "settle_ms": 0})";
  };
  struct Case {
    std::string scenario;
    const char* verdict;
    int exit_code;
  };
  const Case cases[] = {
      {scenario("open", 2000), "verdict: ok ", 0},
      {scenario("merged", 200), "verdict: FAIL ", 1},
  };
  for (const Case& c : cases) {
    const std::string path = dir_.File("linger.json");
    std::ofstream(path) << c.scenario;
    testing::ChildProcess sim(std::vector<std::string>{
        GATEHOUSE_SIM_BIN, "run", path, "--target",
        "http://127.0.0.1:" + std::to_string(port_) + "/webhook", "--listen", "127.0.0.1:0",
        "--insecure-any-token", "--linger", "--log-level", "error"});
    ASSERT_TRUE(sim.ok());
    const uint16_t sim_port = PortFrom(sim.ReadLine());
    ASSERT_NE(sim_port, 0);
    const std::string verdict = sim.ReadLine();
    ASSERT_EQ(verdict.rfind(c.verdict, 0), 0u) << verdict;
    // After the verdict: still up, and the world is as the scenario left it.
    using http_testing::BuildRequest;
    using http_testing::RoundTrip;
    auto pull = RoundTrip(sim_port, BuildRequest("GET", "/repos/acme/app/pulls/1",
                                                 {{"Authorization", "Bearer any"}}, ""));
    EXPECT_EQ(pull.status, 200) << pull.body;
    EXPECT_NE(pull.body.find(R"("title":"x")"), std::string::npos) << pull.body;
    sim.Signal(SIGTERM);
    EXPECT_EQ(sim.Wait(), c.exit_code) << verdict;
  }
}

TEST_F(SimScenarioE2eTest, RunWithoutATargetInTimeFails) {
  std::string path = dir_.File("never.json");
  std::ofstream(path) << R"({"timeline": [], "timeout_ms": 100})";
  testing::ChildProcess sim(std::vector<std::string>{GATEHOUSE_SIM_BIN, "run", path, "--listen",
                                                     "127.0.0.1:0", "--wait-for-target",
                                                     "--log-level", "error"});
  ASSERT_TRUE(sim.ok());
  EXPECT_NE(PortFrom(sim.ReadLine()), 0);
  std::string last;
  for (std::string line = sim.ReadLine(); !line.empty(); line = sim.ReadLine()) last = line;
  EXPECT_EQ(sim.Wait(), 1);
  EXPECT_EQ(last, "verdict: FAIL target_wait_timeout=1");
}

}  // namespace
}  // namespace gatehouse
