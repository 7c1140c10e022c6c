// The inbox router end to end against a real store: what a delivery's payload teaches
// (repositories with their installation, PR facts stamped with the delivery's received_at)
// lands in the same transaction as its routing decision.
#include "engine/inbox_router.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include "engine/inbox_writer.h"
#include "engine/ingest_pressure.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;

const Time kT0 = FromMicros(1'800'000'000'000'000);

std::string ReadFixture(const std::string& relative) {
  std::ifstream in(std::string(GATEHOUSE_FIXTURES) + "/" + relative, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(in) << relative;
  return text.str();
}

class InboxRouterTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = testing::SqliteTestBackend().open_fresh(dir_); }

  void Accept(const std::string& id, const std::string& event, const std::string& fixture,
              Time received_at) {
    Delivery d;
    d.delivery_id = id;
    d.event = event;
    d.body = ReadFixture(fixture);
    d.body_sha256 = id;
    d.received_at = received_at;
    auto r = store_->inbox().AcceptDeliveries({&d, 1}, {}, received_at);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // The issue_comment fixture moved onto pull request #1 with `body`, from `user` with
  // `association`.
  void AcceptComment(const std::string& id, const std::string& body, const std::string& user,
                     const std::string& association, Time received_at) {
    boost::json::value v = boost::json::parse(ReadFixture("issue_comment/created.payload.json"));
    boost::json::object& o = v.as_object();
    o["issue"].as_object()["number"] = 1;
    o["issue"].as_object()["pull_request"] = {
        {"url", "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}};
    boost::json::object& comment = o["comment"].as_object();
    comment["body"] = body;
    comment["author_association"] = association;
    comment["user"].as_object()["login"] = user;
    Delivery d;
    d.delivery_id = id;
    d.event = "issue_comment";
    d.body = boost::json::serialize(v);
    d.body_sha256 = id;
    d.received_at = received_at;
    auto r = store_->inbox().AcceptDeliveries({&d, 1}, {}, received_at);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // Makes the work item `key` dead: signalled, claimed, finished dead.
  void MakeDead(const std::string& key) {
    const Signal s{key, "test", Duration(0)};
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kAcknowledged).ok());
    auto leases = store_->work().Claim("test", 10, seconds(60), clock_->Now());
    ASSERT_TRUE(leases.ok() && leases->size() == 1u);
    PassFinish f;
    f.key = key;
    f.fence = (*leases)[0].fence;
    f.kind = PassFinish::Kind::kDead;
    f.attempts = 8;
    f.error = "made dead by the test";
    ASSERT_TRUE(store_->work().Finish({&f, 1}, clock_->Now()).ok());
    ASSERT_EQ(State(key), WorkState::kDead);
  }
  WorkState State(const std::string& key) {
    auto item = store_->work().GetWorkItem(key);
    EXPECT_TRUE(item.ok() && item->has_value());
    return item.ok() && item->has_value() ? (*item)->state : WorkState::kIdle;
  }
  size_t RouteAll() {
    InboxRouter router(*store_, clock_, RouterOptions{});
    auto n = router.RouteOnce(true);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  std::optional<RepoInstallation> Repo(std::string_view name) {
    auto r = store_->repos().GetRepository(name);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::nullopt;
  }

  testing::TempDir dir_;
  StorePtr store_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kT0 + seconds(100));
};

TEST_F(InboxRouterTest, RepositoriesAndFactsArriveWithTheRouting) {
  Accept("d-1", "installation", "installation/created.payload.json", kT0);
  Accept("d-2", "pull_request", "pull_request/reopened.payload.json", kT0 + seconds(1));
  Accept("d-3", "pull_request", "pull_request/closed.payload.json", kT0 + seconds(2));
  Accept("d-4", "push", "push/payload.json", kT0 + seconds(3));  // ignored, still teaches
  EXPECT_EQ(RouteAll(), 4u);

  auto created = Repo("codertocat/hello-world");
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->installation_id, 1) << "the later pull_request payloads name installation 1";
  auto facts = store_->repos().GetPrFacts("codertocat/hello-world#2");
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->size(), 2u);
  EXPECT_EQ((*facts)[0].name, "closed_by");
  EXPECT_EQ((*facts)[0].value, "Codertocat");
  EXPECT_EQ((*facts)[0].at, kT0 + seconds(2)) << "facts carry the delivery's received_at";
  EXPECT_EQ((*facts)[1].name, "reopened");
  EXPECT_EQ((*facts)[1].value, "Codertocat OWNER");
  EXPECT_EQ((*facts)[1].at, kT0 + seconds(1));
  auto push = store_->inbox().GetDelivery("d-4");
  ASSERT_TRUE(push.ok() && push->has_value());
  EXPECT_EQ((*push)->state, InboxState::kIgnored);

  // Removed from the installation: forgotten.
  Accept("d-5", "installation_repositories", "installation_repositories/added.payload.json",
         kT0 + seconds(4));
  EXPECT_EQ(RouteAll(), 1u);
  ASSERT_TRUE(Repo("codertocat/space").has_value());
  EXPECT_EQ(Repo("codertocat/space")->installation_id, 957387);
  Accept("d-6", "installation", "installation/deleted.payload.json", kT0 + seconds(5));
  EXPECT_EQ(RouteAll(), 1u);
  auto all = store_->repos().ListRepositories();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u) << "octocat/hello-world was never known; nothing else goes";
  EXPECT_EQ((*all)[0].repo, "codertocat/hello-world");
  EXPECT_EQ((*all)[1].repo, "codertocat/space");
}

