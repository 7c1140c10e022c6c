// The sweeper against a real SqliteStore on a temporary file and the real simulator (sim/),
// served in-process on our HttpServer and reached through GitHubClient over loopback with the
// App flow (JWT -> installation token), as in act/executor_test.cc. One SimClock drives the
// simulator, the client's rate-limit windows and the store's timestamps. Rounds run on the
// test's thread (SweepOnce / ResolveOnce), except in the background loop's own test, where
// moving the SimClock is what makes the loop's next repository due.
#include "engine/sweeper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine_test_util.h"
#include "github/client.h"
#include "github/transport.h"
#include "http/server.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

namespace json = boost::json;
using std::chrono::hours;
using std::chrono::seconds;

const Time kStart = Time(seconds(1796040000));  // 2026-11-30T12:00:00Z
constexpr int64_t kInstallation = 7;

std::string ReadFixture(const std::string& relative) {
  std::ifstream in(std::string(GATEHOUSE_FIXTURES) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << relative;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Serves the simulator, and can arm a simulator fault (PUT /_sim/faults, the control API) at
// the moment a given REST path is requested, so that exactly that call meets it.
class ArmingHandler final : public HttpHandler {
 public:
  explicit ArmingHandler(sim::SimHandler& inner) : inner_(inner) {}

  void ArmOn(std::string path, std::string faults_json) {
    std::lock_guard<std::mutex> lock(mu_);
    path_ = std::move(path);
    faults_ = std::move(faults_json);
  }
  int fired() {
    std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }

  void Handle(HttpRequest request, Responder respond) override {
    std::string faults;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!path_.empty() && request.Path() == path_) {
        faults = std::move(faults_);
        path_.clear();
        ++fired_;
      }
    }
    if (!faults.empty()) {
      HttpRequest put;
      put.method = "PUT";
      put.target = "/_sim/faults";
      put.body = faults;
      put.headers.emplace_back("Content-Type", "application/json");
      EXPECT_EQ(inner_.Serve(put).status, 200);
    }
    inner_.Handle(std::move(request), std::move(respond));
  }

 private:
  sim::SimHandler& inner_;
  std::mutex mu_;
  std::string path_;
  std::string faults_;
  int fired_ = 0;
};

class SweeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start([this](sim::SimHandler& h) {
      auto arming = std::make_unique<ArmingHandler>(h);
      arming_ = arming.get();
      return std::unique_ptr<HttpHandler>(std::move(arming));
    }));
    model_ = &github_.model();
    handler_ = &github_.handler();
    client_ = &github_.client();
    curl_ = &github_.transport();

    auto store = OpenSqliteStore(dir_.File("gatehouse.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  void Repo(const std::string& owner, const std::string& name, int64_t installation) {
    ASSERT_TRUE(model_->CreateRepo(owner, name, installation, {}).ok());
  }

  // A new open PR in the simulator; its number.
  int NewPull(const std::string& repo, const std::string& title) {
    sim::NewPull spec;
    spec.title = title;
    spec.head_ref = "feature-" + title;
    auto pr = model_->CreatePull(repo, spec);
    EXPECT_TRUE(pr.ok()) << pr.status().ToString();
    return pr.ok() ? pr->number : 0;
  }
  void Close(const std::string& repo, int number) {
    ASSERT_TRUE(model_->SetState("alice", repo, number, "closed").ok());
  }
  std::string HeadOf(const std::string& repo, int number) {
    return model_->GetPull(repo, number)->head_sha;
  }

  // What the store knows about `repo` gatehouse-side.
  void Learn(const std::string& repo, std::optional<int64_t> installation) {
    const RepoInstallation r{repo, installation};
    ASSERT_TRUE(store_->repos().RecordLearned({&r, 1}, {}, clock_->Now()).ok());
  }
  std::optional<RepoInstallation> Known(const std::string& repo) {
    auto r = store_->repos().GetRepository(repo);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }

  std::optional<WorkItem> Item(const std::string& key) {
    auto w = store_->work().GetWorkItem(key);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? *w : std::nullopt;
  }
  // True when `key` has a work item that was signalled for `reason`.
  bool Signalled(const std::string& key, const std::string& reason) {
    auto w = Item(key);
    if (!w) return false;
    return std::find(w->reasons.begin(), w->reasons.end(), reason) != w->reasons.end();
  }

  Sweeper MakeSweeper(SweepOptions options = {}, GitHub* github = nullptr) {
    return Sweeper(*store_, github != nullptr ? *github : *client_, clock_, options,
                   [this] { ++signalled_; });
  }

  testing::TempDir dir_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  sim_testing::InProcessGitHub github_{clock_};
  sim::Model* model_ = nullptr;
  sim::SimHandler* handler_ = nullptr;
  ArmingHandler* arming_ = nullptr;
  CurlTransport* curl_ = nullptr;
  GitHubClient* client_ = nullptr;
  StorePtr store_;
  int signalled_ = 0;
};

