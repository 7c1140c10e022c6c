#include "sim/scenario.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

namespace gatehouse::sim {
namespace {

class ScenarioTest : public ::testing::Test {
 protected:
  ScenarioTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true}) {}

  Result<ScenarioVerdict> Run(const std::string& text) {
    // Simulated time: a timeline step "later" moves the model's clock, nothing sleeps.
    return RunScenario(text, handler_, model_, [this](Duration d) { clock_->Advance(d); });
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

constexpr char kScenario[] = R"({
  "setup": [{"call": "POST /_sim/repos", "body": {"owner": "acme", "name": "app"}}],
  "timeline": [
    {"at_ms": 0, "call": "POST /_sim/repos/acme/app/pulls", "body": {"title": "x"}},
    {"at_ms": 5000, "call": "POST /_sim/repos/acme/app/check-runs", "body": {"pr": 1}},
    {"at_ms": 5000, "call": "POST /_sim/repos/acme/app/pulls/1/comments",
     "body": {"user": "bob", "body": "hi"}}
  ],
  "faults": {"server_errors": 1},
  "expect": [
    {"kind": "create_pull", "count": 1},
    {"kind": "check_run", "status": 201, "at_least": 1},
    {"kind": "comment", "number": 1, "who": "bob"}
  ],
  "timeout_ms": 100, "settle_ms": 0
})";

// scenario_fuzz_test found it: an `at_ms` near INT64_MAX overflowed when made a Duration in
// microseconds. Times past a day (and negative ones) are refused, before anything is played.
TEST_F(ScenarioTest, TimesOutsideADayAreRefusedNotOverflowed) {
  const std::pair<const char*, const char*> bad[] = {
      {R"({"timeline": [{"at_ms": 1199999999999999926, "call": "GET /_sim/state"}]})",
       "at_ms must be between 0 and 86400000 (a day), got 1199999999999999926"},
      {R"({"timeline": [{"at_ms": -5, "call": "GET /_sim/state"}]})",
       "at_ms must be between 0 and 86400000 (a day), got -5"},
      {R"({"timeline": [{"at_ms": 18446744073709551615, "call": "GET /_sim/state"}]})",
       "at_ms must be between 0 and 86400000"},
      {R"({"timeout_ms": 9223372036854775807})", "timeout_ms must be between 0 and 86400000"},
      {R"({"settle_ms": 86400001})", "settle_ms must be between 0 and 86400000"},
  };
  for (const auto& [text, message] : bad) {
    auto verdict = Run(text);
    ASSERT_FALSE(verdict.ok()) << text;
    EXPECT_EQ(verdict.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(verdict.status().message().find(message), std::string::npos)
        << verdict.status().message();
  }
  EXPECT_TRUE(model_.Effects().empty()) << "nothing played";
  auto day = Run(R"({"timeline": [{"at_ms": 86400000, "call": "GET /_sim/state"}],
                     "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(day.ok()) << day.status().ToString();
}

TEST_F(ScenarioTest, PlaysTheTimelineAndChecksExpectations) {
  auto verdict = Run(kScenario);
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_TRUE(verdict->ok) << (verdict->failures.empty() ? "" : verdict->failures[0]);
  EXPECT_EQ(FormatVerdict(*verdict),
            "verdict: ok effects=3 expectations=3 steps=5 steps_failed=0 unmet=0");
  // The comment came 5 s (simulated) after the PR.
  auto effects = model_.Effects();
  ASSERT_EQ(effects.size(), 3u);
  EXPECT_EQ(effects[2].at - effects[0].at, std::chrono::seconds(5));
}

// The settle lasts while the target is still acting: a second label added after the plain
// settle would have ended, while the target was still commenting, is seen.
TEST_F(ScenarioTest, TheSettleLastsWhileTheTargetStillActs) {
  constexpr char kText[] = R"({
    "setup": [{"call": "POST /_sim/repos", "body": {"owner": "acme", "name": "app"}},
              {"call": "POST /_sim/repos/acme/app/pulls", "body": {"title": "x"}}],
    "expect": [{"kind": "label_add", "count": 1}],
    "timeout_ms": 10000, "settle_ms": 1000})";
  const Time start = clock_->Now();
  auto verdict = RunScenario(kText, handler_, model_, [&](Duration d) {
    clock_->Advance(d);
    const auto at = std::chrono::duration_cast<std::chrono::milliseconds>(clock_->Now() - start);
    const std::string who = "installation:1";
    Outcome acted{200, ""};
    if (at.count() == 50) acted = model_.AddLabels(who, "acme/app", 1, {"a"});
    if (at.count() == 1050) acted = model_.AddComment(who, "acme/app", 1, "busy", nullptr);
    if (at.count() == 1500) acted = model_.AddLabels(who, "acme/app", 1, {"b"});
    EXPECT_TRUE(acted.ok()) << at.count();
  });
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_FALSE(verdict->ok);
  ASSERT_FALSE(verdict->failures.empty());
  EXPECT_NE(verdict->failures[0].find("label_add"), std::string::npos) << verdict->failures[0];
  // It ended once the last effect was settle_ms old.
  EXPECT_EQ(clock_->Now() - start, std::chrono::milliseconds(2500));
}

