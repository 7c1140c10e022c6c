// The router over every real GitHub payload in ../shared/fixtures/github-webhooks (from
// octokit/webhooks): each routes or says why not, is well formed under every event gatehouse
// subscribes to, and the PR-related ones route exactly as listed here.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "engine/router.h"
#include "engine/router_test_util.h"

namespace gatehouse {
namespace {

using namespace router_testing;  // NOLINT(google-build-using-namespace): the tests' own toolkit

// --- (a) every real payload -------------------------------------------------------------

TEST(RouterFixturesTest, EveryFixtureRoutesOrSaysWhyNot) {
  const auto fixtures = AllFixtures();
  // Guard against a vacuous pass when the fixture folder is missing or moved.
  ASSERT_GE(fixtures.size(), 200u) << "fixtures not found under " << kFixtures;
  int routed = 0, ignored = 0, by_sha = 0;
  for (const auto& [event, path] : fixtures) {
    const json::value payload = ParseFile(path);
    const RouteResult r = RouteWebhook(event, payload);
    ExpectWellFormed(r, path.string());
    const bool used = std::find(kUsedEvents.begin(), kUsedEvents.end(), event) != kUsedEvents.end();
    if (!used && event != "ping") {
      EXPECT_EQ(r.kind, Kind::kIgnore) << path;
      EXPECT_EQ(r.why, "event " + event + " is not used") << path;
    }
    routed += r.kind == Kind::kRoute;
    ignored += r.kind == Kind::kIgnore;
    by_sha += r.kind == Kind::kResolveBySha;
  }
  // pull_request x9, pull_request_review x2, check_run, check_suite, installation x6,
  // installation_repositories x2.
  EXPECT_EQ(routed, 21);
  EXPECT_EQ(by_sha, 2);  // status, workflow_run/completed (empty PR list)
  EXPECT_EQ(ignored, static_cast<int>(fixtures.size()) - 23);
}

// Every payload under every used event name: the wrong shape for the event must be ignored
// with a reason, never crash or produce a malformed key.
TEST(RouterFixturesTest, EveryFixtureUnderEveryUsedEventIsWellFormed) {
  for (const auto& [real_event, path] : AllFixtures()) {
    const json::value payload = ParseFile(path);
    for (const auto& event : kUsedEvents) {
      ExpectWellFormed(RouteWebhook(event, payload), event + " <- " + path.string());
    }
  }
}

// --- (b) the PR-related fixtures, exactly ------------------------------------------------

struct Expected {
  std::string event;
  std::string file;
  Kind kind;
  std::vector<std::string> keys;
  std::vector<std::string> reasons;
  Heads heads;
  std::string why = {};   // exact, when set
  std::string repo = {};  // kResolveBySha
  std::string sha = {};   // kResolveBySha
};

std::vector<Expected> PrFixtureExpectations() {
  const std::vector<std::string> hello = {kHelloKey};
  return {
      {"pull_request", "opened", Kind::kRoute, hello, {"opened"}, kOpenHead},
      {"pull_request", "reopened", Kind::kRoute, hello, {"reopened"}, kOpenHead},
      {"pull_request", "synchronize", Kind::kRoute, hello, {"pushed"}, kOpenHead},
      {"pull_request", "ready_for_review", Kind::kRoute, hello, {"ready-for-review"}, kOpenHead},
      {"pull_request",
       "converted_to_draft",
       Kind::kRoute,
       hello,
       {"converted-to-draft"},
       kOpenHead},
      {"pull_request", "closed", Kind::kRoute, hello, {"closed"}, kClosedHead},
      {"pull_request", "labeled", Kind::kRoute, hello, {"labeled"}, kOpenHead},
      {"pull_request", "unlabeled", Kind::kRoute, hello, {"unlabeled"}, kOpenHead},
      {"pull_request", "review_requested", Kind::kRoute, hello, {"review-requested"}, kOpenHead},
      // Unused actions still teach the head.
      {"pull_request",
       "assigned",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.assigned is not used"},
      {"pull_request",
       "unassigned",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.unassigned is not used"},
      {"pull_request",
       "locked",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.locked is not used"},
      {"pull_request",
       "unlocked",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.unlocked is not used"},
      {"pull_request",
       "review_request_removed",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.review_request_removed is not used"},
      {"pull_request_review", "submitted", Kind::kRoute, hello, {"reviewed"}, {}},
      {"pull_request_review", "dismissed", Kind::kRoute, hello, {"review-dismissed"}, {}},
      {"check_run", "completed", Kind::kRoute, hello, {"ci-completed"}, {}},
      {"check_run", "created", Kind::kIgnore, {}, {}, {}, "check_run.created is not used"},
      {"check_run", "rerequested", Kind::kIgnore, {}, {}, {}, "check_run.rerequested is not used"},
      {"check_run",
       "requested_action",
       Kind::kIgnore,
       {},
       {},
       {},
       "check_run.requested_action is not used"},
      {"check_suite", "completed", Kind::kRoute, hello, {"ci-completed"}, {}},
      {"check_suite", "requested", Kind::kIgnore, {}, {}, {}, "check_suite.requested is not used"},
      {"check_suite",
       "rerequested",
       Kind::kIgnore,
       {},
       {},
       {},
       "check_suite.rerequested is not used"},
      // The workflow_run fixture lists no PRs: resolved by its head SHA.
      {"workflow_run",
       "completed",
       Kind::kResolveBySha,
       {},
       {},
       {},
       "",
       "octo-org/octo-repo",
       "3484a3fb816e0859fd6e1cea078d76385ff50625"},
      {"workflow_run",
       "requested",
       Kind::kIgnore,
       {},
       {},
       {},
       "workflow_run.requested is not used"},
      {"status",
       "",
       Kind::kResolveBySha,
       {},
       {},
       {},
       "",
       "codertocat/hello-world",
       "6113728f27ae82c7b1a177c8d03f9e96e0adf246"},
      // The fixture comments are on issue #1, a plain issue.
      {"issue_comment",
       "created",
       Kind::kIgnore,
       {},
       {},
       {},
       "issue_comment on a plain issue, not a pull request"},
      {"issue_comment", "edited", Kind::kIgnore, {}, {}, {}, "issue_comment.edited is not used"},
      {"issue_comment", "deleted", Kind::kIgnore, {}, {}, {}, "issue_comment.deleted is not used"},
      {"installation", "created", Kind::kRoute, {}, {}, {}, "installation recorded: created"},
      {"installation", "deleted", Kind::kRoute, {}, {}, {}, "installation recorded: deleted"},
      {"installation", "suspend", Kind::kRoute, {}, {}, {}, "installation recorded: suspend"},
      {"installation_repositories",
       "added",
       Kind::kRoute,
       {},
       {},
       {},
       "installation recorded: added"},
      {"installation_repositories",
       "removed",
       Kind::kRoute,
       {},
       {},
       {},
       "installation recorded: removed"},
      {"ping", "", Kind::kIgnore, {}, {}, {}, "ping"},
  };
}

TEST(RouterFixturesTest, PrRelatedFixturesRouteExactly) {
  for (const Expected& e : PrFixtureExpectations()) {
    const std::string file =
        e.event + "/" + (e.file.empty() ? "payload.json" : e.file + ".payload.json");
    SCOPED_TRACE(file);
    const RouteResult r = RouteWebhook(e.event, Fixture(file));
    EXPECT_EQ(r.kind, e.kind);
    EXPECT_EQ(Keys(r), e.keys);
    EXPECT_EQ(Reasons(r), e.reasons);
    EXPECT_EQ(r.heads, e.heads);
    if (!e.why.empty()) {
      EXPECT_EQ(r.why, e.why);
    }
    if (e.kind == Kind::kResolveBySha) {
      EXPECT_EQ(r.repo, e.repo);
      EXPECT_EQ(r.sha, e.sha);
      EXPECT_EQ(r.reason, e.event == "status" ? "status" : "ci-completed");
    }
  }
}

}  // namespace
}  // namespace gatehouse
