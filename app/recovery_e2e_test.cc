// Deliveries missed while gatehouse was down come back without a sweep (issue 13, point 1;
// docs/INGRESS.md, "Recovering missed deliveries"). GatehouseServer in-process on SQLite with
// the sweep disabled, acting as the App against the simulator served in-process, whose
// WebhookSender posts its signed webhooks to the server over loopback:
//
//   1. gatehouse is up: PR 1 opens, gatehouse puts its check run on the head;
//   2. gatehouse stops; PR 1 gets a push and PR 2 opens — their deliveries fail (connection
//      refused), as GitHub would record them;
//   3. gatehouse starts again (the sweep still off): its first recovery round lists the failed
//      deliveries, fetches them and accepts them under their guids; they are routed, and the
//      passes put gatehouse's check run on PR 1's new head and on PR 2's head;
//   4. the funnel counts them as recovered and balances; GitHub redelivering one of them for
//      real afterwards is a duplicate, not a conflict.
//
// No sleeps to wait: the waits are on the simulator's notifications and the sender's log,
// each bounded as a safety net.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "app/gatehouse_server.h"
#include "base/mutex.h"
#include "github/fake_github_test_util.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"
#include "sim/render.h"
#include "sim/webhooks.h"
#include "store/open_store.h"
#include "store/store_test_util.h"

namespace gatehouse::app {
namespace {

constexpr char kSecret[] = "recovery-e2e-secret";
constexpr int64_t kInstallation = 7;
constexpr char kRepo[] = "acme/app";

class RecoveryE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    github_.set_webhooks(&sender_);
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    github_.model().SetListener([this](const sim::Notification& n) {
      const std::string id = sender_.Enqueue(n.event, boost::json::serialize(sim::RenderWebhook(n)),
                                             sim::DeliveryMetaOf(n));
      MutexLock lock(&mu_);
      if (!id.empty()) ++enqueued_;  // "" = dropped: no URL yet, never attempted
      if (n.event == "check_run" && n.check_run != nullptr && n.check_run->name == "gatehouse" &&
          n.check_run->app == "installation:" + std::to_string(kInstallation)) {
        check_run_heads_.insert(n.check_run->head_sha);
        cv_.SignalAll();
      }
    });
    ASSERT_TRUE(github_.model().CreateRepo("acme", "app", kInstallation, {}).ok());
  }
  void TearDown() override { sender_.Stop(); }

  ServerOptions Options() {
    ServerOptions options;
    options.http.listen = "127.0.0.1:0";
    options.http.threads = 1;
    options.webhook.secrets = {kSecret};
    options.engine.workers = 2;
    options.debounce = Duration::zero();
    options.sweep_interval = Duration::zero();         // no sweep: only webhooks and recovery
    options.recover_interval = std::chrono::hours(1);  // the start-up round is the one tested
    GitHubAuthConfig github;
    github.api_url = github_.base_url();
    github.app_id = sim_testing::kAppId;
    github.private_key_pem = github_testing::GetTestRsaKey().private_pem;
    options.github = github;
    options.pass.defaults.actions.autonomy = decide::Autonomy::kSuggest;
    return options;
  }

  std::unique_ptr<GatehouseServer> StartServer() {
    auto store = OpenStore(dir_.File("gatehouse.db"));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    auto server = GatehouseServer::Create(Options(), std::move(store).value());
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    EXPECT_TRUE((*server)->Start().ok());
    sender_.SetUrl("http://127.0.0.1:" + std::to_string((*server)->port()) + "/webhook");
    return std::move(server).value();
  }