// `at_most` bounds a count from above (CI runs a merge queue's batching saves), alone or with
// `at_least`.
TEST_F(ScenarioTest, AtMostBoundsACountFromAbove) {
  // Each run makes a repository of its own in the fixture's one model, with two PRs.
  int runs = 0;
  auto run = [&](const std::string& expect) {
    const std::string repo = "app" + std::to_string(++runs);
    auto verdict = Run(R"({
      "setup": [{"call": "POST /_sim/repos", "body": {"owner": "acme", "name": ")" + repo + R"("}}],
      "timeline": [{"call": "POST /_sim/repos/acme/)" + repo + R"(/pulls", "body": {"title": "a"}},
                   {"call": "POST /_sim/repos/acme/)" + repo + R"(/pulls", "body": {"title": "b"}}],
      "expect": [)" + expect + R"(], "timeout_ms": 100, "settle_ms": 0})");
    EXPECT_TRUE(verdict.ok());
    return verdict.ok() && verdict->ok;
  };
  // The log holds every run's creations: 2, then 4, 6, 8.
  EXPECT_TRUE(run(R"({"kind": "create_pull", "at_most": 2})"));
  EXPECT_FALSE(run(R"({"kind": "create_pull", "at_most": 3})"));
  EXPECT_TRUE(run(R"({"kind": "create_pull", "at_least": 5, "at_most": 6})"));
  EXPECT_FALSE(run(R"({"kind": "create_pull", "at_least": 9, "at_most": 12})"));
}

TEST_F(ScenarioTest, UnmetExpectationsAndRefusedStepsFail) {
  auto verdict = Run(R"({
    "timeline": [{"call": "POST /_sim/repos/no/such/pulls", "body": {}}],
    "expect": [{"kind": "merge", "status": 200, "count": 1}],
    "timeout_ms": 100, "settle_ms": 0})");
  ASSERT_TRUE(verdict.ok());
  EXPECT_FALSE(verdict->ok);
  EXPECT_EQ(verdict->failures.size(), 2u);
  EXPECT_EQ(FormatVerdict(*verdict).rfind("verdict: FAIL", 0), 0u);
  EXPECT_EQ(verdict->counts["unmet"], 1);
  EXPECT_EQ(verdict->counts["steps_failed"], 1);
}

constexpr char kStateSetup[] = R"(
  "setup": [{"call": "POST /_sim/repos", "body": {"owner": "acme", "name": "app"}}],
  "timeline": [
    {"at_ms": 0, "call": "POST /_sim/repos/acme/app/pulls",
     "body": {"title": "x", "author": "alice", "labels": ["ready"]}},
    {"at_ms": 10, "call": "POST /_sim/repos/acme/app/pulls/1/reviews",
     "body": {"user": "bob", "event": "APPROVE"}},
    {"at_ms": 10, "call": "POST /_sim/repos/acme/app/pulls/1/comments",
     "body": {"user": "bob", "body": "lgtm"}}
  ],
  "timeout_ms": 100, "settle_ms": 0,)";

