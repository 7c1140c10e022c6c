// gatehouse and gatehouse-sim together, as real processes on loopback:
//  - the simulator's signed webhooks are verified and routed by gatehouse's ingress;
//  - gatehouse's GitHub client talks to the simulator's REST API and meets GitHub's guards.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

#include "github/client.h"
#include "github/errors.h"
#include "github/transport.h"
#include "http/test_client.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"

namespace gatehouse {
namespace {

using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::RoundTrip;

constexpr char kSecret[] = "sim-e2e-secret";

// Reads "<prefix>http://127.0.0.1:PORT..." from the child's first line.
uint16_t PortFrom(const std::string& line) {
  const size_t at = line.find("127.0.0.1:");
  if (at == std::string::npos) return 0;
  return static_cast<uint16_t>(std::stoi(line.substr(at + 10)));
}

struct Processes {
  std::unique_ptr<testing::ChildProcess> gatehouse;
  std::unique_ptr<testing::ChildProcess> sim;
  uint16_t gatehouse_port = 0;
  uint16_t sim_port = 0;
};

Processes Start(const std::string& db) {
  setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);
  Processes p;
  p.gatehouse = std::make_unique<testing::ChildProcess>(std::vector<std::string>{
      GATEHOUSE_BIN, "serve", "--db", db, "--listen", "127.0.0.1:0", "--admin-listen",
      "127.0.0.1:0", "--debounce-ms", "0", "--log-level", "error"});
  p.gatehouse_port = PortFrom(p.gatehouse->ReadLine());
  p.sim = std::make_unique<testing::ChildProcess>(std::vector<std::string>{
      GATEHOUSE_SIM_BIN, "serve", "--listen", "127.0.0.1:0", "--webhook-url",
      "http://127.0.0.1:" + std::to_string(p.gatehouse_port) + "/webhook", "--insecure-any-token",
      "--mergeable-delay-ms", "0", "--log-level", "error"});
  p.sim_port = PortFrom(p.sim->ReadLine());
  return p;
}

ClientResponse Control(uint16_t port, const std::string& path, const std::string& body) {
  return RoundTrip(port, BuildRequest("POST", path, {{"Content-Type", "application/json"}}, body));
}

TEST(SimE2eTest, SimulatorWebhooksAreVerifiedAndRoutedByGatehouse) {
  testing::TempDir dir;
  Processes p = Start(dir.File("g.db"));
  ASSERT_NE(p.gatehouse_port, 0);
  ASSERT_NE(p.sim_port, 0);
  ASSERT_EQ(
      Control(p.sim_port, "/_sim/repos", R"({"owner":"acme","name":"app","installation_id":7})")
          .status,
      201);
  ASSERT_EQ(Control(p.sim_port, "/_sim/repos/acme/app/pulls", R"({"title":"Add feature"})").status,
            201);
  EXPECT_EQ(Control(p.sim_port, "/_sim/repos/acme/app/pulls/1/push", "{}").status / 100, 2);
  EXPECT_EQ(Control(p.sim_port, "/_sim/repos/acme/app/check-runs", R"({"pr":1})").status / 100, 2);
  EXPECT_EQ(Control(p.sim_port, "/_sim/repos/acme/app/pulls/1/reviews",
                    R"({"user":"bob","event":"APPROVE"})")
                    .status /
                100,
            2);

  // Wait until gatehouse has received and routed the simulator's webhooks. Both are other
  // processes: their progress shows only in the shared database file, so poll it.
  auto store = OpenSqliteStore(dir.File("g.db"));
  ASSERT_TRUE(store.ok());
  Funnel f;
  for (int i = 0; i < 20000; ++i) {  // bounded safety net
    auto funnel = (*store)->inbox().GetFunnel();
    ASSERT_TRUE(funnel.ok());
    f = *funnel;
    if (f.received >= 5 && f.in_flight == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(f.received, 5);
  EXPECT_EQ(f.rejected, 0) << "every simulator signature must verify";
  EXPECT_EQ(f.dead, 0);
  EXPECT_EQ(f.in_flight, 0);
  EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight);
  auto item = (*store)->work().GetWorkItem("acme/app#1");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_GE((*item)->requested_gen, 4) << "opened, pushed, ci-completed, reviewed";
  auto counters = (*store)->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ((*counters)["inbox.rejected.signature"], 0);

  p.sim->Signal(SIGTERM);
  EXPECT_EQ(p.sim->Wait(), 0);
  p.gatehouse->Signal(SIGTERM);
  EXPECT_EQ(p.gatehouse->Wait(), 0);
}

TEST(SimE2eTest, ClientMeetsTheSimulatorsGuards) {
  testing::TempDir dir;
  Processes p = Start(dir.File("g.db"));
  ASSERT_NE(p.sim_port, 0);
  ASSERT_EQ(
      Control(p.sim_port, "/_sim/repos", R"({"owner":"acme","name":"app","installation_id":7})")
          .status,
      201);
  ASSERT_EQ(Control(p.sim_port, "/_sim/repos/acme/app/pulls", R"({"title":"Add feature"})").status,
            201);

  CurlTransportOptions options;
  options.base_url = "http://127.0.0.1:" + std::to_string(p.sim_port);
  auto transport = CurlTransport::Create(options);
  ASSERT_TRUE(transport.ok()) << transport.status().ToString();
  PersonalTokenSource tokens("any-token");
  GitHubClient client(**transport, tokens, std::make_shared<RealClock>());
  const CallContext ctx{0, false};
  const RepoRef repo{"acme", "app"};

  auto pr = client.GetPullRequest(ctx, repo, 1);
  ASSERT_TRUE(pr.ok()) << pr.status().ToString();
  EXPECT_EQ(pr->state, "open");
  ASSERT_FALSE(pr->head_sha.empty());

  // A push lands between our read and our merge: the merge bound to the old head is refused.
  ASSERT_EQ(Control(p.sim_port, "/_sim/repos/acme/app/pulls/1/push", "{}").status / 100, 2);
  auto stale = client.Merge(ctx, repo, 1, pr->head_sha, "squash");
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().kind, GitHubErrorKind::kHeadModified);
  EXPECT_TRUE(IsSuperseded(stale.error()));

  auto fresh = client.GetPullRequest(ctx, repo, 1);
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(fresh->head_sha, pr->head_sha);
  auto merged = client.Merge(ctx, repo, 1, fresh->head_sha, "squash");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_TRUE(merged->merged);
  auto again = client.Merge(ctx, repo, 1, fresh->head_sha, "squash");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, GitHubErrorKind::kNotMergeable);