// --- SweepOnce ---

TEST_F(SweeperTest, SweepSignalsEveryOpenPrOfEveryRepositoryOfAKnownInstallation) {
  Repo("acme", "app", kInstallation);
  Repo("Acme", "Lib", kInstallation);  // GitHub's spelling; keys are lower-case
  Repo("other", "thing", 9);           // an installation gatehouse has never heard of
  ASSERT_EQ(NewPull("acme/app", "one"), 1);
  ASSERT_EQ(NewPull("acme/app", "two"), 2);
  ASSERT_EQ(NewPull("acme/app", "three"), 3);
  Close("acme/app", 2);
  ASSERT_EQ(NewPull("Acme/Lib", "one"), 1);
  ASSERT_EQ(NewPull("other/thing", "one"), 1);
  Learn("acme/app", kInstallation);  // as a webhook would have taught it
  ASSERT_FALSE(Known("acme/lib").has_value());

  Sweeper sweeper = MakeSweeper();
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(stats.repos, 2);
  EXPECT_EQ(stats.prs, 3);
  EXPECT_EQ(stats.skipped, 0);
  EXPECT_GE(signalled_, 1);

  for (const char* key : {"acme/app#1", "acme/app#3", "acme/lib#1"}) {
    auto w = Item(key);
    ASSERT_TRUE(w.has_value()) << key;
    EXPECT_EQ(w->reasons, std::vector<std::string>{"swept"}) << key;
    EXPECT_EQ(w->state, WorkState::kPending) << key;
    EXPECT_EQ(w->requested_gen, 1) << key;
    EXPECT_EQ(w->due_at, kStart + seconds(1)) << key << ": the default debounce";
  }
  EXPECT_FALSE(Item("acme/app#2").has_value()) << "closed";
  EXPECT_FALSE(Item("Acme/Lib#1").has_value()) << "keys are lower-case only";
  EXPECT_FALSE(Item("other/thing#1").has_value()) << "installation 9 is not known";

  // The repository found only through the installation listing is remembered with it.
  auto lib = Known("acme/lib");
  ASSERT_TRUE(lib.has_value());
  EXPECT_EQ(lib->repo, "acme/lib");
  EXPECT_EQ(lib->installation_id, kInstallation);
  EXPECT_EQ(Known("acme/app")->installation_id, kInstallation);
  EXPECT_FALSE(Known("other/thing").has_value());

  // A second sweep signals the same items again: still one pending item each, still "swept".
  clock_->Advance(seconds(5));
  SweepStats again = sweeper.SweepOnce();
  EXPECT_EQ(again.repos, 2);
  EXPECT_EQ(again.prs, 3);
  EXPECT_EQ(Item("acme/app#1")->state, WorkState::kPending);
  EXPECT_EQ(Item("acme/app#1")->reasons, std::vector<std::string>{"swept"});
  EXPECT_FALSE(Item("acme/app#2").has_value());
}

