// The openai reviewer end to end, on the simulator's clock: gatehouse serve against the
// simulator's fake chat-completions endpoint (sim/chat_completions.h), scripted answer by
// answer (docs/REVIEWERS.md, "openai"). What each kind of failure costs the run is read from
// its work item between steps of simulated time:
//   503 (an outage)        waits on the availability budget, spends no attempt
//   malformed output       transient: spends attempts, then dead with the validation problem
//   429 with Retry-After   waits that long, spends no attempt
//   500                    transient: spends one attempt
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "sim/chat_completions.h"
#include "tests/review_world_test_util.h"

namespace gatehouse::review_testing {
namespace {

namespace json = boost::json;

constexpr char kModel[] = "gpt-sim";
constexpr char kKey[] = "sk-review-openai-e2e";
constexpr char kKeyEnv[] = "GATEHOUSE_REVIEW_OPENAI_E2E_KEY";
constexpr char kValid[] = R"({"content":{"verdict":"approve","summary":"looks fine"}})";
// A result whose severity is not one the schema allows: the validation problem is precise.
constexpr char kMalformed[] =
    R"({"content":{"verdict":"approve","summary":"x",
                   "findings":[{"path":"a.cc","severity":"high","message":"m"}]}})";

std::string Reviewers() {
  return std::string(
             "reviewers:\n"
             "  - name: gpt\n"
             "    roles: [security]\n"
             "    executor: {type: openai, base_url: \"${SIM_URL}/v1\", model: ") +
         kModel + ", api_key_env: " + kKeyEnv + "}\n    timeout: 60s\n";
}

// Appends `n` copies of `step` to the fake's script for kModel.
void Script(ReviewWorld& w, const std::string& step, int n = 1) {
  json::array steps;
  for (int i = 0; i < n; ++i) steps.push_back(json::parse(step));
  json::object body{{"model", kModel}, {"steps", std::move(steps)}};
  ASSERT_TRUE(w.sim().chat().Append(body).ok());
}

int64_t Requests(ReviewWorld& w) { return w.sim().chat().requests(kModel); }

// What the run's work item showed across every check: its highest `attempts`, and whether it
// was ever dead.
struct ItemWatch {
  int max_attempts = 0;
  bool ever_dead = false;

  void Look(ReviewWorld& w, int n) {
    auto item = SecurityItem(w, n);
    if (!item) return;
    max_attempts = std::max(max_attempts, item->attempts);
    ever_dead |= item->state == WorkState::kDead;
  }
};

// Holds every chat-completions request after the first `pass` until Release(), without
// blocking the simulator's thread (the responder is kept); everything else goes straight
// through. Records the simulated time each chat request arrived.
class ChatGate final : public HttpHandler {
 public:
  ChatGate(HttpHandler& inner, ClockPtr clock, int pass)
      : inner_(inner), clock_(std::move(clock)), pass_(pass) {}

  void Handle(HttpRequest request, Responder respond) override {
    if (request.method == "POST" && sim::FakeChatCompletions::Handles(request.Path())) {
      MutexLock lock(&mu_);
      arrivals_.push_back(clock_->Now());
      if (static_cast<int>(arrivals_.size()) > pass_) {
        held_.emplace_back(std::move(request), std::move(respond));
        return;
      }
    }
    inner_.Handle(std::move(request), std::move(respond));
  }

  int held() {
    MutexLock lock(&mu_);
    return static_cast<int>(held_.size());
  }
  std::vector<Time> arrivals() {
    MutexLock lock(&mu_);
    return arrivals_;
  }
  // Answers the held requests and lets every later one through.
  void Release() {
    std::vector<std::pair<HttpRequest, Responder>> held;
    {
      MutexLock lock(&mu_);
      held.swap(held_);
      pass_ = std::numeric_limits<int>::max();
    }
    for (auto& [request, respond] : held) inner_.Handle(std::move(request), std::move(respond));
  }

