#include "decide/review_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "decide/reasons.h"

namespace gatehouse::decide {

void PrintTo(const RunToRequest& r, std::ostream* os) {
  *os << "{" << r.role << ", " << r.trigger << ", " << r.why << "}";
}

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kLogin[] = "gatehouse[bot]";

ReviewRoleRule PlanRule(std::string role, std::set<ReviewTrigger> on = {ReviewTrigger::kOpened,
                                                                    ReviewTrigger::kSynchronize,
                                                                    ReviewTrigger::kReadyForReview,
                                                                    ReviewTrigger::kCommand}) {
  ReviewRoleRule r;
  r.role = std::move(role);
  r.on = std::move(on);
  return r;
}

ReviewsPolicy Policy2() {
  ReviewsPolicy p;
  p.roles = {PlanRule("security"), PlanRule("style")};
  p.roles[0].required = true;
  return p;
}

PrSnapshot OpenPr(std::string head = "h2") {
  PrSnapshot pr;
  pr.state = "open";
  pr.head_sha = std::move(head);
  pr.changed_paths = {"src/a.cc"};
  return pr;
}

KnownRun Known(std::string role, std::string head, std::string trigger = "auto") {
  KnownRun k;
  k.role = std::move(role);
  k.head_sha = std::move(head);
  k.trigger = std::move(trigger);
  k.state = "done";
  return k;
}

CommandComment Comment(int64_t id, std::string body, AuthorRole role = AuthorRole::kMember,
                       std::string author = "alice") {
  return CommandComment{id, std::move(author), role, std::move(body)};
}

const std::set<std::string> kServed = {"security", "style"};

TEST(ParseCommandTest, RecognisesBothForms) {
  auto c = ParseCommand("/gatehouse review security", kLogin);
  EXPECT_EQ(c.kind, ParsedCommand::Kind::kReview);
  EXPECT_EQ(c.role, "security");
  c = ParseCommand("\n  \n  @GateHouse[bot]   Review   Style please\nmore text", kLogin);
  EXPECT_EQ(c.kind, ParsedCommand::Kind::kReview);
  EXPECT_EQ(c.role, "style");
  c = ParseCommand("@gatehouse: review", kLogin);
  EXPECT_EQ(c.kind, ParsedCommand::Kind::kReview);
  EXPECT_EQ(c.role, "");
  c = ParseCommand("/GATEHOUSE review\r\n", "gatehouse");
  EXPECT_EQ(c.kind, ParsedCommand::Kind::kReview);
}

TEST(ParseCommandTest, OtherCommentsAreNotCommands) {
  EXPECT_EQ(ParseCommand("", kLogin).kind, ParsedCommand::Kind::kNone);
  EXPECT_EQ(ParseCommand("LGTM, thanks", kLogin).kind, ParsedCommand::Kind::kNone);
  EXPECT_EQ(ParseCommand("@someone review", kLogin).kind, ParsedCommand::Kind::kNone);
  EXPECT_EQ(ParseCommand("@gatehousex review", kLogin).kind, ParsedCommand::Kind::kNone);
  // Only the first non-empty line counts.
  EXPECT_EQ(ParseCommand("thanks!\n/gatehouse review", kLogin).kind, ParsedCommand::Kind::kNone);
  EXPECT_EQ(ParseCommand("please /gatehouse review", kLogin).kind, ParsedCommand::Kind::kNone);
}

TEST(ParseCommandTest, UnknownWords) {
  auto c = ParseCommand("@gatehouse deploy now", kLogin);
  EXPECT_EQ(c.kind, ParsedCommand::Kind::kUnknown);
  EXPECT_EQ(c.word, "deploy");
  c = ParseCommand("/gatehouse", kLogin);
  EXPECT_EQ(c.kind, ParsedCommand::Kind::kUnknown);
  EXPECT_EQ(c.word, "");
}

TEST(PlanReviewRunsTest, OpenedPrGetsOneAutoRunPerServedApplyingRole) {
  ReviewsPolicy p = Policy2();
  p.roles.push_back(PlanRule("docs"));  // not served
  p.roles.push_back(PlanRule("sql"));
  p.roles.back().paths = {"**/*.sql"};  // does not apply
  const std::set<std::string> served = {"security", "style", "sql"};
  EXPECT_THAT(PlanReviewRuns(p, OpenPr(), {}, {}, {}, kLogin, served),
              ElementsAre(RunToRequest{"security", "auto", "opened"},
                          RunToRequest{"style", "auto", "opened"}));
}

TEST(PlanReviewRunsTest, AReplayAsksForNothing) {
  const std::vector<KnownRun> known = {Known("security", "h2"), Known("style", "h2")};
  EXPECT_THAT(
      PlanReviewRuns(Policy2(), OpenPr(), known, {std::string(kReasonOpened)}, {}, kLogin, kServed),
      IsEmpty());
}

TEST(PlanReviewRunsTest, ANewHeadNeedsSynchronize) {
  ReviewsPolicy p = Policy2();
  p.roles[1].on = {ReviewTrigger::kOpened};  // style reviews only the opening head
  const std::vector<KnownRun> known = {Known("security", "h1"), Known("style", "h1")};
  EXPECT_THAT(PlanReviewRuns(p, OpenPr("h2"), known, {}, {}, kLogin, kServed),
              ElementsAre(RunToRequest{"security", "auto", "synchronize"}));
}

// A draft (or a close) cancelled the head's run; back to ready, the head is reviewed again under
// a new key, and a replay of that asks for nothing.
TEST(PlanReviewRunsTest, AHeadWhoseRunADraftCancelledIsReviewedAgain) {
  KnownRun cancelled = Known("security", "h2");
  cancelled.state = "cancelled";
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(), {cancelled}, {std::string(kReasonReadyForReview)},
                             {}, kLogin, {"security"}),
              ElementsAre(RunToRequest{"security", "auto:2", "ready_for_review"}));
  KnownRun again = Known("security", "h2", "auto:2");
  again.state = "queued";
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(), {cancelled, again}, {}, {}, kLogin, {"security"}),
              IsEmpty());
}

