// SIGKILL of `gatehouse serve` while a command reviewer runs (docs/REVIEWERS.md, "Guarantees"):
// gatehouse and gatehouse-sim as real processes on loopback. After a restart the run's work
// item is reclaimed with a higher fence once the lease runs out, the reviewer runs again, and
// exactly one review is posted on the PR.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "github/fake_github_test_util.h"
#include "http/test_client.h"
#include "store/open_store.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"

namespace gatehouse {
namespace {

using http_testing::BuildRequest;
using http_testing::RoundTrip;

constexpr char kSecret[] = "review-crash-secret";

uint16_t PortFrom(const std::string& line) {
  const size_t at = line.find("127.0.0.1:");
  if (at == std::string::npos) return 0;
  return static_cast<uint16_t>(std::stoi(line.substr(at + 10)));
}

int Call(uint16_t port, const std::string& method, const std::string& path, const std::string& body,
         std::string* reply = nullptr) {
  auto r = RoundTrip(
      port,
      BuildRequest(method, path,
                   {{"Content-Type", "application/json"}, {"Authorization", "token any"}}, body));
  if (reply != nullptr) *reply = r.body;
  return r.status;
}

size_t LineCount(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string l; std::getline(in, l);) ++n;
  return n;
}

// Polls `done` (other processes' progress shows only in files and over HTTP); a bounded net.
bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 60000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

TEST(ReviewCrashTest, SigkillWhileAReviewerRunsEndsInExactlyOneReview) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db"), log = dir.File("log"), go = dir.File("go"),
                    key = dir.File("key.pem"), script = dir.File("r.sh"),
                    reviewers = dir.File("reviewers.yml");
  std::ofstream(key) << github_testing::GetTestRsaKey().private_pem;
  std::ofstream(script) << "#!/bin/sh\ncat > /dev/null\necho start >> \"$1\"\n"
                           "while [ ! -f \"$2\" ]; do sleep 0.02; done\n"
                           "printf '{\"verdict\":\"comment\",\"summary\":\"looked\","
                           "\"findings\":[]}'\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  std::ofstream(reviewers) << "reviewers:\n  - name: sec\n    roles: [security]\n"
                              "    executor: {type: command, argv: ["
                           << script << ", " << log << ", " << go << "]}\n    timeout: 120s\n";

  setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);  // the simulator signs with it too
  testing::ChildProcess sim({GATEHOUSE_SIM_BIN, "serve", "--listen", "127.0.0.1:0",
                             "--insecure-any-token", "--mergeable-delay-ms", "0", "--log-level",
                             "error"});
  const uint16_t sim_port = PortFrom(sim.ReadLine());
  ASSERT_NE(sim_port, 0);
  setenv("GATEHOUSE_GITHUB_APP_ID", "4242", 1);
  setenv("GATEHOUSE_GITHUB_PRIVATE_KEY_FILE", key.c_str(), 1);
  const std::string api = "http://127.0.0.1:" + std::to_string(sim_port);
  setenv("GATEHOUSE_GITHUB_API_URL", api.c_str(), 1);
  auto serve = [&] {
    return std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{GATEHOUSE_BIN,
                                 "serve",
                                 "--db",
                                 db,
                                 "--listen",
                                 "127.0.0.1:0",
                                 "--admin-listen",
                                 "127.0.0.1:0",
                                 "--debounce-ms",
                                 "0",
                                 "--lease-seconds",
                                 "2",
                                 "--autonomy",
                                 "suggest",
                                 "--sweep-interval-seconds",
                                 "0",
                                 "--reviewers",
                                 reviewers,
                                 "--log-level",
                                 "error"});
  };
  auto victim = serve();
  const uint16_t port = PortFrom(victim->ReadLine());
  ASSERT_NE(port, 0);
  // The simulator secret and URL: webhooks go to the victim, then to its successor's port.
  auto webhooks_to = [&](uint16_t p) {
    return Call(sim_port, "PUT", "/_sim/webhook-url",
                R"({"url":"http://127.0.0.1:)" + std::to_string(p) + R"(/webhook"})");
  };
  ASSERT_EQ(webhooks_to(port) / 100, 2);
  const std::string policy = "reviews:\n  roles:\n    - role: security\n      required: true\n";
  ASSERT_EQ(Call(sim_port, "POST", "/_sim/repos",
                 boost::json::serialize(boost::json::object{
                     {"owner", "acme"},
                     {"name", "app"},
                     {"installation_id", 7},
                     {"files", boost::json::object{{".github/gatehouse.yml", policy}}}})),
            201);
  ASSERT_EQ(Call(sim_port, "POST", "/_sim/repos/acme/app/pulls", R"({"title":"Add feature"})"),
            201);

  ASSERT_TRUE(Eventually([&] { return LineCount(log) == 1; })) << "the reviewer never started";
  victim->Signal(SIGKILL);
  ASSERT_EQ(victim->Wait(), 128 + SIGKILL);
  int64_t victim_fence = 0;
  {
    auto store = OpenStore(db);
    ASSERT_TRUE(store.ok());
    auto item = (*store)->work().GetWorkItem("acme/app#1/review/security");
    ASSERT_TRUE(item.ok() && item->has_value());
    EXPECT_EQ((*item)->state, WorkState::kRunning);
    victim_fence = (*item)->fence;
  }

  auto successor = serve();
  const uint16_t port2 = PortFrom(successor->ReadLine());
  ASSERT_NE(port2, 0);
  ASSERT_EQ(webhooks_to(port2) / 100, 2);
  ASSERT_TRUE(Eventually([&] { return LineCount(log) == 2; })) << "the run was not reclaimed";
  std::ofstream(go) << "go";
  auto store = OpenStore(db);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(Eventually([&] {
    auto runs = (*store)->reviews().ListRuns("acme/app#1");
    return runs.ok() && runs->size() == 1 && (*runs)[0].state == RunState::kDone;
  })) << "the run never finished";
  auto item = (*store)->work().GetWorkItem("acme/app#1/review/security");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_GT((*item)->fence, victim_fence);
  auto runs = (*store)->reviews().ListRuns("acme/app#1");
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ((*runs)[0].starts, 2);

  std::string body;
  ASSERT_EQ(Call(sim_port, "GET", "/repos/acme/app/pulls/1/reviews", "", &body), 200);
  const boost::json::value reviews = boost::json::parse(body);
  int ours = 0;
  for (const auto& r : reviews.as_array()) {
    if (std::string(r.at("body").as_string()).find("<!-- gatehouse:review ") != std::string::npos) {
      ++ours;
    }
  }
  EXPECT_EQ(ours, 1) << body;

  successor->Signal(SIGTERM);
  EXPECT_EQ(successor->Wait(), 0);
  sim.Signal(SIGTERM);
  EXPECT_EQ(sim.Wait(), 0);
}

}  // namespace
}  // namespace gatehouse