TEST_F(ScenarioTest, StateExpectationsThatHold) {
  auto verdict = Run(std::string("{") + kStateSetup + R"(
    "expect": [
      {"pull": "acme/app#1", "state": "open", "draft": false, "labels": ["ready"],
       "labels_absent": ["wip"], "comments": 1, "reviews": 1, "reviews_at_least": 1},
      {"kind": "review", "who": "bob", "count": 1}
    ]})");
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_TRUE(verdict->ok) << (verdict->failures.empty() ? "" : verdict->failures[0]);
  EXPECT_EQ(verdict->counts["expectations"], 2);
}

TEST_F(ScenarioTest, StateExpectationsThatFailSayWhy) {
  // Each unmet expectation is one line, saying what was found.
  auto verdict = Run(std::string("{") + kStateSetup + R"(
    "expect": [
      {"pull": "acme/app#1", "state": "merged"},
      {"pull": "acme/app#1", "labels": ["wip"], "labels_absent": ["ready"]},
      {"pull": "acme/app#1", "comments": 2, "reviews_at_least": 2},
      {"pull": "acme/app#1", "state": "closed"},
      {"pull": "acme/app#9", "state": "open"}
    ]})");
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_FALSE(verdict->ok);
  EXPECT_EQ(verdict->counts["unmet"], 5);
  EXPECT_EQ(verdict->counts["steps_failed"], 0);
  ASSERT_EQ(verdict->failures.size(), 5u);
  EXPECT_NE(verdict->failures[0].find("got state open"), std::string::npos) << verdict->failures[0];
  EXPECT_NE(verdict->failures[1].find("label wip absent, label ready present"), std::string::npos)
      << verdict->failures[1];
  EXPECT_NE(verdict->failures[2].find("1 comments, 1 reviews"), std::string::npos)
      << verdict->failures[2];
  EXPECT_NE(verdict->failures[4].find("no such pull request"), std::string::npos);
}

TEST_F(ScenarioTest, ClosedWithoutMergingIsClosedNotMerged) {
  ASSERT_TRUE(model_.CreateRepo("acme", "app", 1, {}).ok());
  auto verdict = Run(R"({
    "timeline": [
      {"call": "POST /_sim/repos/acme/app/pulls", "body": {"title": "a"}},
      {"call": "POST /_sim/repos/acme/app/pulls", "body": {"title": "b"}},
      {"call": "POST /_sim/repos/acme/app/pulls/1/close", "body": {"user": "alice"}}
    ],
    "expect": [{"pull": "acme/app#1", "state": "closed"}, {"pull": "acme/app#2", "state": "open"}],
    "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_TRUE(verdict->ok) << (verdict->failures.empty() ? "" : verdict->failures[0]);
  // The same world, checked again: "merged" is not "closed".
  auto merged = Run(R"({"expect": [{"pull": "acme/app#1", "state": "merged"}],
                        "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(merged.ok());
  ASSERT_EQ(merged->failures.size(), 1u);
  EXPECT_NE(merged->failures[0].find("got state closed"), std::string::npos) << merged->failures[0];
}

constexpr char kScenarioApp[] = "installation:1";
constexpr char kInvariants[] = R"({
  "expect": [{"no_stale_effects": true}, {"no_duplicate_effects": true}],
  "timeout_ms": 0, "settle_ms": 0})";

TEST_F(ScenarioTest, InvariantsHoldForACleanHistory) {
  ASSERT_TRUE(model_.CreateRepo("acme", "app", 1, {}).ok());
  auto pr = model_.CreatePull("acme/app", NewPull{});
  ASSERT_TRUE(pr.ok());
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, "").ok());
  const std::string head = model_.GetPull("acme/app", 1)->head_sha;
  ASSERT_TRUE(model_.SubmitReview(kScenarioApp, "acme/app", 1, "APPROVE", head, "", nullptr).ok());
  // A refused call on the old head is neither stale nor a duplicate: nothing happened.
  EXPECT_EQ(model_.Merge(kScenarioApp, "acme/app", 1, pr->head_sha, "merge").status, 409);
  // Close, the author reopens, close again: the second close is a new action.
  ASSERT_TRUE(model_.SetState(kScenarioApp, "acme/app", 1, "closed").ok());
  ASSERT_TRUE(model_.SetState("alice", "acme/app", 1, "open").ok());
  ASSERT_TRUE(model_.SetState(kScenarioApp, "acme/app", 1, "closed").ok());

  auto verdict = Run(R"({
    "expect": [{"no_stale_effects": true}, {"no_duplicate_effects": true},
               {"who_prefix": "installation:", "kind": "close", "count": 2},
               {"who_prefix": "installation:", "status": 200, "count": 3},
               {"who_prefix": "installation:9", "count": 0},
               {"who_prefix": "al", "kind": "reopen", "count": 1}],
    "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_TRUE(verdict->ok) << (verdict->failures.empty() ? "" : verdict->failures[0]);
}