TEST_F(SweeperTest, SweepWithNothingKnownCallsNothingAndSignalsNothing) {
  Repo("acme", "app", kInstallation);
  NewPull("acme/app", "one");
  Sweeper sweeper = MakeSweeper();
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(stats.repos, 0);
  EXPECT_EQ(stats.prs, 0);
  EXPECT_EQ(signalled_, 0);
  EXPECT_FALSE(Item("acme/app#1").has_value());
  EXPECT_FALSE(Known("acme/app").has_value());
}

TEST_F(SweeperTest, PersonalTokenModeSweepsOnlyStoreKnownRepositories) {
  Repo("acme", "app", kInstallation);
  Repo("acme", "lib", kInstallation);
  NewPull("acme/app", "one");
  NewPull("acme/app", "two");
  NewPull("acme/lib", "one");
  Learn("acme/app", std::nullopt);  // a personal-token webhook names no installation

  // App mode: without an installation nothing can be called for it.
  {
    Sweeper app = MakeSweeper();
    SweepStats stats = app.SweepOnce();
    EXPECT_EQ(stats.repos, 0);
    EXPECT_FALSE(Item("acme/app#1").has_value());
  }

  // Personal-token mode: a fixed token for every call (here one the simulator issued).
  Time expires;
  PersonalTokenSource pat(model_->IssueToken(kInstallation, &expires));
  GitHubClient pat_client(*curl_, pat, clock_);
  SweepOptions options;
  options.app_mode = false;
  Sweeper sweeper = MakeSweeper(options, &pat_client);
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(stats.repos, 1);
  EXPECT_EQ(stats.prs, 2);
  EXPECT_EQ(stats.skipped, 0);
  EXPECT_TRUE(Signalled("acme/app#1", "swept"));
  EXPECT_TRUE(Signalled("acme/app#2", "swept"));
  EXPECT_FALSE(Item("acme/lib#1").has_value()) << "not learned: not listed in this mode";
  EXPECT_FALSE(Known("acme/lib").has_value());
  EXPECT_FALSE(Known("acme/app")->installation_id.has_value());
}

TEST_F(SweeperTest, ASecondaryRateLimitSkipsTheRepositoryUntilTheNextRoundAfterRetryAfter) {
  Repo("acme", "app", kInstallation);
  Repo("acme", "lib", kInstallation);
  NewPull("acme/app", "one");
  NewPull("acme/app", "two");
  NewPull("acme/lib", "one");
  Learn("acme/app", kInstallation);
  // The simulator lists acme/app before acme/lib; lib's PR listing meets the limit.
  arming_->ArmOn("/repos/acme/lib/pulls",
                 R"({"secondary_rate_limits":1,"retry_after_seconds":30})");

  Sweeper sweeper = MakeSweeper();
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(arming_->fired(), 1);
  EXPECT_EQ(stats.skipped, 1);
  EXPECT_EQ(stats.repos, 1);
  EXPECT_EQ(stats.prs, 2);
  EXPECT_TRUE(Signalled("acme/app#1", "swept"));
  EXPECT_TRUE(Signalled("acme/app#2", "swept"));
  EXPECT_FALSE(Item("acme/lib#1").has_value()) << "nothing enqueued for the skipped repository";

  // Within Retry-After the installation's calls are refused locally: everything is skipped.
  clock_->Advance(seconds(10));
  SweepStats early = sweeper.SweepOnce();
  EXPECT_EQ(early.repos, 0);
  EXPECT_EQ(early.skipped, 2);
  EXPECT_FALSE(Item("acme/lib#1").has_value());

  clock_->Advance(seconds(21));
  SweepStats next = sweeper.SweepOnce();
  EXPECT_EQ(next.skipped, 0);
  EXPECT_EQ(next.repos, 2);
  EXPECT_EQ(next.prs, 3);
  EXPECT_TRUE(Signalled("acme/lib#1", "swept"));
}

// --- ResolveOnce ---

