// Issue 13, point 2: the lost answer. The simulator applies a call and then loses its answer
// (the connection is reset after the effect, or a 502 is answered in its place); the pass that
// made the call leaves its intent open, and the next pass must find the effect on GitHub and
// record it done instead of making the call again. Real passes (act/pr_pass) against a real
// SqliteStore and the in-process simulator on one SimClock, once per fault kind, for every
// action kind gatehouse writes: merge, approval, summary comment (create and edit), label,
// close, check run, update-branch, and — settled from their keys alone — a command's reaction
// and reply. The simulator's effect log is the witness: exactly one accepted effect, nothing
// done twice (sim/invariants.h), and the ledger's intent done.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "act/executor.h"
#include "act/pass_audit.h"
#include "act/pass_reviews.h"
#include "act/pr_pass_test_util.h"
#include "act/settle_intents.h"
#include "sim/invariants.h"

namespace gatehouse::act {
namespace {

using pass_testing::kAppWho;
using pass_testing::kAutoPolicy;
using pass_testing::kFullName;
using pass_testing::kNoMergePolicy;
using pass_testing::kSubject;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Ready PRs are approved, labelled and commented but not merged, so each of those calls can
// be the one whose answer is lost without the merge closing the PR first.

class LostAnswerTest : public pass_testing::PassFixture,
                       public ::testing::WithParamInterface<std::string> {
 protected:
  void SetFaults(const std::string& body) {
    HttpRequest req{
        .method = "PUT", .target = "/_sim/faults", .headers = {}, .body = body, .peer = "test"};
    HttpResponse r = github_.handler().Serve(req);
    ASSERT_EQ(r.status, 200) << r.body;
  }
  // The next call `method` `path` (a glob) takes effect, and its answer is lost.
  void LoseAnswerOf(const std::string& method, const std::string& path) {
    ASSERT_NO_FATAL_FAILURE(SetFaults(R"({"aimed":[{"method":")" + method + R"(","path":")" + path +
                                      R"(","fault":")" + GetParam() + R"("}]})"));
  }
  bool FaultTaken() {
    HttpRequest req{
        .method = "GET", .target = "/_sim/faults", .headers = {}, .body = "", .peer = "test"};
    return boost::json::parse(github_.handler().Serve(req).body).at("aimed").as_array().empty();
  }
  PassOutcome Pass() {
    clock_->Advance(milliseconds(100));
    return RunPass(PassConfig{});
  }

  // The App's accepted (2xx) effects of `kind`.
  size_t Accepted(const std::string& kind) {
    size_t n = 0;
    for (const sim::Effect& e : AppEffects(kind)) n += e.status >= 200 && e.status < 300;
    return n;
  }
  std::vector<ActionRecord> Rows(const std::string& kind) {
    auto rows = store_->ledger().ListActions(kSubject);
    EXPECT_TRUE(rows.ok());
    std::vector<ActionRecord> out;
    if (!rows.ok()) return out;
    for (const ActionRecord& r : *rows) {
      if (r.key.kind == kind) out.push_back(r);
    }
    return out;
  }
  // The pass whose answer was lost left `kind`'s intent open, its effect applied.
  void ExpectOpenWithEffect(const PassOutcome& first, const std::string& kind,
                            const std::string& effect) {
    EXPECT_FALSE(first.ok) << "a lost answer is transient";
    EXPECT_TRUE(FaultTaken()) << "the fault was never reached";
    EXPECT_EQ(Accepted(effect), 1u) << "the call took effect";
    bool open = false;
    for (const ActionRecord& r : Rows(kind)) open |= r.state == ActionState::kIntent;
    EXPECT_TRUE(open) << "the lost answer leaves the intent open";
  }
  // After the next passes: one effect, every row of `kind` done, one of them by
  // reconciliation, and nothing done twice on the PR.
  void ExpectOneEffectDone(const std::string& kind, const std::string& effect) {
    EXPECT_EQ(Accepted(effect), 1u) << "the call was repeated";
    const std::vector<ActionRecord> rows = Rows(kind);
    ASSERT_FALSE(rows.empty());
    bool reconciled = false;
    for (const ActionRecord& r : rows) {
      EXPECT_EQ(r.state, ActionState::kDone) << r.key.detail << ": " << r.result;
      reconciled |= r.result.find("reconciled") != std::string::npos;
    }
    EXPECT_TRUE(reconciled) << "no row was found on GitHub";
    const std::vector<sim::Effect> log = github_.model().Effects();
    EXPECT_EQ(sim::DuplicateEffects(log), std::vector<std::string>{});
    EXPECT_EQ(sim::StaleEffects(log), std::vector<std::string>{});
    EXPECT_EQ(sim::ExtraSummaryComments(github_.model()), std::vector<std::string>{});
  }

  // The whole story for a call the first pass makes: its answer lost, then two more passes.
  void LoseThenSettle(const std::string& method, const std::string& path, const std::string& kind,
                      const std::string& effect) {
    ASSERT_NO_FATAL_FAILURE(LoseAnswerOf(method, path));
    ASSERT_NO_FATAL_FAILURE(ExpectOpenWithEffect(Pass(), kind, effect));
    PassOutcome second = Pass();
    EXPECT_TRUE(second.ok) << second.error;
    PassOutcome third = Pass();  // nothing left to do: still nothing done twice
    EXPECT_TRUE(third.ok) << third.error;
    ExpectOneEffectDone(kind, effect);
  }

  sim::CheckRun Ci(const std::string& conclusion) {
    sim::CheckRun run;
    run.name = "ci";
    run.head_sha = github_.model().GetPull(kFullName, 1)->head_sha;
    run.status = "completed";
    run.conclusion = conclusion;
    return run;
  }
};