TEST_F(ScenarioTest, StaleAndDuplicateEffectsAreNamed) {
  ASSERT_TRUE(model_.CreateRepo("acme", "app", 1, {}).ok());
  auto pr = model_.CreatePull("acme/app", NewPull{});
  ASSERT_TRUE(pr.ok());
  ASSERT_TRUE(model_.SubmitReview(kScenarioApp, "acme/app", 1, "APPROVE", pr->head_sha, "", nullptr).ok());
  ASSERT_TRUE(model_.SubmitReview(kScenarioApp, "acme/app", 1, "APPROVE", pr->head_sha, "", nullptr).ok());
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, "").ok());
  // GitHub accepts a review of an older commit of the PR: bound to a stale head.
  ASSERT_TRUE(
      model_.SubmitReview(kScenarioApp, "acme/app", 1, "REQUEST_CHANGES", pr->head_sha, "no", nullptr)
          .ok());
  // People's effects are not the App's: never stale, never duplicates.
  ASSERT_TRUE(model_.SubmitReview("bob", "acme/app", 1, "APPROVE", pr->head_sha, "", nullptr).ok());
  ASSERT_TRUE(model_.SubmitReview("bob", "acme/app", 1, "APPROVE", pr->head_sha, "", nullptr).ok());

  auto verdict = Run(kInvariants);
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_FALSE(verdict->ok);
  ASSERT_EQ(verdict->failures.size(), 2u);
  EXPECT_NE(verdict->failures[0].find("REQUEST_CHANGES"), std::string::npos)
      << verdict->failures[0];
  EXPECT_EQ(verdict->failures[0].find("bob"), std::string::npos) << verdict->failures[0];
  EXPECT_NE(verdict->failures[1].find("#3 installation:1 review"), std::string::npos)
      << verdict->failures[1];
  EXPECT_NE(verdict->failures[1].find("#2 installation:1 review"), std::string::npos)
      << verdict->failures[1];
  EXPECT_EQ(verdict->failures[1].find("bob"), std::string::npos) << verdict->failures[1];

  auto app_calls = Run(R"({"expect": [{"who_prefix": "installation:", "count": 0}],
                           "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(app_calls.ok());
  ASSERT_EQ(app_calls->failures.size(), 1u);
  EXPECT_NE(app_calls->failures[0].find("got count 3"), std::string::npos);
}

TEST_F(ScenarioTest, MalformedScenariosAreErrors) {
  EXPECT_FALSE(Run("[]").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"pull": "acme/app"}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"pull": "acme/app#1", "state": "gone"}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"pull": "acme/app#1", "labels": "x"}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"pull": "acme/app#1", "comments": -1}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"pull": "acme/app#1", "kind": "merge"}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"kind": "merge", "cuont": 1}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [3]})").ok());
  EXPECT_FALSE(Run(R"({"timeline": [{"call": "nospace"}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": {}})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"no_stale_effects": false}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"no_duplicate_effects": true, "kind": "merge"}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": [{"who_prefix": "installation:", "cuont": 0}]})").ok());
}