// `refresh` by someone with write access brings a dead PR back (its pass runs now); other
// commands, or a refresh by someone without write access, leave it dead.
TEST_F(InboxRouterTest, ARefreshCommandBySomeoneWithWriteAccessRearmsADeadPr) {
  const std::string pr = "codertocat/hello-world#1";
  MakeDead(pr);
  AcceptComment("c-1", "/gatehouse refresh", "mallory", "CONTRIBUTOR", kT0);
  AcceptComment("c-2", "/gatehouse queue", "alice", "MEMBER", kT0 + seconds(1));
  EXPECT_EQ(RouteAll(), 2u);
  EXPECT_EQ(State(pr), WorkState::kDead);

  AcceptComment("c-3", "/gatehouse refresh", "alice", "MEMBER", kT0 + seconds(2));
  EXPECT_EQ(RouteAll(), 1u);
  EXPECT_EQ(State(pr), WorkState::kPending);
  auto item = store_->work().GetWorkItem(pr);
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->attempts, 0) << "its budget starts again";

  // A live item is left as it is.
  AcceptComment("c-4", "/gatehouse refresh", "alice", "OWNER", kT0 + seconds(3));
  EXPECT_EQ(RouteAll(), 1u);
  EXPECT_EQ(State(pr), WorkState::kPending);
}

// Ingest first (docs/INGRESS.md): what counts as a saturated door.
TEST(IngestPressureTest, ThreeFullCommitsInARowSaturateTheDoorForTheHold) {
  IngestPressure p;
  const size_t full = IngestPressure::kGroup;
  for (int i = 0; i < 10; ++i) p.RecordCommit(full - 1, kT0 + seconds(i));
  EXPECT_EQ(p.SaturatedUntil(), Time{}) << "commits short of a full group never saturate it";
  p.RecordCommit(full, kT0 + seconds(20));
  p.RecordCommit(full, kT0 + seconds(21));
  EXPECT_EQ(p.SaturatedUntil(), Time{}) << "two full commits are a burst, not a queue";
  p.RecordCommit(full, kT0 + seconds(22));
  EXPECT_EQ(p.SaturatedUntil(), kT0 + seconds(22) + IngestPressure::kHold);
  p.RecordCommit(full * 4, kT0 + seconds(23));
  EXPECT_EQ(p.SaturatedUntil(), kT0 + seconds(23) + IngestPressure::kHold);
  // A short commit ends the run but not the hold already granted; a new run must be full again.
  p.RecordCommit(1, kT0 + seconds(24));
  p.RecordCommit(full, kT0 + seconds(25));
  p.RecordCommit(full, kT0 + seconds(26));
  EXPECT_EQ(p.SaturatedUntil(), kT0 + seconds(23) + IngestPressure::kHold);
  p.RecordCommit(full, kT0 + seconds(27));
  EXPECT_EQ(p.SaturatedUntil(), kT0 + seconds(27) + IngestPressure::kHold);
}

class IngestFirstTest : public InboxRouterTest {
 protected:
  // Runs the router's loop over the store, holding back while `pressure_` says so, for up to
  // `limit`.
  void StartRouter(Duration limit, size_t batch = 256) {
    RouterOptions options;
    options.batch = batch;
    options.ingest = pressure_;
    options.defer_while_saturated = limit;
    options.held = &held_;
    options.holds = &holds_;
    options.on_batch = [this] {
      std::lock_guard<std::mutex> lock(batch_mu_);
      ++batches_;
      batch_cv_.notify_all();
    };
    router_ = std::make_unique<InboxRouter>(*store_, clock_, options);
    router_->Start();
  }
  int64_t Routed() {
    auto f = store_->inbox().GetFunnel();
    EXPECT_TRUE(f.ok());
    return f.ok() ? f->routed : -1;
  }
  // Waits (in real time, bounded) until the router has routed `n` deliveries.
  bool AwaitRouted(int64_t n) {
    std::unique_lock<std::mutex> lock(batch_mu_);
    return batch_cv_.wait_for(lock, std::chrono::seconds(30), [&] { return Routed() >= n; });
  }
  void TearDown() override {
    if (router_) router_->Stop();
  }
  // Saturated from now until `until` (three full group commits at until - kHold).
  void SaturateUntil(Time until) {
    for (int i = 0; i < IngestPressure::kRun; ++i) {
      pressure_->RecordCommit(IngestPressure::kGroup, until - IngestPressure::kHold);
    }
  }