// A commanded run a draft cancelled, or a result superseded by a read that lagged, leaves the
// head unreviewed: an automatic run is asked for again.
TEST(PlanReviewRunsTest, ACancelledCommandOrASupersededResultDoesNotCoverTheHead) {
  KnownRun commanded = Known("security", "h2", "comment:5");
  commanded.state = "cancelled";
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(), {Known("security", "h1"), commanded}, {}, {},
                             kLogin, {"security"}),
              ElementsAre(RunToRequest{"security", "auto", "ready_for_review"}));
  KnownRun superseded = Known("security", "h2");
  superseded.state = "superseded";
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(), {superseded}, {}, {}, kLogin, {"security"}),
              ElementsAre(RunToRequest{"security", "auto:2", "ready_for_review"}));
}

TEST(PlanReviewRunsTest, TheSweepRepairsALostTrigger) {
  // No reasons at all (a sweep): the state alone says the head has no review yet.
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(), {Known("security", "h1")},
                             {std::string(kReasonSwept)}, {}, kLogin, {"security"}),
              ElementsAre(RunToRequest{"security", "auto", "synchronize"}));
}

TEST(PlanReviewRunsTest, ReadyForReviewNeedsItsReasonWhenOpenedIsNotATrigger) {
  ReviewsPolicy p;
  p.roles = {PlanRule("security", {ReviewTrigger::kReadyForReview})};
  EXPECT_THAT(PlanReviewRuns(p, OpenPr(), {}, {std::string(kReasonSwept)}, {}, kLogin, kServed),
              IsEmpty());
  EXPECT_THAT(
      PlanReviewRuns(p, OpenPr(), {}, {std::string(kReasonReadyForReview)}, {}, kLogin, kServed),
      ElementsAre(RunToRequest{"security", "auto", "ready_for_review"}));
}

TEST(PlanReviewRunsTest, DraftsAndClosedPrsGetNoAutoRuns) {
  PrSnapshot draft = OpenPr();
  draft.draft = true;
  EXPECT_THAT(PlanReviewRuns(Policy2(), draft, {}, {}, {}, kLogin, kServed), IsEmpty());
  PrSnapshot closed = OpenPr();
  closed.state = "closed";
  EXPECT_THAT(PlanReviewRuns(Policy2(), closed, {}, {}, {}, kLogin, kServed), IsEmpty());
}

TEST(PlanReviewRunsTest, ACommandAsksForAFreshRunAtTheHead) {
  const std::vector<KnownRun> known = {Known("security", "h2"), Known("style", "h2")};
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(), known, {},
                             {Comment(77, "@gatehouse review security")}, kLogin, kServed),
              ElementsAre(RunToRequest{"security", "comment:77", "comment 77 by alice"}));
  // Without a role: every role that reviews on command and applies.
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(), known, {}, {Comment(78, "/gatehouse review")},
                             kLogin, kServed),
              ElementsAre(RunToRequest{"security", "comment:78", "comment 78 by alice"},
                          RunToRequest{"style", "comment:78", "comment 78 by alice"}));
}

TEST(PlanReviewRunsTest, TheSameCommentNeverTriggersTwice) {
  // Run at an older head: the comment was handled before the push.
  const std::vector<KnownRun> known = {Known("security", "h1", "comment:77"),
                                       Known("security", "h2")};
  const ReviewPlan plan = PlanReviews(Policy2(), OpenPr(), known, {},
                                      {Comment(77, "@gatehouse review security")}, kLogin, kServed);
  EXPECT_THAT(plan.runs, ElementsAre(RunToRequest{"style", "auto", "opened"}));
  ASSERT_EQ(plan.commands.size(), 1u);
  EXPECT_EQ(plan.commands[0].kind, CommandDecision::Kind::kReview);
  EXPECT_THAT(plan.commands[0].roles, IsEmpty());
}