TEST_F(ScenarioTest, SummaryAndCheckRunExpectations) {
  ASSERT_TRUE(model_.CreateRepo("acme", "app", 1, {}).ok());
  auto pr = model_.CreatePull("acme/app", NewPull{});
  ASSERT_TRUE(pr.ok());
  ASSERT_TRUE(model_.CreatePull("acme/app", NewPull{}).ok());
  const std::string old_head = pr->head_sha;
  // The App's summaries (the last counts); someone else's marker and the App's other comments
  // are not its summary.
  ASSERT_TRUE(
      model_.AddComment(kScenarioApp, "acme/app", 1, "<!-- gatehouse:summary -->\nfail", nullptr).ok());
  ASSERT_TRUE(
      model_.AddComment(kScenarioApp, "acme/app", 1, "<!-- gatehouse:summary -->\npass: ci", nullptr).ok());
  ASSERT_TRUE(model_.AddComment(kScenarioApp, "acme/app", 1, "thanks, fail", nullptr).ok());
  ASSERT_TRUE(
      model_.AddComment("mallory", "acme/app", 1, "<!-- gatehouse:summary -->\nfail", nullptr)
          .ok());
  CheckRun run;
  run.name = "gatehouse";
  run.head_sha = old_head;
  run.conclusion = "failure";
  ASSERT_TRUE(model_.UpsertCheckRun(kScenarioApp, "acme/app", run, nullptr).ok());
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, "").ok());
  run.head_sha = model_.GetPull("acme/app", 1)->head_sha;
  run.conclusion = "";
  run.status = "in_progress";
  ASSERT_TRUE(model_.UpsertCheckRun(kScenarioApp, "acme/app", run, nullptr).ok());
  run.conclusion = "success";  // a later run of the same name: the one that counts
  ASSERT_TRUE(model_.UpsertCheckRun(kScenarioApp, "acme/app", run, nullptr).ok());

  auto met = Run(R"({"expect": [
      {"pull": "acme/app#1", "summary_contains": ["pass", "ci"], "summary_not_contains": ["fail"]},
      {"pull": "acme/app#1", "check_run": {"name": "gatehouse", "status": "completed",
                                           "conclusion": "success"}},
      {"pull": "acme/app#1", "check_run": {"name": "gatehouse", "sha": ")" +
                 old_head + R"(", "conclusion": "failure"}}],
    "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(met.ok()) << met.status().ToString();
  EXPECT_TRUE(met->ok) << (met->failures.empty() ? "" : met->failures[0]);

  auto unmet = Run(R"({"expect": [
      {"pull": "acme/app#1", "summary_contains": ["merged"], "summary_not_contains": ["pass"]},
      {"pull": "acme/app#2", "summary_contains": ["pass"]},
      {"pull": "acme/app#1", "check_run": {"name": "gatehouse", "conclusion": "failure"}},
      {"pull": "acme/app#1", "check_run": {"name": "lint"}},
      {"pull": "acme/app#2", "check_run": {"name": "gatehouse", "sha": ")" +
                   old_head + R"(", "status": "queued"}}],
    "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(unmet.ok()) << unmet.status().ToString();
  ASSERT_EQ(unmet->failures.size(), 5u);
  EXPECT_NE(unmet->failures[0].find(R"(summary lacks "merged", summary contains "pass")"),
            std::string::npos)
      << unmet->failures[0];
  EXPECT_NE(unmet->failures[1].find("got no summary comment"), std::string::npos)
      << unmet->failures[1];
  EXPECT_NE(unmet->failures[2].find("status=completed conclusion=success"), std::string::npos)
      << unmet->failures[2];
  EXPECT_NE(
      unmet->failures[3].find("no check run lint on " + model_.GetPull("acme/app", 1)->head_sha),
      std::string::npos)
      << unmet->failures[3];
  EXPECT_NE(unmet->failures[4].find("on " + old_head + " status=completed conclusion=failure"),
            std::string::npos)
      << unmet->failures[4];
}

TEST_F(ScenarioTest, MalformedContentExpectationsAreErrors) {
  const char* bad[] = {
      R"({"expect": [{"pull": "acme/app#1", "summary_contains": "pass"}]})",
      R"({"expect": [{"pull": "acme/app#1", "summary_not_contains": [1]}]})",
      R"({"expect": [{"pull": "acme/app#1", "check_run": "gatehouse"}]})",
      R"({"expect": [{"pull": "acme/app#1", "check_run": {"conclusion": "success"}}]})",
      R"({"expect": [{"pull": "acme/app#1", "check_run": {"name": "g", "sha": "abc"}}]})",
      R"({"expect": [{"pull": "acme/app#1", "check_run": {"name": "g", "conclusion": "ok"}}]})",
      R"({"expect": [{"pull": "acme/app#1", "check_run": {"name": "g", "status": "done"}}]})",
      R"({"expect": [{"pull": "acme/app#1", "check_run": {"name": "g", "head": "x"}}]})",
      R"({"expect": [{"summary_contains": ["pass"]}]})",
  };
  for (const char* text : bad) EXPECT_FALSE(Run(text).ok()) << text;
}