 private:
  HttpHandler& inner_;
  const ClockPtr clock_;
  Mutex mu_;
  int pass_ GUARDED_BY(mu_);
  std::vector<Time> arrivals_ GUARDED_BY(mu_);
  std::vector<std::pair<HttpRequest, Responder>> held_ GUARDED_BY(mu_);
};

class ReviewOpenAiTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv(kKeyEnv, kKey, 1); }

  // Starts the world with the openai reviewer; `gate_pass` >= 0 puts a ChatGate in front of
  // the simulator that lets that many chat requests through.
  void StartWorld(int gate_pass = -1) {
    WorldOptions o;
    o.sim_time = true;
    o.policy_yaml = kSecurityRequired;
    o.reviewers_yaml = Reviewers();
    if (gate_pass >= 0) {
      o.front = [this, gate_pass](sim::SimHandler& h) -> std::unique_ptr<HttpHandler> {
        auto gate = std::make_unique<ChatGate>(h, world_->clock(), gate_pass);
        gate_ = gate.get();
        return gate;
      };
    }
    world_ = std::make_unique<ReviewWorld>(o);
    ASSERT_NO_FATAL_FAILURE(world_->Start());
    ASSERT_TRUE(world_->sim().chat().Configure(json::object{{"api_key", kKey}}).ok());
  }

  std::unique_ptr<ReviewWorld> world_;
  ChatGate* gate_ = nullptr;  // owned by the world's simulator
};

// An outage longer than any transient retry ladder: 12 answers of 503 in a row, more than the
// 8 attempts a transient failure gets. The run waits through all of them without spending an
// attempt, and the first good answer is reviewed once.
TEST_F(ReviewOpenAiTest, AnOutageLongerThanTheRetryLadderStillWaits) {
  ASSERT_NO_FATAL_FAILURE(StartWorld());
  ReviewWorld& w = *world_;
  ASSERT_NO_FATAL_FAILURE(Script(w, R"({"status":503})", 12));
  const int n = w.OpenPull();
  ItemWatch watch;
  ASSERT_TRUE(w.Settle(
      [&] {
        watch.Look(w, n);
        return PostedOnce(w, n);
      },
      std::chrono::seconds(30)))
      << "the run did not survive the outage; requests: " << Requests(w);
  watch.Look(w, n);
  EXPECT_EQ(Requests(w), 13) << "12 outage answers, then the one that was reviewed";
  EXPECT_EQ(watch.max_attempts, 0) << "an outage answer spent an attempt";
  EXPECT_FALSE(watch.ever_dead);
  EXPECT_EQ(w.RunReviews(n).size(), 1u);
  auto funnel = w.store().reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->requested, 1);
  EXPECT_EQ(funnel->done, 1);
  EXPECT_EQ(funnel->dead, 0);
}

// Malformed output is transient: retried up to max_attempts (8), then dead with the validation
// problem as the reason; a re-arm with a valid answer scripted makes exactly one review.
TEST_F(ReviewOpenAiTest, MalformedOutputIsRetriedThenDeadWithTheReasonAndRearmRevivesIt) {
  ASSERT_NO_FATAL_FAILURE(StartWorld());
  ReviewWorld& w = *world_;
  ASSERT_NO_FATAL_FAILURE(Script(w, kMalformed, 10));
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return SecurityItem(w, n) && SecurityItem(w, n)->state == WorkState::kDead; },
                       std::chrono::seconds(10)))
      << "requests: " << Requests(w);
  EXPECT_EQ(Requests(w), 8) << "max_attempts answers, no more";
  EXPECT_TRUE(w.RunReviews(n).empty());
  const WorkItem dead = *SecurityItem(w, n);
  EXPECT_NE(dead.last_error.find("findings[0].severity"), std::string::npos) << dead.last_error;
  auto runs = w.Runs(n);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, RunState::kDead);
  EXPECT_NE(runs[0].reason.find("findings[0].severity"), std::string::npos) << runs[0].reason;

  w.sim().chat().ClearScript();
  ASSERT_NO_FATAL_FAILURE(Script(w, kValid));
  ASSERT_TRUE(w.store().work().Rearm(SecurityWorkKey(n), w.clock()->Now()).ok());
  ASSERT_TRUE(w.Settle([&] { return PostedOnce(w, n); })) << "requests: " << Requests(w);
  EXPECT_EQ(Requests(w), 9);
  const std::vector<sim::Review> reviews = w.RunReviews(n);
  ASSERT_EQ(reviews.size(), 1u);
  EXPECT_NE(reviews[0].body.find("looks fine"), std::string::npos) << reviews[0].body;
  EXPECT_EQ(reviews[0].commit_id, w.Pull(n).head_sha);
}

