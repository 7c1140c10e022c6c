// GatehouseServer as `gatehouse serve` runs it, in-process: on 127.0.0.1:0 and a temporary
// SQLite file, acting as the App against the real simulator served in-process
// (sim/in_process_github_test_util.h). One webhook, rendered by the simulator for a PR it
// opened and signed with the webhook secret, goes over loopback to the server's endpoint;
// the server stores, routes and passes it, and the pass writes gatehouse's check run on the
// PR's head in the simulator. Real HTTP both ways, real signatures, real JWTs; no mocks.
//
// The simulator's clock starts at the real time: the server signs its JWTs with the real
// clock, and the simulator checks them against its own.
#include "app/gatehouse_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "base/mutex.h"
#include "github/fake_github_test_util.h"
#include "github/signature.h"
#include "http/test_client.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"
#include "sim/render.h"
#include "store/open_store.h"
#include "store/store_test_util.h"

namespace gatehouse::app {
namespace {

using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::RoundTrip;

constexpr char kSecret[] = "gatehouse-server-test-secret";
constexpr int64_t kInstallation = 7;
constexpr char kFullName[] = "acme/app";

class GatehouseServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    // What the simulator would send as webhooks: the opening, and gatehouse's check runs.
    github_.model().SetListener([this](const sim::Notification& n) {
      MutexLock lock(&mu_);
      if (n.event == "pull_request" && n.action == "opened") {
        opened_ = boost::json::serialize(sim::RenderWebhook(n));
      }
      if (n.event == "check_run" && n.check_run != nullptr && n.check_run->name == "gatehouse" &&
          n.check_run->app == "installation:" + std::to_string(kInstallation)) {
        check_run_head_ = n.check_run->head_sha;
        cv_.SignalAll();
      }
    });
    ASSERT_TRUE(github_.model().CreateRepo("acme", "app", kInstallation, {}).ok());
    auto pr = github_.model().CreatePull(kFullName, sim::NewPull{});
    ASSERT_TRUE(pr.ok()) << pr.status().ToString();
    head_ = pr->head_sha;
  }

  ServerOptions Options() {
    ServerOptions options;
    options.http.listen = "127.0.0.1:0";
    options.http.threads = 1;
    options.webhook.secrets = {kSecret};
    options.engine.workers = 2;
    options.debounce = Duration::zero();
    options.sweep_interval = Duration::zero();  // only the webhook brings a pass
    GitHubAuthConfig github;
    github.api_url = github_.base_url();
    github.app_id = sim_testing::kAppId;
    github.private_key_pem = github_testing::GetTestRsaKey().private_pem;
    options.github = github;
    // Suggest: a check run and a summary comment, nothing else.
    options.pass.defaults.actions.autonomy = decide::Autonomy::kSuggest;
    return options;
  }

  ClientResponse PostWebhook(uint16_t port, const std::string& body, const std::string& signature) {
    return RoundTrip(port, BuildRequest("POST", "/webhook",
                                        {{"Content-Type", "application/json"},
                                         {"X-GitHub-Event", "pull_request"},
                                         {"X-GitHub-Delivery", "delivery-opened-1"},
                                         {"X-Hub-Signature-256", signature}},
                                        body));
  }