  // Bounded waits (safety nets; each ends on an event).
  bool WaitForCheckRunOn(const std::string& head) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    MutexLock lock(&mu_);
    while (check_run_heads_.count(head) == 0 && cv_.WaitUntil(&mu_, deadline)) {
    }
    return check_run_heads_.count(head) > 0;
  }
  // Until every webhook the simulator queued has been attempted.
  bool WaitForSenderIdle() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      size_t want;
      {
        MutexLock lock(&mu_);
        want = enqueued_;
      }
      if (sender_.log().All().size() >= want) return true;
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  template <typename Pred>
  static bool PollFor(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(RealClock().Now());
  sim::WebhookSender sender_{{.url = "", .secret = kSecret, .timeout_ms = 10'000, .clock = clock_}};
  sim_testing::InProcessGitHub github_{clock_};
  testing::TempDir dir_;
  Mutex mu_;
  CondVar cv_;
  size_t enqueued_ GUARDED_BY(mu_) = 0;
  std::set<std::string> check_run_heads_ GUARDED_BY(mu_);
};

TEST_F(RecoveryE2eTest, DeliveriesMissedWhileDownAreRecoveredRoutedAndActedOn) {
  // 1. Up: PR 1 is acted on.
  auto server = StartServer();
  auto pr1 = github_.model().CreatePull(kRepo, sim::NewPull{});
  ASSERT_TRUE(pr1.ok()) << pr1.status().ToString();
  ASSERT_TRUE(WaitForCheckRunOn(pr1->head_sha)) << "no check run on PR 1 while up";
  ASSERT_TRUE(WaitForSenderIdle());
  EXPECT_TRUE(server->Stop(std::chrono::seconds(30)));
  server.reset();

  // 2. Down: a push to PR 1 and a new PR 2; GitHub's attempts fail.
  ASSERT_TRUE(github_.model().Push("alice", kRepo, 1, "").ok());
  auto pr2 = github_.model().CreatePull(kRepo, sim::NewPull{});
  ASSERT_TRUE(pr2.ok());
  const std::string head1 = github_.model().GetPull(kRepo, 1)->head_sha;
  ASSERT_NE(head1, pr1->head_sha);
  ASSERT_TRUE(WaitForSenderIdle());
  // Missed: every delivery none of whose attempts got a 2xx (the push, the opening, and any
  // webhook of the first passes that met gatehouse stopping).
  std::set<std::string> delivered, missed;
  for (const auto& a : sender_.log().All()) {
    if (a.status_code >= 200 && a.status_code < 300) delivered.insert(a.guid);
  }
  int refused = 0;
  for (const auto& a : sender_.log().All()) {
    if (delivered.count(a.guid) == 0) missed.insert(a.guid);
    if (a.status == "failed to connect" && a.status_code == 0) ++refused;
  }
  ASSERT_GE(missed.size(), 2u) << "the push and the opening failed";
  EXPECT_GE(refused, 2);

  // 3. Up again, the sweep still off: the start-up round brings them back.
  server = StartServer();
  ASSERT_TRUE(WaitForCheckRunOn(head1)) << "PR 1's push was not recovered";
  ASSERT_TRUE(WaitForCheckRunOn(pr2->head_sha)) << "PR 2's opening was not recovered";

  auto store = OpenStore(dir_.File("gatehouse.db"));
  ASSERT_TRUE(store.ok());
  for (const std::string& guid : missed) {
    auto entry = (*store)->inbox().GetDelivery(guid);
    ASSERT_TRUE(entry.ok());
    ASSERT_TRUE(entry->has_value()) << guid << " not in the inbox";
  }
  ASSERT_TRUE(PollFor([&] {
    auto f = (*store)->inbox().GetFunnel();
    return f.ok() && f->in_flight == 0 && f->recovered == static_cast<int64_t>(missed.size());
  })) << "recovered deliveries not all routed";

  // 4. GitHub redelivers one for real (its signed bytes): a duplicate, not a conflict.
  int64_t push_attempt = 0;
  for (const auto& a : sender_.log().All()) {
    if (missed.count(a.guid) && a.action == "synchronize") push_attempt = a.id;
  }
  ASSERT_NE(push_attempt, 0);
  std::string push_guid;
  for (const auto& a : sender_.log().All()) {
    if (a.id == push_attempt) push_guid = a.guid;
  }
  HttpResponse r = github_.handler().Serve(
      HttpRequest{"POST",
                  "/app/hook/deliveries/" + std::to_string(push_attempt) + "/attempts",
                  {{"Authorization", "Bearer " + *github_.signer().Sign(clock_->Now())}},
                  "",
                  "test"});
  ASSERT_EQ(r.status, 202) << r.body;
  // Other webhooks (the passes' check runs) go out meanwhile: find the redelivery itself.
  std::optional<sim::DeliveryAttempt> redelivery;
  ASSERT_TRUE(PollFor([&] {
    for (const auto& a : sender_.log().All()) {
      if (a.redelivery && a.guid == push_guid) redelivery = a;
    }
    return redelivery.has_value();
  }));
  EXPECT_EQ(redelivery->status_code, 200) << "answered as a duplicate";
  EXPECT_TRUE(server->Stop(std::chrono::seconds(30)));
  server.reset();

  auto funnel = (*store)->inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->recovered, static_cast<int64_t>(missed.size()));
  EXPECT_EQ(funnel->conflicts, 0);
  EXPECT_GE(funnel->duplicate, 1);
  EXPECT_EQ(funnel->in_flight, 0);
  EXPECT_EQ(funnel->dead, 0);
  EXPECT_EQ(funnel->received, funnel->routed + funnel->ignored + funnel->duplicate +
                                  funnel->rejected + funnel->dead + funnel->in_flight);
  // The round got through: the mark covers every attempt it listed.
  auto mark = (*store)->inbox().GetRecoveryMark();
  ASSERT_TRUE(mark.ok());
  EXPECT_GE(*mark, push_attempt);
}

}  // namespace
}  // namespace gatehouse::app