TEST_P(LostAnswerTest, Merge) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  LoseThenSettle("PUT", "/repos/acme/app/pulls/1/merge", "merge", "merge");
  EXPECT_TRUE(github_.model().GetPull(kFullName, 1)->merged);
}

TEST_P(LostAnswerTest, Approval) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  LoseThenSettle("POST", "/repos/acme/app/pulls/1/reviews", "approve", "review");
}

TEST_P(LostAnswerTest, SummaryCommentCreated) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  LoseThenSettle("POST", "/repos/acme/app/issues/1/comments", "comment", "comment");
  EXPECT_EQ(github_.model().CommentsFor(kFullName, 1).size(), 1u);
}

TEST_P(LostAnswerTest, SummaryCommentEdited) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  ASSERT_TRUE(Pass().ok);
  ASSERT_EQ(Accepted("comment"), 1u);
  // CI goes red on the same head: the summary is edited to say so.
  ASSERT_TRUE(github_.model().UpsertCheckRun("ci-app", kFullName, Ci("failure"), nullptr).ok());
  LoseThenSettle("PATCH", "/repos/acme/app/issues/comments/*", "comment", "comment_edit");
  EXPECT_EQ(Accepted("comment"), 1u);
}

TEST_P(LostAnswerTest, Label) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  LoseThenSettle("POST", "/repos/acme/app/issues/1/labels", "label", "label_add");
  EXPECT_EQ(github_.model().GetPull(kFullName, 1)->labels,
            std::vector<std::string>{"ready-to-merge"});
}

TEST_P(LostAnswerTest, CheckRun) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  LoseThenSettle("POST", "/repos/acme/app/check-runs", "check_run", "check_run");
}

TEST_P(LostAnswerTest, Close) {
  ReadyPull({{".github/gatehouse.yml", std::string(kAutoPolicy) + "  close_grace: 1h\n"}});
  ASSERT_TRUE(github_.model().UpsertCheckRun("ci-app", kFullName, Ci("failure"), nullptr).ok());
  ASSERT_TRUE(Pass().ok);  // labels pending-closure and schedules the close
  clock_->Advance(hours(1));
  LoseThenSettle("PATCH", "/repos/acme/app/pulls/1", "close", "close");
  EXPECT_EQ(github_.model().GetPull(kFullName, 1)->state, "closed");
}

// The pending-closure label's answer is lost, and the author turns the PR to draft before the
// next pass: that pass sees the label as gatehouse's (its open intent reconciled before
// deciding), so the draft is a draft-dodge and the PR is closed anyway, not unlabelled.
TEST_P(LostAnswerTest, ALostLabelAnswerStillMakesTheDraftADraftDodge) {
  ReadyPull({{".github/gatehouse.yml", std::string(kAutoPolicy) + "  close_grace: 1h\n"}});
  ASSERT_TRUE(github_.model().UpsertCheckRun("ci-app", kFullName, Ci("failure"), nullptr).ok());
  ASSERT_NO_FATAL_FAILURE(LoseAnswerOf("POST", "/repos/acme/app/issues/1/labels"));
  ASSERT_NO_FATAL_FAILURE(ExpectOpenWithEffect(Pass(), "label", "label_add"));
  ASSERT_TRUE(github_.model().SetDraft("alice", kFullName, 1, true).ok());
  PassOutcome next = Pass();
  EXPECT_TRUE(next.ok) << next.error;
  EXPECT_EQ(github_.model().GetPull(kFullName, 1)->state, "closed");
  ASSERT_EQ(Rows("draft_dodge_close").size(), 1u);
  EXPECT_EQ(Rows("draft_dodge_close")[0].state, ActionState::kDone);
  EXPECT_TRUE(Rows("unlabel").empty()) << "the label was taken off instead";
  ExpectOneEffectDone("label", "label_add");
}