class ResolveTest : public SweeperTest {
 protected:
  // A `status` payload (the fixture, re-aimed) for `sha` in `repo`.
  static std::string StatusBody(const std::string& repo, const std::string& sha,
                                std::optional<int64_t> installation) {
    json::value v = json::parse(ReadFixture("status/payload.json"));
    json::object& o = v.as_object();
    o["sha"] = sha;
    o["repository"].as_object()["full_name"] = repo;
    if (installation) {
      o["installation"] = json::object{{"id", *installation}};
    } else {
      o.erase("installation");
    }
    return json::serialize(v);
  }
  // A `check_suite.completed` payload without a PR list (as for a fork's PR) for `sha`.
  static std::string SuiteBody(const std::string& repo, const std::string& sha,
                               std::optional<int64_t> installation) {
    json::value v = json::parse(ReadFixture("check_suite/completed.payload.json"));
    json::object& o = v.as_object();
    json::object& suite = o["check_suite"].as_object();
    suite["head_sha"] = sha;
    suite["pull_requests"] = json::array{};
    o["repository"].as_object()["full_name"] = repo;
    if (installation) {
      o["installation"] = json::object{{"id", *installation}};
    } else {
      o.erase("installation");
    }
    return json::serialize(v);
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

  Sweeper sweeper = MakeSweeper();
  SweepStats stats = sweeper.ResolveOnce();
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
  SweepStats again = sweeper.ResolveOnce();
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

  Sweeper sweeper = MakeSweeper();
  SweepStats stats = sweeper.ResolveOnce();
  EXPECT_EQ(arming_->fired(), 1);
  EXPECT_EQ(stats.resolved, 0);
  EXPECT_EQ(Get("d-open").state, InboxState::kUnresolved);
  EXPECT_FALSE(Item("acme/app#1").has_value());
  EXPECT_EQ(store_->inbox().GetFunnel()->in_flight, 1);

  clock_->Advance(seconds(31));
  SweepStats later = sweeper.ResolveOnce();
  EXPECT_EQ(later.resolved, 1);
  EXPECT_EQ(Get("d-open").state, InboxState::kRouted);
  EXPECT_TRUE(Signalled("acme/app#1", "status"));
  EXPECT_EQ(store_->inbox().GetFunnel()->in_flight, 0);
}

// --- The background loop ---

// The loop spreads a round's repositories over the interval and waits for each one's share
// on the injected clock: a repository comes due when the test moves the SimClock past its
// share, not before, and the next round starts one interval after the last.
TEST_F(SweeperTest, TheLoopSweepsEachRepositoryWhenTheClockReachesItsShareOfTheInterval) {
  Repo("acme", "app", kInstallation);
  Repo("acme", "lib", kInstallation);
  NewPull("acme/app", "one");
  NewPull("acme/lib", "one");
  Learn("acme/app", kInstallation);
  SweepOptions options;
  options.interval = std::chrono::minutes(10);  // two repositories: one every 5 minutes
  options.resolve_interval = seconds(30);
  testing::EventCount sweeps;
  Sweeper sweeper(*store_, *client_, clock_, options, [&sweeps] { sweeps.Add(); });
  sweeper.Start();

  // The first repository is due at once; then the loop parks until its next deadline.
  clock_->AwaitWaiters(1);
  EXPECT_EQ(sweeps.count(), 1);
  EXPECT_TRUE(Signalled("acme/app#1", "swept"));
  EXPECT_FALSE(Item("acme/lib#1").has_value()) << "its share of the interval has not come";

  clock_->Advance(std::chrono::minutes(5));
  ASSERT_TRUE(sweeps.AwaitAtLeast(2));
  EXPECT_TRUE(Signalled("acme/lib#1", "swept"));
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 1) << "the next round starts at 10 minutes";

  clock_->Advance(std::chrono::minutes(5));
  ASSERT_TRUE(sweeps.AwaitAtLeast(3));
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
  sweeper.Stop();
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1);
}

}  // namespace
}  // namespace gatehouse
