// DeliveryRecovery's rounds against a real SQLite store and a scripted AppWebhookDeliveries
// (the interface is three calls; the client itself is tested against the simulator in
// github/hook_deliveries_sim_test.cc, the whole path in app/recovery_e2e_test.cc). What is
// pinned here: only guids without a 2xx and not held are fetched (no N+1), a rate limit ends
// the round without raising the mark and the next round resumes, the mark bounds the next
// listing, the retention window bounds the first, and pages are followed.
#include "engine/delivery_recovery.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "store/open_store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::hours;
const Time kNow = FromMicros(1'800'000'000'000'000);

class ScriptedDeliveries final : public AppWebhookDeliveries {
 public:
  // Appends an attempt (ids increase; the list is served newest first).
  int64_t Attempt(const std::string& guid, int status_code, Time at = kNow) {
    HookDelivery d;
    d.id = next_id_++;
    d.guid = guid;
    d.status_code = status_code;
    d.status = status_code == 0 ? "failed to connect" : "OK";
    d.event = "pull_request";
    d.action = "opened";
    d.installation_id = 7;
    d.delivered_time = at;
    attempts_.insert(attempts_.begin(), d);
    return d.id;
  }
  GitHubResult<HookDeliveryPage> ListDeliveries(int per_page, const std::string& cursor) override {
    ++lists;
    size_t start = cursor.empty() ? 0 : std::stoul(cursor);
    HookDeliveryPage page;
    for (size_t i = start;
         i < attempts_.size() && page.deliveries.size() < static_cast<size_t>(per_page); ++i) {
      page.deliveries.push_back(attempts_[i]);
    }
    if (start + page.deliveries.size() < attempts_.size()) {
      page.next_cursor = std::to_string(start + page.deliveries.size());
    }
    return page;
  }
  GitHubResult<HookDeliveryDetail> GetDelivery(int64_t id) override {
    ++gets;
    fetched.push_back(id);
    if (rate_limit_after >= 0 && gets > rate_limit_after) {
      return GitHubError{GitHubErrorKind::kRateLimited, 403, kNow + hours(1), "limited"};
    }
    for (const HookDelivery& d : attempts_) {
      if (d.id != id) continue;
      HookDeliveryDetail detail;
      detail.delivery = d;
      detail.request_headers = {{"X-GitHub-Event", "pull_request"}};
      detail.payload = "{\"action\":\"opened\",\"guid\":\"" + d.guid + "\"}";
      return detail;
    }
    return GitHubError{GitHubErrorKind::kNotFound, 404, {}, "gone"};
  }
  GitHubResult<GitHubOk> Redeliver(int64_t) override { return GitHubOk{}; }

  int lists = 0;
  int gets = 0;
  int rate_limit_after = -1;  // GetDelivery calls allowed before RateLimited; -1: no limit
  std::vector<int64_t> fetched;

 private:
  std::vector<HookDelivery> attempts_;  // newest first
  int64_t next_id_ = 5'000'000'000;
};

class DeliveryRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenStore(dir_.File("g.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  DeliveryRecovery Recovery(DeliveryRecoveryOptions options = {}) {
    return DeliveryRecovery(store_->inbox(), github_, clock_, options);
  }
  bool Held(const std::string& id) {
    auto e = store_->inbox().GetDelivery(id);
    return e.ok() && e->has_value();
  }

  testing::TempDir dir_;
  StorePtr store_;
  ScriptedDeliveries github_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kNow);
};