  // The effect log saw one successful merge, at the new head, and two refusals.
  ClientResponse effects =
      RoundTrip(p.sim_port, BuildRequest("GET", "/_sim/effects?kind=merge", {}, ""));
  ASSERT_EQ(effects.status, 200) << effects.body;
  boost::json::value v = boost::json::parse(effects.body);
  const boost::json::array* list = v.if_array();
  if (list == nullptr && v.is_object() && v.as_object().contains("effects")) {
    list = v.as_object().at("effects").if_array();
  }
  ASSERT_NE(list, nullptr) << effects.body;
  int ok_merges = 0;
  for (const auto& e : *list) {
    const auto& o = e.as_object();
    const auto* status = o.if_contains("status");
    const bool success = status != nullptr && status->is_int64() && status->as_int64() / 100 == 2;
    if (success) {
      ++ok_merges;
      EXPECT_EQ(o.at("sha").as_string(), fresh->head_sha);
    }
  }
  EXPECT_EQ(ok_merges, 1) << effects.body;

  p.sim->Signal(SIGTERM);
  EXPECT_EQ(p.sim->Wait(), 0);
  p.gatehouse->Signal(SIGTERM);
  EXPECT_EQ(p.gatehouse->Wait(), 0);
}

}  // namespace
}  // namespace gatehouse