TEST_F(ScenarioTest, DismissingTheAppsReviewMakesTheNextApprovalNew) {
  ASSERT_TRUE(model_.CreateRepo("acme", "app", 1, {}).ok());
  auto pr = model_.CreatePull("acme/app", NewPull{});
  ASSERT_TRUE(pr.ok());
  const std::string sha = pr->head_sha;
  auto approve = [&] {
    ASSERT_TRUE(model_.SubmitReview(kScenarioApp, "acme/app", 1, "APPROVE", sha, "", nullptr).ok());
  };
  approve();
  ASSERT_TRUE(model_.DismissReview("maintainer", "acme/app", 1, {.reviewer = kScenarioApp}, nullptr).ok());
  approve();  // after a dismissal: a new approval
  auto verdict = Run(kInvariants);
  ASSERT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict->ok) << (verdict->failures.empty() ? "" : verdict->failures[0]);

  // A dismissal of someone else's review forgives nothing; a refused one neither.
  ASSERT_TRUE(model_.SubmitReview("bob", "acme/app", 1, "APPROVE", sha, "", nullptr).ok());
  ASSERT_TRUE(model_.DismissReview("maintainer", "acme/app", 1, {.reviewer = "bob"}, nullptr).ok());
  EXPECT_EQ(model_.DismissReview("maintainer", "acme/app", 1, {.reviewer = "bob"}, nullptr).status,
            404);
  approve();
  verdict = Run(kInvariants);
  ASSERT_TRUE(verdict.ok());
  ASSERT_EQ(verdict->failures.size(), 1u);
  EXPECT_NE(verdict->failures[0].find("#4 installation:1 review"), std::string::npos)
      << verdict->failures[0];
  EXPECT_NE(verdict->failures[0].find("#8 installation:1 review"), std::string::npos)
      << verdict->failures[0];
}

TEST_F(ScenarioTest, MalformedFaultsFailTheSetupStep) {
  auto verdict = Run(R"({
    "setup": [{"call": "POST /_sim/repos", "body": {"owner": "acme", "name": "app"}}],
    "faults": {"aimed": [{"path": "*/merge", "fault": "server_error", "count": 0}]},
    "timeout_ms": 0, "settle_ms": 0})");
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_FALSE(verdict->ok);
  EXPECT_EQ(verdict->counts["steps_failed"], 1);
  ASSERT_EQ(verdict->failures.size(), 1u);
  EXPECT_NE(verdict->failures[0].find("PUT /_sim/faults -> 400"), std::string::npos)
      << verdict->failures[0];
  EXPECT_NE(verdict->failures[0].find("aimed[0].count"), std::string::npos) << verdict->failures[0];
}

TEST_F(ScenarioTest, ExampleScenariosAreWellFormed) {
  // Played without a gatehouse to act on them: their expectations need not hold, but every
  // step must be accepted and every expectation must be valid.
  for (const char* name : {"merge_once.json", "late_webhook_force_push.json"}) {
    std::ifstream in(std::string(SIM_SCENARIOS) + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_TRUE(in) << name;
    Model model(clock_, {});
    SimHandler handler(model, {.clock = clock_, .insecure_any_token = true});
    auto verdict =
        RunScenario(text.str(), handler, model, [this](Duration d) { clock_->Advance(d); });
    ASSERT_TRUE(verdict.ok()) << name << ": " << verdict.status().ToString();
    EXPECT_EQ(verdict->counts["steps_failed"], 0)
        << name << ": " << (verdict->failures.empty() ? "" : verdict->failures[0]);
  }
}

}  // namespace
}  // namespace gatehouse::sim