  std::shared_ptr<IngestPressure> pressure_ = std::make_shared<IngestPressure>();
  metrics::Gauge held_;
  metrics::Counter holds_;
  std::unique_ptr<InboxRouter> router_;
  std::mutex batch_mu_;
  std::condition_variable batch_cv_;
  int batches_ = 0;
};

TEST_F(IngestFirstTest, RoutingWaitsForASaturatedDoorUpToTheLimitThenCatchesUp) {
  const Time start = clock_->Now();
  SaturateUntil(start + seconds(60));  // longer than the limit
  Accept("d-1", "pull_request", "pull_request/reopened.payload.json", start);
  Accept("d-2", "pull_request", "pull_request/closed.payload.json", start);
  StartRouter(seconds(30));
  clock_->AwaitWaiters(1);
  EXPECT_EQ(Routed(), 0) << "the door is saturated: routing waits";
  EXPECT_EQ(held_.Value(), 1.0);
  EXPECT_EQ(holds_.Value(), 1);
  clock_->Advance(seconds(29));
  EXPECT_EQ(Routed(), 0) << "still within the limit";
  clock_->Advance(seconds(1));
  EXPECT_TRUE(AwaitRouted(2)) << "the limit reached, it routes although the door is busy";
  EXPECT_EQ(held_.Value(), 0.0);
  EXPECT_EQ(holds_.Value(), 1);
}

// After the limit it routes until a batch comes back short, batch after batch, without
// holding back again in between (here three batches of one; the door stays saturated).
TEST_F(IngestFirstTest, AfterTheLimitItRoutesFullBatchesUntilCaughtUp) {
  const Time start = clock_->Now();
  SaturateUntil(start + seconds(600));
  Accept("d-1", "pull_request", "pull_request/reopened.payload.json", start);
  Accept("d-2", "pull_request", "pull_request/closed.payload.json", start);
  Accept("d-3", "pull_request", "pull_request/synchronize.payload.json", start);
  StartRouter(seconds(30), /*batch=*/1);
  clock_->AwaitWaiters(1);
  EXPECT_EQ(Routed(), 0);
  clock_->Advance(seconds(30));
  EXPECT_TRUE(AwaitRouted(3)) << "caught up with no further clock movement";
}

TEST_F(IngestFirstTest, TheDoorGoingIdleEndsTheWaitAtOnce) {
  const Time start = clock_->Now();
  SaturateUntil(start + IngestPressure::kHold);
  Accept("d-1", "pull_request", "pull_request/reopened.payload.json", start);
  StartRouter(seconds(30));
  clock_->AwaitWaiters(1);
  EXPECT_EQ(Routed(), 0);
  clock_->Advance(IngestPressure::kHold);  // no full commit since: the door is idle
  EXPECT_TRUE(AwaitRouted(1)) << "routed with the clock 100 ms on, far short of the limit";
}

TEST_F(IngestFirstTest, AZeroLimitRoutesAtOnceWhateverTheDoor) {
  SaturateUntil(clock_->Now() + seconds(60));
  Accept("d-1", "pull_request", "pull_request/reopened.payload.json", clock_->Now());
  StartRouter(Duration::zero());
  EXPECT_TRUE(AwaitRouted(1)) << "no clock movement needed";
}

// The writer tells the pressure what each group commit carried.
TEST_F(InboxRouterTest, TheInboxWriterReportsEachGroupCommitToThePressure) {
  for (size_t max_batch : {IngestPressure::kGroup - 1, IngestPressure::kGroup}) {
    SCOPED_TRACE("max_batch " + std::to_string(max_batch));
    auto pressure = std::make_shared<IngestPressure>();
    InboxWriter writer(*store_, clock_, nullptr, max_batch, pressure);
    std::mutex mu;
    std::condition_variable cv;
    size_t answered = 0;
    const size_t n = IngestPressure::kGroup * IngestPressure::kRun;
    for (size_t i = 0; i < n; ++i) {  // queued before Start: commits of max_batch each
      Delivery d;
      d.delivery_id = "w-" + std::to_string(max_batch) + "-" + std::to_string(i);
      d.event = "ping";
      d.body = "{}";
      d.body_sha256 = d.delivery_id;
      d.received_at = clock_->Now();
      writer.Accept(std::move(d), [&](Result<AcceptOutcome> r) {
        EXPECT_TRUE(r.ok());
        std::lock_guard<std::mutex> lock(mu);
        ++answered;
        cv.notify_all();
      });
    }
    writer.Start();
    {
      std::unique_lock<std::mutex> lock(mu);
      ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return answered == n; }));
    }
    writer.Stop();
    if (max_batch < IngestPressure::kGroup) {
      EXPECT_EQ(pressure->SaturatedUntil(), Time{});
    } else {
      EXPECT_EQ(pressure->SaturatedUntil(), clock_->Now() + IngestPressure::kHold);
    }
  }
}

}  // namespace
}  // namespace gatehouse
