#include "decide/planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "decide/digest.h"

namespace gatehouse::decide {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const Time kT0 = FromMicros(1'800'000'000'000'000);
constexpr char kHead[] = "head1";

PrSnapshot OpenPr() {
  PrSnapshot pr;
  pr.number = 7;
  pr.author = "alice";
  pr.author_role = AuthorRole::kContributor;
  pr.state = "open";
  pr.head_sha = kHead;
  pr.base_sha = "base1";
  pr.mergeable = true;
  pr.mergeable_state = "clean";
  pr.now = kT0;
  return pr;
}

GateVerdict Pass() { return GateVerdict{}; }

GateVerdict Fail(std::string rule = "required_checks", std::string reason = "build failed") {
  GateVerdict v;
  v.verdict = Verdict::kFail;
  v.score = 40;
  v.blockers = {{std::move(rule), std::move(reason)}};
  return v;
}

GateVerdict Exempt(GateVerdict v) {
  v.close_exempt = true;
  v.close_exempt_reason = "author alice is a maintainer (MEMBER)";
  return v;
}

PlannerOptions Auto() {
  PlannerOptions o;
  o.autonomy = Autonomy::kAuto;
  return o;
}

Plan PlanFor(const PrSnapshot& pr, const GateVerdict& v, const PlannerInput& facts = {},
             const PlannerOptions& o = Auto()) {
  return PlanActions(Policy{}, pr, v, facts, o);
}

std::vector<std::string> Kinds(const std::vector<PlannedAction>& actions) {
  std::vector<std::string> out;
  out.reserve(actions.size());
  for (const PlannedAction& a : actions) out.emplace_back(ActionKindName(a.kind));
  return out;
}

std::optional<PlannedAction> Find(const Plan& plan, ActionKind kind, std::string_view detail = {}) {
  for (const PlannedAction& a : plan.actions) {
    if (a.kind == kind && (detail.empty() || a.detail == detail)) return a;
  }
  return std::nullopt;
}

// The reason `kind` was skipped, or "(not skipped)".
std::string SkipReason(const Plan& plan, ActionKind kind, std::string_view detail = {}) {
  for (const SkippedAction& s : plan.skipped) {
    if (s.action.kind == kind && (detail.empty() || s.action.detail == detail)) return s.reason;
  }
  return "(not skipped)";
}

TEST(PlannerTest, CheckRunAlwaysPlannedOnHead) {
  Plan plan = PlanFor(OpenPr(), Fail());
  const auto check = Find(plan, ActionKind::kCheckRun);
  ASSERT_NE(check, std::nullopt);
  EXPECT_EQ(check->head_sha, kHead);
  EXPECT_EQ(check->check_status, "completed");
  EXPECT_EQ(check->check_conclusion, "failure");
  EXPECT_THAT(check->check_title, HasSubstr("fail"));
  EXPECT_THAT(check->check_summary, HasSubstr("build failed"));
  EXPECT_EQ(plan.actions.front().kind, ActionKind::kCheckRun);
}

TEST(PlannerTest, CheckRunConclusionPerVerdict) {
  GateVerdict pending;
  pending.verdict = Verdict::kPending;
  Plan pending_plan = PlanFor(OpenPr(), pending);
  const auto p = Find(pending_plan, ActionKind::kCheckRun);
  ASSERT_NE(p, std::nullopt);
  EXPECT_EQ(p->check_status, "in_progress");
  EXPECT_EQ(p->check_conclusion, "");

  GateVerdict neutral;
  neutral.verdict = Verdict::kNeutral;
  Plan neutral_plan = PlanFor(OpenPr(), neutral);
  EXPECT_EQ(Find(neutral_plan, ActionKind::kCheckRun)->check_conclusion, "neutral");
  Plan pass_plan = PlanFor(OpenPr(), Pass());
  EXPECT_EQ(Find(pass_plan, ActionKind::kCheckRun)->check_conclusion, "success");
}

TEST(PlannerTest, EveryActionIsBoundToTheHead) {
  PrSnapshot pr = OpenPr();
  pr.mergeable_state = "behind";
  pr.labels = {"pending-closure"};
  PlannerOptions o = Auto();
  o.update_branch = true;
  Plan plan = PlanFor(pr, Pass(), {}, o);
  ASSERT_GE(plan.actions.size(), 5u);
  for (const PlannedAction& a : plan.actions) EXPECT_EQ(a.head_sha, kHead) << a.Key();
  for (const SkippedAction& s : plan.skipped) EXPECT_EQ(s.action.head_sha, kHead);
}

TEST(PlannerTest, SummaryCommentCreatedWithMarker) {
  Plan plan = PlanFor(OpenPr(), Fail());
  const auto c = Find(plan, ActionKind::kComment);
  ASSERT_NE(c, std::nullopt);
  EXPECT_THAT(c->body, StartsWith("<!-- gatehouse:summary -->"));
  EXPECT_FALSE(c->comment_id.has_value());
  EXPECT_EQ(c->detail, "summary:new");
}

TEST(PlannerTest, SummaryCommentEditedInPlaceWhenChanged) {
  PlannerInput facts;
  facts.summary_comment_id = 42;
  facts.previous_summary = "<!-- gatehouse:summary -->\nold";
  Plan plan = PlanFor(OpenPr(), Fail(), facts);
  const auto c = Find(plan, ActionKind::kComment);
  ASSERT_NE(c, std::nullopt);
  EXPECT_EQ(c->comment_id, 42);
  EXPECT_THAT(c->detail, StartsWith("summary:42:"));
}

TEST(PlannerTest, SummaryCommentSkippedWhenUnchanged) {
  PlannerInput facts;
  facts.summary_comment_id = 42;
  facts.previous_summary = RenderSummaryComment(OpenPr(), Fail());
  Plan plan = PlanFor(OpenPr(), Fail(), facts);
  EXPECT_EQ(Find(plan, ActionKind::kComment), std::nullopt);
  EXPECT_EQ(SkipReason(plan, ActionKind::kComment), "already in that state");
}

TEST(PlannerTest, SummaryCommentKnownFromTheLedgerComparesDigests) {
  PlannerInput facts;
  facts.summary_comment_id = 42;
  facts.previous_summary_digest = StableDigest(RenderSummaryComment(OpenPr(), Fail()));
  Plan same = PlanFor(OpenPr(), Fail(), facts);
  EXPECT_EQ(Find(same, ActionKind::kComment), std::nullopt);
  EXPECT_EQ(SkipReason(same, ActionKind::kComment), "already in that state");

  facts.previous_summary_digest = StableDigest("<!-- gatehouse:summary -->\nold");
  Plan changed = PlanFor(OpenPr(), Fail(), facts);
  const auto c = Find(changed, ActionKind::kComment);
  ASSERT_NE(c, std::nullopt);
  EXPECT_EQ(c->comment_id, 42);
  EXPECT_EQ(c->detail, "summary:42:" + StableDigest(c->body));
}

// The comment changes when there is something to act on; the check run carries the rest.
TEST(PlannerTest, SummaryCommentNamesWaitingRulesAndKeepsBlockerReasons) {
  GateVerdict waiting;
  waiting.verdict = Verdict::kPending;
  waiting.score = 60;
  waiting.waiting = {{"required_checks", "build is in progress"},
                     {"required_checks", "test is queued"},
                     {"approvals", "1 of 2 approvals"}};
  waiting.warnings = {{"size", "412 lines changed"}};
  const std::string body = RenderSummaryComment(OpenPr(), waiting);
  EXPECT_THAT(body, StartsWith("<!-- gatehouse:summary -->\n### gatehouse: pending\n"));
  EXPECT_THAT(body, HasSubstr("Waiting on `required_checks`, `approvals`."));
  EXPECT_THAT(body, HasSubstr("Warnings from `size`."));
  EXPECT_THAT(body, Not(HasSubstr("in progress")));
  EXPECT_THAT(body, Not(HasSubstr("60")));
  EXPECT_THAT(RenderSummary(OpenPr(), waiting), HasSubstr("build is in progress"));

  // One check finishing, the score moving: the same comment; a new blocker: a new one.
  GateVerdict later = waiting;
  later.score = 75;
  later.waiting.erase(later.waiting.begin());
  EXPECT_EQ(RenderSummaryComment(OpenPr(), later), body);
  EXPECT_NE(RenderSummary(OpenPr(), later), RenderSummary(OpenPr(), waiting));
  GateVerdict failed = Fail("required_checks", "test failed");
  EXPECT_THAT(RenderSummaryComment(OpenPr(), failed),
              HasSubstr("- `required_checks`: test failed"));
}

// report: verdicts — the check run changes with the verdict, the rules still waiting and the
// blockers, not with each check's progress or the score; progress (the default) tells both.
TEST(PlannerTest, VerdictsReportKeepsTheCheckRunUnchangedWhileOnlyProgressMoves) {
  GateVerdict waiting;
  waiting.verdict = Verdict::kPending;
  waiting.score = 60;
  waiting.waiting = {{"required_checks", "build is in progress"},
                     {"required_checks", "test is queued"}};
  GateVerdict later = waiting;  // one check finished, the score moved
  later.score = 75;
  later.waiting.erase(later.waiting.begin());

  PlannerOptions verdicts = Auto();
  verdicts.report = Report::kVerdicts;
  // The planned check run write, if any.
  auto check_run = [](const Plan& plan) -> std::optional<PlannedAction> {
    for (const PlannedAction& a : plan.actions)
      if (a.kind == ActionKind::kCheckRun) return a;
    return std::nullopt;
  };
  const auto before = check_run(PlanFor(OpenPr(), waiting, {}, verdicts));
  const auto after = check_run(PlanFor(OpenPr(), later, {}, verdicts));
  ASSERT_TRUE(before.has_value());
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(before->detail, after->detail) << "the same write: the ledger key does not move";
  EXPECT_EQ(before->check_title, "gatehouse: pending");
  EXPECT_THAT(before->check_summary, HasSubstr("Waiting on `required_checks`."));
  EXPECT_THAT(before->check_summary, Not(HasSubstr("in progress")));
  // Already on GitHub: the next pass skips it.
  PlannerInput known;
  known.check_run_detail = before->detail;
  EXPECT_FALSE(check_run(PlanFor(OpenPr(), later, known, verdicts)).has_value());

  // A new blocker is a new verdict: a new write.
  const auto failed =
      check_run(PlanFor(OpenPr(), Fail("required_checks", "test failed"), {}, verdicts));
  ASSERT_TRUE(failed.has_value());
  EXPECT_NE(failed->detail, before->detail);
  EXPECT_THAT(failed->check_summary, HasSubstr("- `required_checks`: test failed"));

  // progress: every step is a new write, the score in the title.
  const auto p1 = check_run(PlanFor(OpenPr(), waiting, {}, Auto()));
  const auto p2 = check_run(PlanFor(OpenPr(), later, {}, Auto()));
  ASSERT_TRUE(p1.has_value() && p2.has_value());
  EXPECT_NE(p1->detail, p2->detail);
  EXPECT_EQ(p1->check_title, "gatehouse: pending (score 60)");
}

TEST(PlannerTest, ReadyToMergeLabelOnPassAndStaleLabelsRemoved) {
  PrSnapshot pr = OpenPr();
  pr.labels = {"Pending-Closure", "needs-human-review", "unrelated"};
  Plan plan = PlanFor(pr, Pass());
  const auto add = Find(plan, ActionKind::kLabel, "ready-to-merge");
  ASSERT_NE(add, std::nullopt);
  EXPECT_EQ(add->label, "ready-to-merge");
  EXPECT_NE(Find(plan, ActionKind::kUnlabel, "pending-closure"), std::nullopt);
  EXPECT_NE(Find(plan, ActionKind::kUnlabel, "needs-human-review"), std::nullopt);
  EXPECT_EQ(Find(plan, ActionKind::kUnlabel, "unrelated"), std::nullopt);
}

TEST(PlannerTest, LabelAlreadyPresentIsSkipped) {
  PrSnapshot pr = OpenPr();
  pr.labels = {"ready-to-merge"};
  Plan plan = PlanFor(pr, Pass());
  EXPECT_EQ(Find(plan, ActionKind::kLabel, "ready-to-merge"), std::nullopt);
  EXPECT_EQ(SkipReason(plan, ActionKind::kLabel, "ready-to-merge"), "already in that state");
}

TEST(PlannerTest, ChangesRequestedLabelFollowsLatestReview) {
  PrSnapshot pr = OpenPr();
  pr.reviews = {{"bob", "CHANGES_REQUESTED", kHead, kT0}};
  Plan requested = PlanFor(pr, Fail("approvals"));
  EXPECT_NE(Find(requested, ActionKind::kLabel, "changes-requested"), std::nullopt);

  pr.reviews.push_back({"bob", "APPROVED", kHead, kT0 + minutes(1)});
  pr.labels = {"changes-requested"};
  Plan plan = PlanFor(pr, Pass());
  EXPECT_NE(Find(plan, ActionKind::kUnlabel, "changes-requested"), std::nullopt);
}

TEST(PlannerTest, NeedsHumanReviewForExemptFailureAndProtectedPaths) {
  Plan exempt = PlanFor(OpenPr(), Exempt(Fail()));
  EXPECT_NE(Find(exempt, ActionKind::kLabel, "needs-human-review"), std::nullopt);
  EXPECT_EQ(Find(exempt, ActionKind::kLabel, "pending-closure"), std::nullopt);

  Plan paths = PlanFor(OpenPr(), Fail("protected_paths", "touches .github/**"));
  EXPECT_NE(Find(paths, ActionKind::kLabel, "needs-human-review"), std::nullopt);
}

TEST(PlannerTest, ApproveAndMergeOnPass) {
  Plan plan = PlanFor(OpenPr(), Pass());
  const auto approve = Find(plan, ActionKind::kApprove);
  const auto merge = Find(plan, ActionKind::kMerge);
  ASSERT_NE(approve, std::nullopt);
  ASSERT_NE(merge, std::nullopt);
  EXPECT_EQ(merge->merge_method, MergeMethod::kSquash);
  EXPECT_EQ(merge->detail, "squash");
  EXPECT_EQ(plan.actions.back().kind, ActionKind::kMerge);  // approve first, merge last
}

TEST(PlannerTest, ConfiguredMergeMethod) {
  PlannerOptions o = Auto();
  o.merge_method = MergeMethod::kRebase;
  Plan plan = PlanFor(OpenPr(), Pass(), {}, o);
  EXPECT_EQ(Find(plan, ActionKind::kMerge)->merge_method, MergeMethod::kRebase);
}

TEST(PlannerTest, NoSecondApprovalOnSameHead) {
  PrSnapshot pr = OpenPr();
  pr.reviews = {{"gatehouse[bot]", "APPROVED", kHead, kT0}};
  Plan plan = PlanFor(pr, Pass());
  EXPECT_EQ(Find(plan, ActionKind::kApprove), std::nullopt);
  EXPECT_EQ(SkipReason(plan, ActionKind::kApprove), "already in that state");

  pr.reviews = {{"gatehouse[bot]", "APPROVED", "oldhead", kT0}};
  Plan old_head = PlanFor(pr, Pass());
  EXPECT_NE(Find(old_head, ActionKind::kApprove), std::nullopt);
}

TEST(PlannerTest, NoMergeWhenNotMergeable) {
  PrSnapshot pr = OpenPr();
  pr.mergeable = false;
  Plan plan = PlanFor(pr, Pass());
  EXPECT_EQ(Find(plan, ActionKind::kMerge), std::nullopt);
  EXPECT_EQ(SkipReason(plan, ActionKind::kMerge), "not mergeable");

  pr.mergeable.reset();
  Plan unknown = PlanFor(pr, Pass());
  EXPECT_EQ(SkipReason(unknown, ActionKind::kMerge), "mergeability not computed yet");
}

TEST(PlannerTest, NoApproveOrMergeUnlessPass) {
  GateVerdict pending;
  pending.verdict = Verdict::kPending;
  for (const GateVerdict& v : {Fail(), pending}) {
    Plan plan = PlanFor(OpenPr(), v);
    EXPECT_EQ(Find(plan, ActionKind::kApprove), std::nullopt);
    EXPECT_EQ(Find(plan, ActionKind::kMerge), std::nullopt);
  }
}

TEST(PlannerTest, CloseCandidateGetsLabelFirstNotClosed) {
  Plan plan = PlanFor(OpenPr(), Fail());
  EXPECT_NE(Find(plan, ActionKind::kLabel, "pending-closure"), std::nullopt);
  EXPECT_EQ(Find(plan, ActionKind::kClose), std::nullopt);
  EXPECT_EQ(SkipReason(plan, ActionKind::kClose), "pending-closure label not applied yet");
}

TEST(PlannerTest, CloseOnlyAfterGracePeriod) {
  PrSnapshot pr = OpenPr();
  pr.labels = {"pending-closure"};
  PlannerInput facts;
  facts.pending_closure_since = kT0 - hours(71);
  Plan early = PlanFor(pr, Fail(), facts);
  EXPECT_EQ(Find(early, ActionKind::kClose), std::nullopt);
  EXPECT_EQ(SkipReason(early, ActionKind::kClose), "grace period not over");

  facts.pending_closure_since = kT0 - hours(72);
  Plan due = PlanFor(pr, Fail(), facts);
  ASSERT_NE(Find(due, ActionKind::kClose), std::nullopt);
  EXPECT_EQ(due.actions.back().kind, ActionKind::kClose);

  // `now` from the input overrides the snapshot's.
  facts.pending_closure_since = kT0;
  facts.now = kT0 + hours(80);
  Plan late = PlanFor(pr, Fail(), facts);
  EXPECT_NE(Find(late, ActionKind::kClose), std::nullopt);
}

TEST(PlannerTest, CloseGraceIsConfigurable) {
  PrSnapshot pr = OpenPr();
  PlannerInput facts;
  facts.pending_closure_since = kT0 - hours(2);
  PlannerOptions o = Auto();
  o.close_grace = hours(1);
  Plan plan = PlanFor(pr, Fail(), facts, o);
  EXPECT_NE(Find(plan, ActionKind::kClose), std::nullopt);
}

TEST(PlannerTest, NeverCloseExemptAuthors) {
  PlannerInput facts;
  facts.pending_closure_since = kT0 - hours(100);
  Plan plan = PlanFor(OpenPr(), Exempt(Fail()), facts);
  EXPECT_EQ(Find(plan, ActionKind::kClose), std::nullopt);
  EXPECT_THAT(SkipReason(plan, ActionKind::kClose), HasSubstr("maintainer"));
}

TEST(PlannerTest, DraftDodgeClose) {
  PrSnapshot pr = OpenPr();
  pr.draft = true;
  pr.labels = {"pending-closure"};
  PlannerInput facts;
  facts.drafted_while_pending_closure = true;
  facts.pending_closure_since = kT0 - minutes(5);
  GateVerdict neutral;
  neutral.verdict = Verdict::kNeutral;
  Plan plan = PlanFor(pr, neutral, facts);
  EXPECT_NE(Find(plan, ActionKind::kDraftDodgeClose), std::nullopt);
  EXPECT_EQ(Find(plan, ActionKind::kUnlabel, "pending-closure"), std::nullopt);  // label stays
  EXPECT_EQ(Find(plan, ActionKind::kClose), std::nullopt);

  // A draft that was not pending closure is left alone.
  facts.drafted_while_pending_closure = false;
  pr.labels.clear();
  Plan plain = PlanFor(pr, neutral, facts);
  EXPECT_EQ(Find(plain, ActionKind::kDraftDodgeClose), std::nullopt);
  EXPECT_EQ(Find(plain, ActionKind::kClose), std::nullopt);
}

TEST(PlannerTest, ReopenRecloseWhenReopenerLacksTheRight) {
  PlannerInput facts;
  facts.closed_by_gatehouse_at = kT0 - hours(2);
  facts.last_reopen = ReopenFact{"alice", AuthorRole::kContributor, kT0 - hours(1)};
  Plan plan = PlanFor(OpenPr(), Fail(), facts);
  const auto a = Find(plan, ActionKind::kReopenReclose);
  ASSERT_NE(a, std::nullopt);
  EXPECT_EQ(a->detail, std::to_string(ToMicros(kT0 - hours(1))));
  EXPECT_EQ(Find(plan, ActionKind::kClose), std::nullopt);  // one close per pass
}

TEST(PlannerTest, NoMergeOfAPrThatIsClosedAgain) {
  PlannerInput facts;
  facts.closed_by_gatehouse_at = kT0 - hours(2);
  facts.last_reopen = ReopenFact{"alice", AuthorRole::kNone, kT0 - hours(1)};
  Plan plan = PlanFor(OpenPr(), Pass(), facts);
  EXPECT_EQ(Kinds(plan.actions),
            (std::vector<std::string>{"check_run", "comment", "reopen_reclose"}));
}

TEST(PlannerTest, NoRecloseWhenMaintainerReopened) {
  PlannerInput facts;
  facts.closed_by_gatehouse_at = kT0 - hours(2);
  facts.last_reopen = ReopenFact{"maint", AuthorRole::kMember, kT0 - hours(1)};
  Plan plan = PlanFor(OpenPr(), Fail(), facts);
  EXPECT_EQ(Find(plan, ActionKind::kReopenReclose), std::nullopt);
  EXPECT_EQ(SkipReason(plan, ActionKind::kReopenReclose), "reopened by a maintainer");

  // Maintainers are whoever the policy says.
  Policy strict;
  strict.authors.maintainer_roles = {AuthorRole::kOwner};
  Plan strict_plan = PlanActions(strict, OpenPr(), Fail(), facts, Auto());
  EXPECT_NE(Find(strict_plan, ActionKind::kReopenReclose), std::nullopt);
}

TEST(PlannerTest, NoRecloseForAReopenBeforeOurClose) {
  PlannerInput facts;
  facts.closed_by_gatehouse_at = kT0 - hours(1);
  facts.last_reopen = ReopenFact{"alice", AuthorRole::kNone, kT0 - hours(2)};
  Plan plan = PlanFor(OpenPr(), Fail(), facts);
  EXPECT_EQ(Find(plan, ActionKind::kReopenReclose), std::nullopt);
}

TEST(PlannerTest, UpdateBranchWhenBehindAndEnabled) {
  PrSnapshot pr = OpenPr();
  pr.mergeable_state = "behind";
  Plan off = PlanFor(pr, Pass());
  EXPECT_EQ(Find(off, ActionKind::kUpdateBranch), std::nullopt);
  EXPECT_EQ(SkipReason(off, ActionKind::kUpdateBranch), "update-branch disabled");

  PlannerOptions o = Auto();
  o.update_branch = true;
  const Plan on = PlanFor(pr, Pass(), {}, o);
  const auto a = Find(on, ActionKind::kUpdateBranch);
  ASSERT_NE(a, std::nullopt);
  EXPECT_EQ(a->expected_base_sha, "base1");
  EXPECT_EQ(a->detail, "base1");
}

TEST(PlannerTest, ClosedOrMergedPrGetsOnlyTheCheckRun) {
  PrSnapshot pr = OpenPr();
  pr.state = "closed";
  pr.labels = {"pending-closure"};
  pr.mergeable_state = "behind";
  PlannerInput facts;
  facts.pending_closure_since = kT0 - hours(100);
  facts.closed_by_gatehouse_at = kT0 - hours(2);
  facts.last_reopen = ReopenFact{"alice", AuthorRole::kNone, kT0 - hours(1)};
  PlannerOptions o = Auto();
  o.update_branch = true;
  for (const GateVerdict& v : {Pass(), Fail()}) {
    Plan plan = PlanFor(pr, v, facts, o);
    EXPECT_EQ(Kinds(plan.actions), std::vector<std::string>{"check_run"});
    EXPECT_TRUE(plan.skipped.empty());
  }
}

// A merged PR's `gatehouse` check stays the success that merged it; an in-progress one is
// completed, so nothing shows "in progress" forever.
TEST(PlannerTest, AClosedPrKeepsItsCompletedCheckRun) {
  PrSnapshot pr = OpenPr();
  pr.state = "closed";
  GateVerdict closed;
  closed.verdict = Verdict::kNeutral;
  PlannerInput facts;
  facts.check_run_detail = "gatehouse:completed:success:0123456789abcdef";
  Plan kept = PlanFor(pr, closed, facts);
  EXPECT_TRUE(kept.actions.empty());
  EXPECT_EQ(SkipReason(kept, ActionKind::kCheckRun), "closed: its last verdict stands");

  facts.check_run_detail = "gatehouse:in_progress::0123456789abcdef";
  const auto completed = Find(PlanFor(pr, closed, facts), ActionKind::kCheckRun);
  ASSERT_NE(completed, std::nullopt);
  EXPECT_EQ(completed->check_conclusion, "neutral");
  // Open, the same completed run is rewritten when the verdict changes.
  pr.state = "open";
  facts.check_run_detail = "gatehouse:completed:success:0123456789abcdef";
  EXPECT_NE(Find(PlanFor(pr, Fail(), facts), ActionKind::kCheckRun), std::nullopt);
}

TEST(PlannerTest, DefaultAutonomyIsObserve) {
  Plan plan = PlanActions(Policy{}, OpenPr(), Pass(), {});
  EXPECT_TRUE(plan.actions.empty());
  ASSERT_FALSE(plan.skipped.empty());
  for (const SkippedAction& s : plan.skipped) {
    if (s.reason == "already in that state") continue;
    EXPECT_EQ(s.reason, "observe") << s.action.Key();
  }
  EXPECT_NE(SkipReason(plan, ActionKind::kMerge), "(not skipped)");
  EXPECT_NE(SkipReason(plan, ActionKind::kCheckRun), "(not skipped)");
}

TEST(PlannerTest, SuggestExecutesOnlyCheckRunAndComment) {
  PlannerOptions o;
  o.autonomy = Autonomy::kSuggest;
  Plan plan = PlanFor(OpenPr(), Pass(), {}, o);
  EXPECT_EQ(Kinds(plan.actions), (std::vector<std::string>{"check_run", "comment"}));
  for (const SkippedAction& s : plan.skipped) EXPECT_EQ(s.reason, "suggest") << s.action.Key();
  EXPECT_NE(SkipReason(plan, ActionKind::kMerge), "(not skipped)");
  EXPECT_NE(SkipReason(plan, ActionKind::kLabel), "(not skipped)");
}

TEST(PlannerTest, AutonomyPerActionClass) {
  PlannerOptions o;  // observe by default
  o.class_autonomy[ActionClass::kLabel] = Autonomy::kAuto;
  o.class_autonomy[ActionClass::kReport] = Autonomy::kSuggest;
  Plan plan = PlanFor(OpenPr(), Pass(), {}, o);
  EXPECT_EQ(Kinds(plan.actions), (std::vector<std::string>{"check_run", "comment", "label"}));
  EXPECT_EQ(SkipReason(plan, ActionKind::kMerge), "observe");
  EXPECT_EQ(SkipReason(plan, ActionKind::kApprove), "observe");
}

TEST(PlannerTest, HonoursTheAutonomyOfThePolicyFile) {
  auto policy = ParsePolicy(
      "actions:\n"
      "  autonomy: suggest\n"
      "  classes:\n"
      "    label: auto\n"
      "  merge_method: rebase\n"
      "  labels:\n"
      "    ready: lgtm\n");
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  // Without options, the planner uses policy.actions.
  Plan plan = PlanActions(*policy, OpenPr(), Pass(), {});
  EXPECT_EQ(Kinds(plan.actions), (std::vector<std::string>{"check_run", "comment", "label"}));
  EXPECT_EQ(Find(plan, ActionKind::kLabel)->label, "lgtm");
  EXPECT_EQ(SkipReason(plan, ActionKind::kApprove), "suggest");
  EXPECT_EQ(SkipReason(plan, ActionKind::kMerge, "rebase"), "suggest");
}

TEST(PlannerTest, ServerOverridesAppliedToPolicyActions) {
  // What the pass does: defaults -> repo file -> server overrides -> PlanActions.
  Policy defaults;
  defaults.actions.app_login = "acme-gate[bot]";
  auto policy = ParsePolicy("actions:\n  autonomy: auto\n  dry_run: false\n", defaults);
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  Policy p = *policy;
  PrSnapshot pr = OpenPr();
  pr.reviews = {{"acme-gate[bot]", "APPROVED", kHead, kT0}};

  Plan live = PlanActions(p, pr, Pass(), {}, p.actions);
  EXPECT_EQ(Find(live, ActionKind::kApprove), std::nullopt);  // its own approval is recognised
  EXPECT_EQ(SkipReason(live, ActionKind::kApprove), "already in that state");
  EXPECT_NE(Find(live, ActionKind::kMerge), std::nullopt);

  const bool server_dry_run = true;  // the global switch: OR-ed in, never turns a repo's off
  p.actions.dry_run = p.actions.dry_run || server_dry_run;
  Plan dry = PlanActions(p, pr, Pass(), {}, p.actions);
  EXPECT_TRUE(dry.actions.empty());
  EXPECT_EQ(SkipReason(dry, ActionKind::kMerge), "dry-run");
}

TEST(PlannerTest, DryRunPlansEverythingExecutesNothing) {
  PlannerOptions o = Auto();
  o.dry_run = true;
  Plan dry = PlanFor(OpenPr(), Pass(), {}, o);
  Plan live = PlanFor(OpenPr(), Pass());
  EXPECT_TRUE(dry.actions.empty());
  ASSERT_EQ(dry.skipped.size(), live.actions.size() + live.skipped.size());
  std::vector<std::string> dry_keys;
  for (const SkippedAction& s : dry.skipped) {
    if (s.reason == "dry-run") dry_keys.push_back(s.action.Key());
  }
  std::vector<std::string> live_keys;
  for (const PlannedAction& a : live.actions) live_keys.push_back(a.Key());
  EXPECT_EQ(dry_keys, live_keys);
}

TEST(PlannerTest, DetailKeysAreStableAndDistinct) {
  PrSnapshot pr = OpenPr();
  pr.labels = {"needs-human-review"};
  PlannerInput facts;
  facts.summary_comment_id = 9;
  Plan a = PlanFor(pr, Pass(), facts);
  Plan b = PlanFor(pr, Pass(), facts);
  std::vector<std::string> keys_a, keys_b;
  for (const PlannedAction& x : a.actions) keys_a.push_back(x.Key());
  for (const PlannedAction& x : b.actions) keys_b.push_back(x.Key());
  EXPECT_EQ(keys_a, keys_b);  // the same inputs give the same keys
  std::set<std::string> unique(keys_a.begin(), keys_a.end());
  EXPECT_EQ(unique.size(), keys_a.size());  // no two actions share a key
  EXPECT_EQ(Find(a, ActionKind::kMerge)->Key(), "merge|head1|squash");
  EXPECT_EQ(Find(a, ActionKind::kApprove)->Key(), "approve|head1|");
  EXPECT_EQ(Find(a, ActionKind::kLabel)->Key(), "label|head1|ready-to-merge");
  EXPECT_EQ(Find(a, ActionKind::kUnlabel)->Key(), "unlabel|head1|needs-human-review");
}

TEST(PlannerTest, KeysChangeWithHeadAndWithReportedContent) {
  PrSnapshot pr = OpenPr();
  PlannerInput facts;
  facts.summary_comment_id = 9;
  Plan fail = PlanFor(pr, Fail(), facts);
  Plan pass = PlanFor(pr, Pass(), facts);
  EXPECT_NE(Find(fail, ActionKind::kCheckRun)->Key(), Find(pass, ActionKind::kCheckRun)->Key());
  EXPECT_NE(Find(fail, ActionKind::kComment)->Key(), Find(pass, ActionKind::kComment)->Key());

  PrSnapshot moved = pr;
  moved.head_sha = "head2";
  Plan next = PlanFor(moved, Pass(), facts);
  EXPECT_EQ(Find(next, ActionKind::kMerge)->Key(), "merge|head2|squash");
}

// A head that came back is a new occurrence: every action is bound to it, so its keys differ
// from the first occurrence's (whose merge may be superseded), and the first occurrence keeps
// the keys it always had.
TEST(PlannerTest, EveryActionIsBoundToTheHeadsOccurrence) {
  PrSnapshot pr = OpenPr();
  PlannerInput facts;
  facts.head_occurrence = 2;
  Plan again = PlanFor(pr, Pass(), facts);
  ASSERT_FALSE(again.actions.empty());
  for (const PlannedAction& a : again.actions) {
    EXPECT_EQ(a.head_occurrence, 2) << a.Key();
    EXPECT_NE(a.Key().find("|head1@2|"), std::string::npos) << a.Key();
  }
  for (const SkippedAction& s : again.skipped) EXPECT_EQ(s.action.head_occurrence, 2);
  EXPECT_EQ(Find(again, ActionKind::kMerge)->Key(), "merge|head1@2|squash");
  facts.head_occurrence = 1;
  EXPECT_EQ(Find(PlanFor(pr, Pass(), facts), ActionKind::kMerge)->Key(), "merge|head1|squash");
}

// update-branch is bound to (head, base), whatever the occurrence: a bot that resets the branch
// after gatehouse's update does not make gatehouse update the same head onto the same base again.
TEST(PlannerTest, UpdateBranchIsBoundToTheHeadAndBaseNotTheOccurrence) {
  PrSnapshot pr = OpenPr();
  pr.mergeable_state = "behind";
  PlannerOptions o = Auto();
  o.update_branch = true;
  PlannerInput facts;
  facts.head_occurrence = 3;
  Plan plan = PlanFor(pr, Pass(), facts, o);
  auto update = Find(plan, ActionKind::kUpdateBranch);
  ASSERT_NE(update, std::nullopt);
  EXPECT_EQ(update->head_occurrence, 1);
  EXPECT_EQ(update->Key(), "update_branch|head1|" + pr.base_sha);
}

// The head's latest gatehouse check run already says what this pass would: not written again.
TEST(PlannerTest, AnUnchangedCheckRunIsNotWrittenAgain) {
  PrSnapshot pr = OpenPr();
  PlannerInput facts;
  Plan first = PlanFor(pr, Pass(), facts);
  auto run = Find(first, ActionKind::kCheckRun);
  ASSERT_NE(run, std::nullopt);
  facts.check_run_detail = run->detail;
  Plan same = PlanFor(pr, Pass(), facts);
  EXPECT_EQ(Find(same, ActionKind::kCheckRun), std::nullopt);
  bool skipped = false;
  for (const SkippedAction& s : same.skipped) {
    skipped |= s.action.kind == ActionKind::kCheckRun && s.reason == "already in that state";
  }
  EXPECT_TRUE(skipped);
  // A different verdict is written.
  EXPECT_NE(Find(PlanFor(pr, Fail(), facts), ActionKind::kCheckRun), std::nullopt);
}

TEST(PlannerTest, WorksOnTheGatesVerdict) {
  Policy policy;
  policy.approvals.min = 0;
  PrSnapshot pr = OpenPr();
  Plan plan = PlanActions(policy, pr, Evaluate(policy, pr), {}, Auto());
  EXPECT_NE(Find(plan, ActionKind::kMerge), std::nullopt);
}

TEST(PlannerTest, Names) {
  EXPECT_EQ(ActionKindName(ActionKind::kDraftDodgeClose), "draft_dodge_close");
  EXPECT_EQ(ActionKindName(ActionKind::kReopenReclose), "reopen_reclose");
  EXPECT_EQ(ActionKindName(ActionKind::kUpdateBranch), "update_branch");
  EXPECT_EQ(AutonomyName(Autonomy::kSuggest), "suggest");
  EXPECT_EQ(MergeMethodName(MergeMethod::kRebase), "rebase");
  EXPECT_EQ(ActionClassName(ClassOf(ActionKind::kUnlabel)), "label");
  EXPECT_EQ(ActionKindName(ActionKind::kReviewRun), "review_run");
  EXPECT_EQ(ActionKindName(ActionKind::kReaction), "reaction");
  EXPECT_EQ(ClassOf(ActionKind::kReviewRun), ActionClass::kReport);
  EXPECT_EQ(ClassOf(ActionKind::kReaction), ActionClass::kReport);
}

}  // namespace
}  // namespace gatehouse::decide

namespace gatehouse::decide {
namespace {

TEST(ActionKindNameTest, ParseIsTheInverseOfTheName) {
  for (ActionKind k :
       {ActionKind::kMerge, ActionKind::kApprove, ActionKind::kRequestChanges, ActionKind::kClose,
        ActionKind::kReopenReclose, ActionKind::kDraftDodgeClose, ActionKind::kLabel,
        ActionKind::kUnlabel, ActionKind::kComment, ActionKind::kCheckRun,
        ActionKind::kUpdateBranch, ActionKind::kReviewRun, ActionKind::kReaction}) {
    EXPECT_EQ(ParseActionKind(ActionKindName(k)), k) << ActionKindName(k);
  }
  EXPECT_EQ(ParseActionKind("Merge"), std::nullopt);
  EXPECT_EQ(ParseActionKind(""), std::nullopt);
}

}  // namespace
}  // namespace gatehouse::decide
