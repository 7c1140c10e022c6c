// The delivery resolver against a real SqliteStore on a temporary file and the real simulator,
// reached through GitHubClient over loopback (engine/sim_github_test_util.h). Rounds run on the
// test's thread (ResolveOnce), except in the background loop's own test, where moving the
// SimClock is what makes the next round due.
#include "engine/delivery_resolver.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine_test_util.h"
#include "engine/sim_github_test_util.h"

namespace gatehouse {
namespace {

namespace json = boost::json;
using std::chrono::seconds;
using testing::kInstallation;

const Time kStart = testing::kSimStart;

std::string ReadFixture(const std::string& relative) {
  std::ifstream in(std::string(GATEHOUSE_FIXTURES) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << relative;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ResolveTest : public testing::SimGitHubTest {
 protected:
  DeliveryResolver MakeResolver(ResolverOptions options = {}) {
    return DeliveryResolver(*store_, *client_, clock_, options, [this] { ++signalled_; });
  }

  // `payload` re-aimed at `repo` (and `installation`, or none), serialized.
  static std::string Aimed(json::value& payload, const std::string& repo,
                           std::optional<int64_t> installation) {
    json::object& o = payload.as_object();
    o["repository"].as_object()["full_name"] = repo;
    if (installation) {
      o["installation"] = json::object{{"id", *installation}};
    } else {
      o.erase("installation");
    }
    return json::serialize(payload);
  }

  // A `status` payload (the fixture, re-aimed) for `sha` in `repo`.
  static std::string StatusBody(const std::string& repo, const std::string& sha,
                                std::optional<int64_t> installation) {
    json::value v = json::parse(ReadFixture("status/payload.json"));
    v.as_object()["sha"] = sha;
    return Aimed(v, repo, installation);
  }
  // A `check_suite.completed` payload without a PR list (as for a fork's PR) for `sha`.
  static std::string SuiteBody(const std::string& repo, const std::string& sha,
                               std::optional<int64_t> installation) {
    json::value v = json::parse(ReadFixture("check_suite/completed.payload.json"));
    json::object& o = v.as_object();
    json::object& suite = o["check_suite"].as_object();
    suite["head_sha"] = sha;
    suite["pull_requests"] = json::array{};
    return Aimed(v, repo, installation);
  }

  // Accepts the deliveries and marks them unresolved, as the router does for a check or
  // status whose commit no known PR has as its head.
  void AcceptUnresolved(std::vector<Delivery> deliveries) {
    for (size_t i = 0; i < deliveries.size(); ++i) {
      deliveries[i].body_sha256 = std::string(63, 'a') + static_cast<char>('0' + i);
      deliveries[i].received_at = clock_->Now();
    }
    auto out = store_->inbox().AcceptDeliveries(deliveries, {}, clock_->Now());
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (AcceptOutcome o : *out) ASSERT_EQ(o, AcceptOutcome::kAccepted);
    auto open = store_->inbox().ClaimDeliveries("test-router", 100, Inbox::Open::kAccepted,
                                                std::chrono::seconds(30), clock_->Now());
    ASSERT_TRUE(open.ok());
    ASSERT_EQ(open->size(), deliveries.size());
    std::vector<RouteDecision> decisions;
    for (const InboxEntry& e : *open) {
      RouteDecision d;
      d.seq = e.seq;
      d.claim = e.claim;
      d.state = InboxState::kUnresolved;
      d.reason = "no known PR has that head";
      decisions.push_back(std::move(d));
    }
    ASSERT_TRUE(store_->inbox().ApplyRouting(decisions, clock_->Now()).ok());
    auto f = store_->inbox().GetFunnel();
    ASSERT_TRUE(f.ok());
    ASSERT_EQ(f->unresolved, static_cast<int64_t>(deliveries.size()));
  }
  static Delivery Make(const std::string& id, const std::string& event, const std::string& action,
                       std::optional<int64_t> installation, std::string body) {
    Delivery d;
    d.delivery_id = id;
    d.event = event;
    d.action = action;
    d.installation_id = installation;
    d.body = std::move(body);
    return d;
  }

  InboxEntry Get(const std::string& id) {
    auto d = store_->inbox().GetDelivery(id);
    EXPECT_TRUE(d.ok() && d->has_value()) << id;
    return d.ok() && d->has_value() ? **d : InboxEntry{};
  }
};

TEST_F(ResolveTest, UnresolvedDeliveriesAreRoutedIgnoredOrDeadThroughTheCommitsPullsLookup) {
  Repo("acme", "app", kInstallation);
  NewPull("acme/app", "one");
  NewPull("acme/app", "two");
  NewPull("acme/app", "three");
  Close("acme/app", 2);
  Learn("acme/app", kInstallation);
  const std::string head1 = HeadOf("acme/app", 1);
  const std::string head2 = HeadOf("acme/app", 2);
  const std::string head3 = HeadOf("acme/app", 3);
  const std::string nowhere = "0123456789abcdef0123456789abcdef01234567";

  AcceptUnresolved({
      // (a) the head of open PR 1, with the delivery's installation.
      Make("d-open", "status", "", kInstallation, StatusBody("acme/app", head1, kInstallation)),
      // (a') the head of open PR 3, no installation in the delivery: the store's is used.
      Make("d-suite", "check_suite", "completed", std::nullopt,
           SuiteBody("acme/app", head3, std::nullopt)),
      // (b) the head of closed PR 2: no open PR contains it.
      Make("d-closed", "status", "", kInstallation, StatusBody("acme/app", head2, kInstallation)),
      // (b') a commit the simulator has never seen.
      Make("d-nowhere", "status", "", kInstallation,
           StatusBody("acme/app", nowhere, kInstallation)),
      // (c) no installation, for a repository the store does not know.
      Make("d-ghost", "status", "", std::nullopt, StatusBody("ghost/unknown", head1, std::nullopt)),
      // (d) an undecodable body.
      Make("d-junk", "status", "", kInstallation, "not json"),
  });

  DeliveryResolver resolver = MakeResolver();
  ResolveStats stats = resolver.ResolveOnce();
  EXPECT_EQ(stats.resolved, 6);
  EXPECT_GE(signalled_, 1);

  InboxEntry open = Get("d-open");
  EXPECT_EQ(open.state, InboxState::kRouted) << open.state_reason;
  EXPECT_TRUE(Signalled("acme/app#1", "status"));
  EXPECT_EQ(Item("acme/app#1")->due_at, kStart + seconds(1));
  auto heads = store_->repos().PullRequestsWithHead("acme/app", head1);
  ASSERT_TRUE(heads.ok());
  EXPECT_EQ(*heads, std::vector<std::string>{"acme/app#1"}) << "the head is remembered";

  InboxEntry suite = Get("d-suite");
  EXPECT_EQ(suite.state, InboxState::kRouted) << suite.state_reason;
  EXPECT_TRUE(Signalled("acme/app#3", "ci-completed"));

  InboxEntry closed = Get("d-closed");
  EXPECT_EQ(closed.state, InboxState::kIgnored);
  EXPECT_NE(closed.state_reason.find("no open pull request contains " + head2), std::string::npos)
      << closed.state_reason;
  EXPECT_FALSE(Item("acme/app#2").has_value()) << "a closed PR is not signalled";

  InboxEntry nowhere_entry = Get("d-nowhere");
  EXPECT_EQ(nowhere_entry.state, InboxState::kIgnored);
  EXPECT_FALSE(nowhere_entry.state_reason.empty());

  InboxEntry ghost = Get("d-ghost");
  EXPECT_EQ(ghost.state, InboxState::kIgnored);
  EXPECT_NE(ghost.state_reason.find("no installation known for ghost/unknown"), std::string::npos)
      << ghost.state_reason;
  EXPECT_FALSE(Item("ghost/unknown#1").has_value());

  InboxEntry junk = Get("d-junk");
  EXPECT_EQ(junk.state, InboxState::kDead);
  EXPECT_NE(junk.state_reason.find("undecodable body"), std::string::npos) << junk.state_reason;

  auto f = store_->inbox().GetFunnel();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->received, 6);
  EXPECT_EQ(f->routed, 2);
  EXPECT_EQ(f->ignored, 3);
  EXPECT_EQ(f->dead, 1);
  EXPECT_EQ(f->in_flight, 0);
  EXPECT_EQ(f->unresolved, 0);

  // Nothing is left to resolve.
  const int before = signalled_;
  ResolveStats again = resolver.ResolveOnce();
  EXPECT_EQ(again.resolved, 0);
  EXPECT_EQ(signalled_, before);
}

TEST_F(ResolveTest, ARateLimitedLookupLeavesTheDeliveryUnresolvedForTheNextRound) {
  Repo("acme", "app", kInstallation);
  NewPull("acme/app", "one");
  const std::string head1 = HeadOf("acme/app", 1);
  AcceptUnresolved(
      {Make("d-open", "status", "", kInstallation, StatusBody("acme/app", head1, kInstallation))});
  arming_->ArmOn("/repos/acme/app/commits/" + head1 + "/pulls",
                 R"({"secondary_rate_limits":1,"retry_after_seconds":30})");

  DeliveryResolver resolver = MakeResolver();
  ResolveStats stats = resolver.ResolveOnce();
  EXPECT_EQ(arming_->fired(), 1);
  EXPECT_EQ(stats.resolved, 0);
  EXPECT_EQ(Get("d-open").state, InboxState::kUnresolved);
  EXPECT_FALSE(Item("acme/app#1").has_value());
  EXPECT_EQ(store_->inbox().GetFunnel()->in_flight, 1);

  clock_->Advance(seconds(31));
  ResolveStats later = resolver.ResolveOnce();
  EXPECT_EQ(later.resolved, 1);
  EXPECT_EQ(Get("d-open").state, InboxState::kRouted);
  EXPECT_TRUE(Signalled("acme/app#1", "status"));
  EXPECT_EQ(store_->inbox().GetFunnel()->in_flight, 0);
}

// --- The background loop ---

// A round comes due when the test moves the SimClock past the interval, not before.
TEST_F(ResolveTest, TheLoopResolvesWhenTheClockReachesTheInterval) {
  Repo("acme", "app", kInstallation);
  NewPull("acme/app", "one");
  const std::string head1 = HeadOf("acme/app", 1);
  AcceptUnresolved(
      {Make("d-open", "status", "", kInstallation, StatusBody("acme/app", head1, kInstallation))});
  ResolverOptions options;
  options.interval = seconds(30);
  testing::EventCount rounds;
  DeliveryResolver resolver(*store_, *client_, clock_, options, [&rounds] { rounds.Add(); });
  resolver.Start();

  clock_->AwaitWaiters(1);
  EXPECT_EQ(Get("d-open").state, InboxState::kUnresolved) << "the first round is not due yet";

  clock_->Advance(seconds(30));
  ASSERT_TRUE(rounds.AwaitAtLeast(1));
  resolver.Stop();
  EXPECT_EQ(Get("d-open").state, InboxState::kRouted);
  EXPECT_TRUE(Signalled("acme/app#1", "status"));
  EXPECT_EQ(store_->inbox().GetFunnel()->in_flight, 0);
}

}  // namespace
}  // namespace gatehouse
