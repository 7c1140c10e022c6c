// Reviewer dispatch end to end (docs/REVIEWERS.md, "Guarantees"): gatehouse serve's wiring
// in-process against the simulator, real command reviewers as processes, real HTTP, real
// SQLite (tests/review_world_test_util.h). Each test asserts an invariant of the issue — one run
// per (PR, head, role), nothing dropped, nothing dead that should wait, capacity never
// exceeded, nothing posted on a head that is gone — never a timing.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "act/review_pass.h"
#include "github/signature.h"
#include "http/test_client.h"
#include "tests/review_world_test_util.h"

namespace gatehouse::review_testing {
namespace {

constexpr char kPolicy[] = R"(reviews:
  roles:
    - role: security
      required: true
    - role: style
)";

// A command reviewer: logs "start NAME" / "end NAME" around its work (appends are atomic at
// this size), waits for GO when given, fails once when FAIL exists (removing it), and answers
// approve. argv: NAME LOG [GO] [FAIL]
constexpr char kReviewer[] = R"(cat > /dev/null
echo "start $1" >> "$2"
if [ -n "$4" ] && [ -f "$4" ]; then rm -f "$4"; echo "failing once" >&2; exit 3; fi
if [ -n "$3" ]; then while [ ! -f "$3" ]; do sleep 0.02; done; fi
sleep 0.05
echo "end $1" >> "$2"
printf '{"verdict":"approve","summary":"reviewed by %s","findings":[]}' "$1"
)";

int Count(const std::vector<ReviewRun>& runs, RunState state) {
  return static_cast<int>(std::count_if(runs.begin(), runs.end(),
                                        [&](const ReviewRun& r) { return r.state == state; }));
}

std::string Key(int number) { return std::string(kRepo) + "#" + std::to_string(number); }

bool AllDone(ReviewWorld& w, int number, size_t runs) {
  auto rs = w.Runs(number);
  return rs.size() == runs && Count(rs, RunState::kDone) == static_cast<int>(runs);
}

// ---------------------------------------------------------------------------------------------

class ReviewDispatchTest : public ::testing::Test {
 protected:
  std::string Script() { return WriteScript(dir_.File("reviewer.sh"), kReviewer); }
  testing::TempDir dir_;
};

// Two deliveries for one PR at the same instant while its pass runs (held inside its first
// read of the PR): exactly one run per role, and the late deliveries are covered by a pass.
TEST_F(ReviewDispatchTest, ConcurrentDeliveriesDuringThePassMakeOneRunPerRole) {
  const std::string script = Script(), log = dir_.File("log");
  std::atomic<bool> hold{true};
  std::atomic<int> held{0};
  Mutex mu;
  CondVar cv;
  WorldOptions o;
  o.policy_yaml = kPolicy;
  o.reviewers_yaml = "reviewers:\n" +
                     CommandReviewer("sec", "security", script + ", sec, " + log, 2) +
                     CommandReviewer("sty", "style", script + ", sty, " + log, 2);
  // Holds the first GET of PR #1 until released: the pass is running meanwhile.
  class Holder final : public HttpHandler {
   public:
    Holder(HttpHandler& inner, std::atomic<bool>& hold, std::atomic<int>& held, Mutex& mu,
           CondVar& cv)
        : inner_(inner), hold_(hold), held_(held), mu_(mu), cv_(cv) {}
    void Handle(HttpRequest request, Responder respond) override {
      if (request.method == "GET" && request.Path() == "/repos/acme/app/pulls/1" &&
          hold_.exchange(false)) {
        held_ = 1;
        MutexLock lock(&mu_);
        while (held_.load() == 1) cv_.Wait(&mu_);
      }
      inner_.Handle(std::move(request), std::move(respond));
    }

   private:
    HttpHandler& inner_;
    std::atomic<bool>& hold_;
    std::atomic<int>& held_;
    Mutex& mu_;
    CondVar& cv_;
  };
  o.front = [&](sim::SimHandler& h) -> std::unique_ptr<HttpHandler> {
    return std::make_unique<Holder>(h, hold, held, mu, cv);
  };
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return held.load() == 1; })) << "the pass never read the PR";
  // Two label webhooks at once, while the pass is held.
  std::thread a([&] { w.model().AddLabels("alice", kRepo, n, {"one"}); });
  std::thread b([&] { w.model().AddLabels("bob", kRepo, n, {"two"}); });
  a.join();
  b.join();
  ASSERT_TRUE(w.Settle([&] {
    auto f = w.store().inbox().GetFunnel();
    return f.ok() && f->routed >= 3;
  })) << "the label deliveries were not routed";
  {
    MutexLock lock(&mu);
    held = 2;
    cv.SignalAll();
  }
  ASSERT_TRUE(w.Settle([&] { return AllDone(w, n, 2) && w.RunReviews(n).size() == 2; }));
  auto item = w.store().work().GetWorkItem(Key(n));
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_TRUE(w.Settle([&] {
    auto i = w.store().work().GetWorkItem(Key(n));
    return i.ok() && *i && (*i)->done_gen == (*i)->requested_gen && (*i)->state == WorkState::kIdle;
  })) << "a delivery that arrived during the pass was not covered";
  std::set<std::string> roles;
  for (const ReviewRun& r : w.Runs(n)) roles.insert(r.key.role);
  EXPECT_EQ(roles, (std::set<std::string>{"security", "style"}));
}

// The same delivery id POSTed twice at once (a redelivery racing the original): one run.
TEST_F(ReviewDispatchTest, TheSameDeliveryTwiceConcurrentlyMakesOneRun) {
  const std::string script = Script(), log = dir_.File("log");
  WorldOptions o;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml =
      "reviewers:\n" + CommandReviewer("sec", "security", script + ", sec, " + log, 2);
  o.forward_webhooks = false;  // the only deliveries are the two this test posts
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  std::string body;
  for (const auto& [event, b] : w.Rendered()) {
    if (event == "pull_request") body = b;
  }
  ASSERT_FALSE(body.empty());
  auto post = [&] {
    return http_testing::RoundTrip(
        w.port(), http_testing::BuildRequest(
                      "POST", "/webhook",
                      {{"Content-Type", "application/json"},
                       {"X-GitHub-Event", "pull_request"},
                       {"X-GitHub-Delivery", "same-delivery-1"},
                       {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(kSecret, body)}},
                      body));
  };
  int statuses[2] = {0, 0};
  std::thread a([&] { statuses[0] = post().status; });
  std::thread b([&] { statuses[1] = post().status; });
  a.join();
  b.join();
  EXPECT_TRUE((statuses[0] == 202 && statuses[1] == 200) ||
              (statuses[0] == 200 && statuses[1] == 202))
      << statuses[0] << " " << statuses[1];
  auto funnel = w.store().inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->received, 2);
  EXPECT_EQ(funnel->duplicate, 1) << "the redelivery was not recognised";
  ASSERT_TRUE(w.Settle([&] { return AllDone(w, n, 1); }));
  EXPECT_EQ(w.Runs(n).size(), 1u);
  EXPECT_EQ(w.RunReviews(n).size(), 1u);
}

}  // namespace
}  // namespace gatehouse::review_testing