// 429 with Retry-After: the run waits (at least the 30 s it was told, in simulated time) and
// retries without spending an attempt.
TEST_F(ReviewOpenAiTest, TooManyRequestsWaitsItsRetryAfterWithoutSpendingAnAttempt) {
  ASSERT_NO_FATAL_FAILURE(StartWorld(/*gate_pass=*/1));
  ReviewWorld& w = *world_;
  ASSERT_NO_FATAL_FAILURE(Script(w, R"({"status":429,"retry_after":30})"));
  ASSERT_NO_FATAL_FAILURE(Script(w, kValid));
  const int n = w.OpenPull();
  ItemWatch watch;
  ASSERT_TRUE(w.Settle([&] {
    watch.Look(w, n);
    return gate_->held() == 1;
  })) << "the retry never came";
  // The retry is in flight: the 429 cost nothing.
  watch.Look(w, n);
  EXPECT_EQ(watch.max_attempts, 0);
  EXPECT_FALSE(watch.ever_dead);
  const std::vector<Time> arrivals = gate_->arrivals();
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_GE(arrivals[1] - arrivals[0], std::chrono::seconds(30)) << "Retry-After was not waited";

  gate_->Release();
  ASSERT_TRUE(w.Settle([&] {
    watch.Look(w, n);
    return PostedOnce(w, n);
  }));
  watch.Look(w, n);
  EXPECT_EQ(watch.max_attempts, 0);
  EXPECT_FALSE(watch.ever_dead);
  EXPECT_EQ(Requests(w), 2);
  EXPECT_EQ(w.RunReviews(n).size(), 1u);
}

// 500 is transient: one attempt is spent, and the retry is reviewed once.
TEST_F(ReviewOpenAiTest, AServerErrorIsTransientAndSpendsOneAttempt) {
  ASSERT_NO_FATAL_FAILURE(StartWorld(/*gate_pass=*/1));
  ReviewWorld& w = *world_;
  ASSERT_NO_FATAL_FAILURE(Script(w, R"({"status":500})"));
  ASSERT_NO_FATAL_FAILURE(Script(w, kValid));
  const int n = w.OpenPull();
  ItemWatch watch;
  ASSERT_TRUE(w.Settle([&] {
    watch.Look(w, n);
    return gate_->held() == 1;
  })) << "the retry never came";
  // The retry is in flight: the 500 cost exactly one attempt.
  auto retrying = SecurityItem(w, n);
  ASSERT_TRUE(retrying.has_value());
  EXPECT_EQ(retrying->attempts, 1);
  EXPECT_NE(retrying->last_error.find("HTTP 500"), std::string::npos) << retrying->last_error;

  gate_->Release();
  ASSERT_TRUE(w.Settle([&] {
    watch.Look(w, n);
    return PostedOnce(w, n);
  }));
  EXPECT_EQ(watch.max_attempts, 1);
  EXPECT_FALSE(watch.ever_dead);
  EXPECT_EQ(Requests(w), 2);
  EXPECT_EQ(w.RunReviews(n).size(), 1u);
}

}  // namespace
}  // namespace gatehouse::review_testing