TEST_F(DeliveryRecoveryTest, FetchesOnlyGuidsThatNeverGotA2xxAndAreNotHeld) {
  github_.Attempt("g1", 0);
  github_.Attempt("g1", 200);  // redelivered fine: nothing to do
  const int64_t g2 = github_.Attempt("g2", 0);
  github_.Attempt("g3", 0);  // timed out on GitHub's side, but stored: held
  Delivery held;
  held.delivery_id = "g3";
  held.event = "pull_request";
  held.body = "{}";
  held.body_sha256 = "x";
  held.received_at = kNow;
  ASSERT_TRUE(store_->inbox().AcceptDeliveries({&held, 1}, {}, kNow).ok());

  RecoveryRound round = Recovery().RunOnce();
  EXPECT_EQ(round.listed, 4);
  EXPECT_EQ(round.failed, 2);  // g2, g3
  EXPECT_EQ(round.held, 1);
  EXPECT_EQ(round.recovered, 1);
  EXPECT_TRUE(round.complete);
  EXPECT_EQ(github_.fetched, std::vector<int64_t>{g2}) << "no fetch for g1 or g3";
  EXPECT_TRUE(Held("g2"));
  EXPECT_FALSE(Held("g1"));
  auto entry = store_->inbox().GetDelivery("g2");
  EXPECT_EQ((*entry)->event, "pull_request");
  EXPECT_EQ((*entry)->body, "{\"action\":\"opened\",\"guid\":\"g2\"}");
  EXPECT_EQ(store_->inbox().GetFunnel()->recovered, 1);
  EXPECT_EQ(*store_->inbox().GetRecoveryMark(), round.mark);
  EXPECT_EQ(round.mark, 5'000'000'003);
}

TEST_F(DeliveryRecoveryTest, ARateLimitEndsTheRoundAndTheNextResumesWhereItStopped) {
  github_.Attempt("a", 0);
  github_.Attempt("b", 0);
  github_.Attempt("c", 0);
  github_.rate_limit_after = 1;
  DeliveryRecovery recovery = Recovery();
  RecoveryRound first = recovery.RunOnce();
  EXPECT_TRUE(first.rate_limited);
  EXPECT_FALSE(first.complete);
  EXPECT_EQ(first.recovered, 1);
  EXPECT_EQ(github_.gets, 2) << "the limited fetch ends the round";
  EXPECT_EQ(*store_->inbox().GetRecoveryMark(), 0) << "the mark waits for a whole round";
  EXPECT_TRUE(Held("a"));  // recovered oldest first

  github_.rate_limit_after = -1;
  github_.fetched.clear();
  RecoveryRound second = recovery.RunOnce();
  EXPECT_TRUE(second.complete);
  EXPECT_EQ(second.held, 1);
  EXPECT_EQ(second.recovered, 2);
  EXPECT_EQ(github_.fetched.size(), 2u) << "what the first round got is not fetched again";
  EXPECT_TRUE(Held("b") && Held("c"));
  EXPECT_EQ(store_->inbox().GetFunnel()->recovered, 3);
}

TEST_F(DeliveryRecoveryTest, TheMarkBoundsTheNextListing) {
  DeliveryRecoveryOptions options;
  options.per_page = 2;
  for (int i = 0; i < 6; ++i) github_.Attempt("old" + std::to_string(i), 200);
  DeliveryRecovery recovery = Recovery(options);
  RecoveryRound first = recovery.RunOnce();
  EXPECT_EQ(first.listed, 6);
  EXPECT_EQ(github_.lists, 3) << "pages followed";
  github_.Attempt("new", 0);
  github_.lists = 0;
  RecoveryRound second = recovery.RunOnce();
  EXPECT_EQ(second.listed, 1);
  EXPECT_EQ(second.recovered, 1);
  EXPECT_EQ(github_.lists, 1) << "the first page reaches the mark";
  // A restart (a new DeliveryRecovery on the same store) starts from the stored mark.
  github_.lists = 0;
  RecoveryRound after_restart = Recovery(options).RunOnce();
  EXPECT_EQ(after_restart.listed, 0);
  EXPECT_EQ(github_.lists, 1);
}

TEST_F(DeliveryRecoveryTest, TheFirstRoundLooksBackOnlyAsFarAsGitHubKeeps) {
  github_.Attempt("ancient", 0, kNow - hours(80));
  github_.Attempt("recent", 0, kNow - hours(1));
  RecoveryRound round = Recovery().RunOnce();
  EXPECT_EQ(round.listed, 1);
  EXPECT_EQ(round.recovered, 1);
  EXPECT_TRUE(Held("recent"));
  EXPECT_FALSE(Held("ancient"));
}

TEST_F(DeliveryRecoveryTest, TheLoopRunsAtStartAndThenEveryInterval) {
  github_.Attempt("a", 0);
  DeliveryRecoveryOptions options;
  options.interval = std::chrono::seconds(60);
  DeliveryRecovery recovery = Recovery(options);
  recovery.Start();
  clock_->AwaitWaiters(1);  // the start-up round is done: the loop waits for the interval
  EXPECT_TRUE(Held("a"));
  github_.Attempt("b", 0);
  EXPECT_FALSE(Held("b"));
  clock_->Advance(std::chrono::seconds(61));
  // Bounded poll (real time) for the second round's write; a safety net, not a timing.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!Held("b") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(Held("b"));
  recovery.Stop();
}

}  // namespace
}  // namespace gatehouse