TEST_P(LostAnswerTest, UpdateBranch) {
  const std::string policy = R"(version: 1
rules:
  required_checks:
    checks: [ci]
  approvals:
    min: 1
  mergeable:
    allow_behind: false
actions:
  autonomy: auto
  update_branch: true
)";
  ReadyPull({{".github/gatehouse.yml", policy}});
  ASSERT_TRUE(github_.model().MoveBase(kFullName, 1, /*conflicted=*/false).ok());
  LoseThenSettle("PUT", "/repos/acme/app/pulls/1/update-branch", "update_branch", "update_branch");
}

// A command comment's reaction and reply, whose answers are lost, settled by a later pass that
// no longer plans them (it sees them as answered): the key alone must find them on GitHub.
TEST_P(LostAnswerTest, ReactionAndReplySettledFromTheirKeys) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  sim::Comment command;
  ASSERT_TRUE(github_.model()
                  .AddComment("maintainer", kFullName, 1, "/gatehouse frobnicate", &command)
                  .ok());
  const std::string id = std::to_string(command.id);
  Signal s{kSubject, "pushed", {}};
  ASSERT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kRecoverable).ok());
  auto leases = store_->work().Claim("test", 1, hours(1), clock_->Now());
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  const int64_t fence = (*leases)[0].fence;
  const Target target{kSubject, RepoRef{"acme", "app"}, 1,
                      CallContext{pass_testing::kInstallation, false}};
  auto make = [&](decide::ActionKind kind, const std::string& detail) {
    decide::PlannedAction a;
    a.kind = kind;
    a.head_sha = head_;
    a.detail = detail;
    a.why = "test";
    return a;
  };
  decide::PlannedAction react = make(decide::ActionKind::kReaction, "comment:" + id);
  react.comment_id = command.id;
  react.reaction = "confused";
  decide::PlannedAction reply = make(decide::ActionKind::kComment, "reply:" + id);
  reply.body = "gatehouse has no command `frobnicate`.\n\n" + ReplyMarker(command.id);
  ExecutorOptions options;
  for (const decide::PlannedAction& a : {react, reply}) {
    ASSERT_NO_FATAL_FAILURE(LoseAnswerOf("POST", a.kind == decide::ActionKind::kReaction
                                                     ? "*/reactions"
                                                     : "/repos/acme/app/issues/1/comments"));
    decide::Plan plan;
    plan.actions = {a};
    ExecResult r = Execute(*store_, github_.client(), *clock_, target, fence, plan, options);
    ASSERT_EQ(r.actions.size(), 1u);
    EXPECT_EQ(r.actions[0].result, ActionReport::Result::kUnknown) << r.actions[0].detail;
  }
  EXPECT_EQ(Accepted("reaction"), 1u);
  EXPECT_EQ(Accepted("comment"), 1u);
  auto rows = store_->ledger().ListActions(kSubject);
  ASSERT_TRUE(rows.ok());
  std::vector<ActionKey> open;
  for (const ActionRecord& r : *rows) {
    if (r.state == ActionState::kIntent) open.push_back(r.key);
  }
  ASSERT_EQ(open.size(), 2u);
  PassAudit audit(*store_, *clock_, kSubject, fence);
  EXPECT_FALSE(SettleOpenIntents(*store_, github_.client(), *clock_, target, fence, open,
                                 decide::Plan{}, options, audit)
                   .has_value());
  audit.Flush();
  EXPECT_EQ(Accepted("reaction"), 1u);
  EXPECT_EQ(Accepted("comment"), 1u);
  for (const std::string kind : {"reaction", "comment"}) {
    const std::vector<ActionRecord> settled = Rows(kind);
    ASSERT_EQ(settled.size(), 1u);
    EXPECT_EQ(settled[0].state, ActionState::kDone) << kind << ": " << settled[0].result;
  }
}

INSTANTIATE_TEST_SUITE_P(Faults, LostAnswerTest,
                         ::testing::Values("lost_answer_reset", "lost_answer_502"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace gatehouse::act
