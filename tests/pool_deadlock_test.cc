// The PostgreSQL pool cannot deadlock (docs/POSTGRES.md, "Pool sizing"; store/postgres/pg_pool.h):
// gatehouse serve's whole wiring in-process (tests/review_world_test_util.h) on a fresh
// PostgreSQL database with a pool of 2 connections and 8 workers, against the in-process
// simulator with a real command reviewer. 200 signed pull_request webhooks for 200 distinct PRs
// are POSTed over loopback from 16 threads at once; each PR gets a review run. The test asserts
// that everything completes: every delivery answered 2xx, the webhook funnel drained (in_flight
// 0, dead 0), every review run terminal and posted, no work item dead. A nested acquire would
// abort the process (PgPool), and a connection held while waiting for GitHub, an executor or
// another connection would stall it until the safety-net deadline, failing the test.
//
// Skips, saying why, when GATEHOUSE_TEST_PG_URL is unset.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <latch>
#include <thread>

#include "github/signature.h"
#include "http/test_client.h"
#include "store/pg_test_database.h"
#include "tests/review_world_test_util.h"

namespace gatehouse::review_testing {
namespace {

constexpr int kPulls = 200;
constexpr int kSenders = 16;

// Answers approve at once; its runs are real processes.
constexpr char kReviewer[] = R"(cat > /dev/null
printf '{"verdict":"approve","summary":"reviewed","findings":[]}'
)";

class PoolDeadlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* url = std::getenv(testing::kTestPgUrlEnv);
    if (url == nullptr || *url == '\0') {
      GTEST_SKIP() << testing::kTestPgUrlEnv
                   << " is not set: no PostgreSQL test cluster (bash scripts/pg-cluster.sh "
                      "start, or run bash scripts/test.sh)";
    }
    cluster_ = url;
    auto db = testing::CreatePgTestDatabase(cluster_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  void TearDown() override {
    world_.reset();  // the server's connections close before the database is dropped
    if (!db_.name.empty()) {
      Status s = testing::DropPgTestDatabase(cluster_, db_.name);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
  }

  // The world on the test database: a pool of `pool` connections, `acquire_timeout` per call.
  void StartWorld(int pool, std::chrono::milliseconds acquire_timeout) {
    WorldOptions o;
    o.policy_yaml = kSecurityRequired;
    o.reviewers_yaml = "reviewers:\n" + CommandReviewer("sec", "security",
                                                        WriteScript(dir_.File("r.sh"), kReviewer),
                                                        /*concurrency=*/4);
    o.workers = 8;
    o.forward_webhooks = false;  // the test posts the deliveries itself, all at once
    o.store_url = db_.url;
    o.store_options.pool_size = pool;
    o.store_options.acquire_timeout = acquire_timeout;
    world_ = std::make_unique<ReviewWorld>(o);
    ASSERT_NO_FATAL_FAILURE(world_->Start());
  }

  // Opens kPulls PRs (on distinct branches) and returns their pull_request webhook bodies.
  std::vector<std::string> OpenPulls() {
    for (int i = 0; i < kPulls; ++i) {
      sim::NewPull pull;
      pull.head_ref = "feature-" + std::to_string(i);
      const int number = world_->OpenPull(pull);
      EXPECT_NE(number, 0);
      numbers_.push_back(number);
    }
    std::vector<std::string> bodies;
    for (const auto& [event, body] : world_->Rendered()) {
      if (event == "pull_request") bodies.push_back(body);
    }
    return bodies;
  }

  // POSTs every body, signed, with its own delivery id, from kSenders threads released at once;
  // returns each delivery's HTTP status.
  std::vector<int> PostAll(const std::vector<std::string>& bodies, const std::string& prefix) {
    std::vector<int> statuses(bodies.size(), 0);
    std::latch go(kSenders);
    std::vector<std::thread> senders;
    for (int t = 0; t < kSenders; ++t) {
      senders.emplace_back([&, t] {
        go.arrive_and_wait();
        for (size_t i = t; i < bodies.size(); i += kSenders) {
          statuses[i] = Post(bodies[i], prefix + std::to_string(i));
        }
      });
    }
    for (std::thread& s : senders) s.join();
    return statuses;
  }

  int Post(const std::string& body, const std::string& delivery) {
    return http_testing::RoundTrip(
               world_->port(),
               http_testing::BuildRequest(
                   "POST", "/webhook",
                   {{"Content-Type", "application/json"},
                    {"X-GitHub-Event", "pull_request"},
                    {"X-GitHub-Delivery", delivery},
                    {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(kSecret, body)}},
                   body))
        .status;
  }

  // The webhooks are routed and every review run of the kPulls PRs is posted.
  bool Drained() {
    auto f = world_->store().inbox().GetFunnel();
    auto r = world_->store().reviews().GetReviewFunnel();
    return f.ok() && r.ok() && f->routed + f->dead >= kPulls && f->in_flight == 0 &&
           r->requested >= kPulls && r->in_flight == 0;
  }

  // Work items that failed at least once with the pool exhausted (for the log: such failures
  // are transient and retried, so they may happen under load without losing anything).
  int PoolExhaustedItems() {
    WorkFilter all;
    all.limit = 10'000;
    auto items = world_->store().work().ListWorkItems(all);
    if (!items.ok()) return -1;
    int n = 0;
    for (const WorkItem& item : *items) n += item.last_error.find("pool exhausted") != std::string::npos;
    return n;
  }

  // For the log: transient failures the engine retried (such as an exhausted pool) and
  // finishes refused by a moved fence; neither loses work.
  void RecordCounters() {
    RecordProperty("pool_exhausted_items", PoolExhaustedItems());
    auto counters = world_->store().GetCounters();
    ASSERT_TRUE(counters.ok()) << counters.status().ToString();
    for (const char* name : {"work.passes_retried", "work.fence_rejections", "work.dead"}) {
      RecordProperty(name, std::to_string((*counters)[name]));
    }
  }

  void ExpectEverythingCompleted() {
    auto funnel = world_->store().inbox().GetFunnel();
    ASSERT_TRUE(funnel.ok()) << funnel.status().ToString();
    EXPECT_EQ(funnel->routed, kPulls);
    EXPECT_EQ(funnel->dead, 0);
    EXPECT_EQ(funnel->in_flight, 0);
    auto reviews = world_->store().reviews().GetReviewFunnel();
    ASSERT_TRUE(reviews.ok()) << reviews.status().ToString();
    EXPECT_EQ(reviews->requested, kPulls) << "one run per PR";
    EXPECT_EQ(reviews->done, kPulls);
    EXPECT_EQ(reviews->dead, 0);
    EXPECT_EQ(reviews->in_flight, 0);
    WorkFilter dead_only;
    dead_only.state = WorkState::kDead;
    auto dead = world_->store().work().ListWorkItems(dead_only);
    ASSERT_TRUE(dead.ok()) << dead.status().ToString();
    EXPECT_TRUE(dead->empty()) << dead->front().key << ": " << dead->front().last_error;
    for (int n : numbers_) EXPECT_EQ(world_->RunReviews(n).size(), 1u) << "PR #" << n;
  }

  std::string cluster_;
  testing::PgTestDatabase db_;
  testing::TempDir dir_;
  std::unique_ptr<ReviewWorld> world_;
  std::vector<int> numbers_;  // the PRs opened
};

// 200 concurrent deliveries for 200 PRs plus their review runs, on 8 workers and 2 connections.
TEST_F(PoolDeadlockTest, TwoHundredConcurrentDeliveriesAndReviewsCompleteOnAPoolOfTwo) {
  ASSERT_NO_FATAL_FAILURE(StartWorld(2, std::chrono::milliseconds(10'000)));
  const std::vector<std::string> bodies = OpenPulls();
  ASSERT_EQ(bodies.size(), static_cast<size_t>(kPulls));
  const std::vector<int> statuses = PostAll(bodies, "pool-");
  for (size_t i = 0; i < statuses.size(); ++i) {
    EXPECT_TRUE(statuses[i] >= 200 && statuses[i] < 300) << "delivery " << i << ": " << statuses[i];
  }
  ASSERT_TRUE(world_->Settle([&] { return Drained(); })) << "the pool of 2 did not drain the work";
  ExpectEverythingCompleted();
  RecordCounters();
}

}  // namespace
}  // namespace gatehouse::review_testing