  std::string Opened() {
    MutexLock lock(&mu_);
    return opened_;
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(RealClock().Now());
  sim_testing::InProcessGitHub github_{clock_};
  testing::TempDir dir_;
  std::string head_;
  Mutex mu_;
  CondVar cv_;
  std::string opened_ GUARDED_BY(mu_);
  std::string check_run_head_ GUARDED_BY(mu_);
};

TEST_F(GatehouseServerTest, ASignedWebhookOverLoopbackEndsInAPassThatActsOnThePullRequest) {
  auto store = OpenStore(dir_.File("gatehouse.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto server = GatehouseServer::Create(Options(), std::move(store).value());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ASSERT_TRUE((*server)->Start().ok());
  const uint16_t port = (*server)->port();
  ASSERT_NE(port, 0);

  const std::string body = Opened();
  ASSERT_FALSE(body.empty());
  // A wrong signature is refused before anything is stored.
  EXPECT_EQ(PostWebhook(port, body, "sha256=" + HmacSha256Hex("not-the-secret", body)).status, 401);
  ClientResponse accepted = PostWebhook(port, body, "sha256=" + HmacSha256Hex(kSecret, body));
  EXPECT_EQ(accepted.status, 202) << accepted.body;

  {
    // Bounded only as a safety net: the check run's notification ends the wait.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    MutexLock lock(&mu_);
    while (check_run_head_.empty() && cv_.WaitUntil(&mu_, deadline)) {
    }
    ASSERT_FALSE(check_run_head_.empty()) << "no gatehouse check run within 60 s";
    EXPECT_EQ(check_run_head_, head_);
  }
  EXPECT_TRUE((*server)->Stop(std::chrono::seconds(30)));  // the pass ends and is recorded
  // /metrics counts the pass's GitHub calls by endpoint and status, the installation's rate
  // limit as the simulator reported it, and the ledger's rows by kind and state.
  const std::string scrape = (*server)->registry().Render();
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_github_requests_total{method=\"POST\","
                                           "endpoint=\"/graphql\",status=\"200\"}"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_github_requests_total{method=\"GET\","
                                           "endpoint=\"/repos/{owner}/{repo}/contents/{path}\","
                                           "status=\"404\"} 1"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_github_requests_total{method=\"POST\","
                                           "endpoint=\"/repos/{owner}/{repo}/check-runs\","
                                           "status=\"201\"} 1"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_github_rate_limit_remaining{installation="));
  EXPECT_THAT(scrape,
              ::testing::HasSubstr("# TYPE gatehouse_github_rate_limit_waits_total counter"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_routing_lag_seconds_count 1"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_routing_held 0\n"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_routing_holds_total 0\n"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_passes_started_total{kind=\"pr\"} 1"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_signals_per_pass 1\n"));
  EXPECT_THAT(scrape, ::testing::HasSubstr("gatehouse_store_transaction_duration_seconds_count{"
                                           "backend=\"sqlite\",kind=\"write\"}"));
  EXPECT_THAT(scrape,
              ::testing::HasSubstr("gatehouse_signal_to_pass_start_seconds_count{kind=\"pr\"} 1"));
  EXPECT_THAT(scrape,
              ::testing::HasSubstr("gatehouse_ledger_actions{kind=\"check_run\",state=\"done\"}"));
  server->reset();

  // What the server recorded: the signed delivery routed, the other refused, and the pass's
  // check run in the ledger.
  auto after = OpenStore(dir_.File("gatehouse.db"));
  ASSERT_TRUE(after.ok());
  auto funnel = (*after)->inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->received, 2);
  EXPECT_EQ(funnel->routed, 1);
  EXPECT_EQ(funnel->rejected, 1);
  EXPECT_EQ(funnel->in_flight, 0);
  auto actions = (*after)->ledger().ListActions("acme/app#1");
  ASSERT_TRUE(actions.ok());
  EXPECT_TRUE(std::any_of(actions->begin(), actions->end(), [](const ActionRecord& a) {
    return a.key.kind == "check_run" && a.state == ActionState::kDone;
  }));
}

// The same wiring, told an unusable GitHub configuration, refuses before anything starts.
TEST_F(GatehouseServerTest, AnUnusableGitHubConfigurationIsAnInvalidArgument) {
  auto expect_refused = [&](const ServerOptions& options, const std::string& db) {
    auto store = OpenStore(dir_.File(db));
    ASSERT_TRUE(store.ok());
    auto refused = GatehouseServer::Create(options, std::move(store).value());
    ASSERT_FALSE(refused.ok()) << db;
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << db;
  };
  ServerOptions bad_url = Options();
  bad_url.github->api_url = "ftp://example.com";
  expect_refused(bad_url, "a.db");
  ServerOptions bad_key = Options();
  bad_key.github->private_key_pem = "not a key";
  expect_refused(bad_key, "b.db");
}

}  // namespace
}  // namespace gatehouse::app