TEST(PlanReviewRunsTest, ACommandedRunCoversTheAutomaticOne) {
  const ReviewPlan plan = PlanReviews(Policy2(), OpenPr(), {}, {std::string(kReasonOpened)},
                                      {Comment(5, "/gatehouse review security")}, kLogin, kServed);
  EXPECT_THAT(plan.runs, ElementsAre(RunToRequest{"style", "auto", "opened"},
                                     RunToRequest{"security", "comment:5", "comment 5 by alice"}));
  // The next pass sees the commanded run at the head: still no auto run of security.
  EXPECT_THAT(PlanReviewRuns(Policy2(), OpenPr(),
                             {Known("security", "h2", "comment:5"), Known("style", "h2")}, {}, {},
                             kLogin, kServed),
              IsEmpty());
}

TEST(PlanReviewsTest, WhoMayCommand) {
  const std::vector<CommandComment> comments = {
      Comment(1, "/gatehouse review", AuthorRole::kContributor, "mallory"),
      Comment(2, "/gatehouse review", AuthorRole::kOwner, "gatehouse[bot]"),
      Comment(3, "nice work", AuthorRole::kOwner),
      Comment(4, "/gatehouse review style", AuthorRole::kOwner, "olivia")};
  const std::vector<KnownRun> known = {Known("security", "h2"), Known("style", "h2")};
  const ReviewPlan plan = PlanReviews(Policy2(), OpenPr(), known, {}, comments, kLogin, kServed);
  EXPECT_THAT(plan.runs, ElementsAre(RunToRequest{"style", "comment:4", "comment 4 by olivia"}));
  ASSERT_EQ(plan.commands.size(), 4u);
  EXPECT_EQ(plan.commands[0].kind, CommandDecision::Kind::kNotAllowed);
  EXPECT_EQ(plan.commands[1].kind, CommandDecision::Kind::kIgnored);  // gatehouse itself
  EXPECT_EQ(plan.commands[2].kind, CommandDecision::Kind::kIgnored);
  EXPECT_EQ(plan.commands[3].kind, CommandDecision::Kind::kReview);
  EXPECT_EQ(plan.commands[3].comment_id, 4);
  EXPECT_THAT(plan.commands[3].roles, ElementsAre("style"));
}

TEST(PlanReviewsTest, RejectedCommandsGetAReply) {
  ReviewsPolicy p = Policy2();
  p.roles.push_back(PlanRule("perf", {ReviewTrigger::kOpened}));
  p.roles.push_back(PlanRule("docs"));
  const std::set<std::string> served = {"security", "style", "perf"};
  const std::vector<KnownRun> known = {Known("security", "h2"), Known("style", "h2"),
                                       Known("perf", "h2")};
  const ReviewPlan plan =
      PlanReviews(p, OpenPr(), known, {},
                  {Comment(1, "@gatehouse deploy"), Comment(2, "@gatehouse review secrets"),
                   Comment(3, "@gatehouse review perf"), Comment(4, "@gatehouse review docs")},
                  kLogin, served);
  EXPECT_THAT(plan.runs, IsEmpty());
  ASSERT_EQ(plan.commands.size(), 4u);
  for (const CommandDecision& d : plan.commands) {
    EXPECT_EQ(d.kind, CommandDecision::Kind::kRejected) << d.comment_id;
  }
  EXPECT_THAT(plan.commands[0].reply, HasSubstr("does not know the command `deploy`"));
  EXPECT_THAT(plan.commands[1].reply, HasSubstr("no review role `secrets`"));
  EXPECT_THAT(plan.commands[2].reply, HasSubstr("`perf` does not review on command"));
  EXPECT_THAT(plan.commands[3].reply, HasSubstr("No reviewer serves the role `docs`"));
}

TEST(PlanReviewsTest, ACommandOnAClosedPrIsAcknowledgedButRunsNothing) {
  PrSnapshot pr = OpenPr();
  pr.state = "closed";
  const ReviewPlan plan =
      PlanReviews(Policy2(), pr, {}, {}, {Comment(9, "/gatehouse review")}, kLogin, kServed);
  EXPECT_THAT(plan.runs, IsEmpty());
  ASSERT_EQ(plan.commands.size(), 1u);
  EXPECT_EQ(plan.commands[0].kind, CommandDecision::Kind::kReview);
}

TEST(UnknownCommandReplyTest, ListsTheCommandsAndRoles) {
  const std::string reply = UnknownCommandReply("depl`oy", Policy2());
  EXPECT_EQ(reply,
            "gatehouse does not know the command `depl'oy`. Commands: `/gatehouse review` (every "
            "role that applies) or `/gatehouse review <role>`, with `@` and gatehouse's login in "
            "place of `/gatehouse` too. Roles: `security`, `style`. Merge commands: `queue`, "
            "`dequeue`, `merge`, `refresh` (docs/MERGE_QUEUE.md).");
  EXPECT_THAT(UnknownCommandReply("", ReviewsPolicy{}),
              HasSubstr("No review role of this repository reviews on command."));
}

}  // namespace
}  // namespace gatehouse::decide
