// The merge queue's commands (decide/queue_commands.h) and what they do to a PR's standing in
// the queue (decide/queue_standing.h).
#include "decide/queue_commands.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "decide/queue_standing.h"

namespace gatehouse::decide {
namespace {

using testing::HasSubstr;

constexpr std::string_view kQueueApp = "gatehouse[bot]";

CommandComment QueueComment(int64_t id, std::string body, AuthorRole role = AuthorRole::kMember,
                       std::string author = "alice") {
  return CommandComment{id, std::move(author), role, std::move(body)};
}

TEST(QueueCommandParseTest, TheFourWordsInAnyCaseAndEitherForm) {
  EXPECT_EQ(ParseCommand("@gatehouse queue", kQueueApp).kind, ParsedCommand::Kind::kQueue);
  EXPECT_EQ(ParseCommand("/gatehouse DEQUEUE please", kQueueApp).kind, ParsedCommand::Kind::kDequeue);
  EXPECT_EQ(ParseCommand("@GateHouse[bot]: Merge", kQueueApp).kind, ParsedCommand::Kind::kMerge);
  EXPECT_EQ(ParseCommand("\n/gatehouse refresh\n", kQueueApp).kind, ParsedCommand::Kind::kRefresh);
  EXPECT_EQ(ParseCommand("@gatehouse queued", kQueueApp).kind, ParsedCommand::Kind::kUnknown);
  EXPECT_EQ(ParseCommand("please @gatehouse merge", kQueueApp).kind, ParsedCommand::Kind::kNone);
  EXPECT_TRUE(IsQueueCommand(ParsedCommand::Kind::kRefresh));
  EXPECT_FALSE(IsQueueCommand(ParsedCommand::Kind::kReview));
  EXPECT_EQ(CommandWord(ParsedCommand::Kind::kDequeue), "dequeue");
}

TEST(QueueCommandFoldTest, TheLatestCommandBySomeoneWithWriteAccessDecides) {
  EXPECT_EQ(FoldQueueCommands({}, kQueueApp), QueueCommandStanding{});
  // In comment order, whatever order they are given in.
  QueueCommandStanding s = FoldQueueCommands(
      {QueueComment(30, "@gatehouse queue"), QueueComment(10, "@gatehouse merge"),
       QueueComment(20, "@gatehouse dequeue", AuthorRole::kOwner, "bob")},
      kQueueApp);
  EXPECT_FALSE(s.hold);
  EXPECT_FALSE(s.grant) << "the dequeue at 20 ended the merge grant of 10";
  EXPECT_EQ(s.admitted_by, 30);
  EXPECT_EQ(s.comment_id, 30);
  EXPECT_EQ(s.by, "alice");

  s = FoldQueueCommands({QueueComment(10, "@gatehouse merge"), QueueComment(20, "/gatehouse dequeue")},
                        kQueueApp);
  EXPECT_TRUE(s.hold);
  EXPECT_FALSE(s.grant);
  EXPECT_EQ(s.admitted_by, 0);

  s = FoldQueueCommands({QueueComment(10, "@gatehouse merge"), QueueComment(11, "@gatehouse refresh"),
                         QueueComment(12, "@gatehouse review")},
                        kQueueApp);
  EXPECT_TRUE(s.grant);
  EXPECT_EQ(s.admitted_by, 10) << "refresh and review say nothing about the queue";

  // No write access, or gatehouse itself: left out.
  s = FoldQueueCommands({QueueComment(10, "@gatehouse merge"),
                         QueueComment(11, "@gatehouse dequeue", AuthorRole::kContributor, "eve"),
                         QueueComment(12, "@gatehouse dequeue", AuthorRole::kNone, "gatehouse[bot]")},
                        kQueueApp);
  EXPECT_TRUE(s.grant);
  EXPECT_FALSE(s.hold);
}

TEST(QueueCommandFoldTest, WriteAccessIsOwnerMemberOrCollaborator) {
  for (const char* a : {"OWNER", "MEMBER", "COLLABORATOR"}) EXPECT_TRUE(MayCommandQueue(a)) << a;
  for (const char* a : {"CONTRIBUTOR", "NONE", "FIRST_TIMER", "owner", ""}) {
    EXPECT_FALSE(MayCommandQueue(a)) << a;
  }
}

TEST(QueueCommandFoldTest, AGrantLiftsOnlyTheMergeActionsToAuto) {
  PlannerOptions o;
  o.autonomy = Autonomy::kSuggest;
  QueueCommandStanding s;
  EXPECT_EQ(UnderQueueCommands(o, s).AutonomyFor(ActionClass::kMerge), Autonomy::kSuggest);
  s.grant = true;
  const PlannerOptions granted = UnderQueueCommands(o, s);
  EXPECT_EQ(granted.AutonomyFor(ActionClass::kMerge), Autonomy::kAuto);
  EXPECT_EQ(granted.AutonomyFor(ActionClass::kClose), Autonomy::kSuggest);
}

TEST(QueueCommandDecideTest, AcceptedRefusedWithAReasonOrNotAllowed) {
  using K = CommandDecision::Kind;
  auto decide = [](const CommandComment& c, bool open, bool queue, Autonomy level) {
    return DecideQueueCommand(c, open, "main", kQueueApp, queue, level);
  };
  EXPECT_EQ(decide(QueueComment(1, "@gatehouse queue"), true, true, Autonomy::kAuto).kind,
            K::kAccepted);
  EXPECT_EQ(decide(QueueComment(1, "@gatehouse merge"), true, true, Autonomy::kSuggest).kind,
            K::kAccepted);
  EXPECT_EQ(decide(QueueComment(1, "@gatehouse merge"), true, false, Autonomy::kObserve).kind,
            K::kAccepted)
      << "merge without a queue merges when ready";
  EXPECT_EQ(decide(QueueComment(1, "@gatehouse refresh"), false, false, Autonomy::kObserve).kind,
            K::kAccepted);

  CommandDecision d = decide(QueueComment(1, "@gatehouse queue"), true, true, Autonomy::kSuggest);
  EXPECT_EQ(d.kind, K::kRejected);
  EXPECT_THAT(d.reply, HasSubstr("`suggest`"));
  EXPECT_THAT(d.reply, HasSubstr("`@gatehouse merge`"));
  d = decide(QueueComment(1, "@gatehouse dequeue"), true, false, Autonomy::kAuto);
  EXPECT_EQ(d.kind, K::kRejected);
  EXPECT_THAT(d.reply, HasSubstr("`main` has no merge queue"));
  d = decide(QueueComment(1, "@gatehouse merge"), false, true, Autonomy::kAuto);
  EXPECT_EQ(d.kind, K::kRejected);
  EXPECT_THAT(d.reply, HasSubstr("closed"));

  EXPECT_EQ(decide(QueueComment(1, "@gatehouse merge", AuthorRole::kContributor), true, true,
                   Autonomy::kAuto)
                .kind,
            K::kNotAllowed);
  EXPECT_EQ(decide(QueueComment(1, "@gatehouse review"), true, true, Autonomy::kAuto).kind,
            K::kIgnored);
  EXPECT_EQ(decide(QueueComment(1, "thanks"), true, true, Autonomy::kAuto).kind, K::kIgnored);
}

// The standing of a PR that passes, at head "h1" (occurrence 1), in acme/app's main queue.
struct StandingWorld {
  Policy policy;
  PrSnapshot pr;
  GateVerdict pass;
  QueueFacts facts;
  StandingWorld() {
    policy.merge_queue.enabled = true;
    pr.state = "open";
    pr.head_sha = "h1";
    pass.verdict = Verdict::kPass;
    facts.queue = "acme/app@main/queue";
  }
  QueueStanding Decide() const { return DecideQueueStanding(policy, pr, pass, facts, 1, false); }
  void Entry(int64_t id, std::string state, int64_t admitted_by = 0, std::string reason = "") {
    QueueEntryFact e;
    e.id = id;
    e.head_sha = "h1";
    e.state = std::move(state);
    e.admitted_by = admitted_by;
    e.reason = std::move(reason);
    facts.entries.push_back(e);
  }
};

TEST(QueueCommandStandingTest, DequeueDropsTheOpenEntryAndKeepsThePrOut) {
  StandingWorld w;
  w.Entry(7, "testing");
  w.facts.commands = FoldQueueCommands({QueueComment(42, "@gatehouse dequeue")}, kQueueApp);
  QueueStanding s = w.Decide();
  EXPECT_EQ(s.leave_entry, 7);
  EXPECT_EQ(s.leave_reason, "dequeued by @alice (comment 42)");
  EXPECT_FALSE(s.enter);
  EXPECT_THAT(s.enter_skip, HasSubstr("kept out of the queue"));

  // A merge under way is the queue's to finish.
  w.facts.entries[0].state = "merging";
  EXPECT_EQ(w.Decide().leave_entry, 0);
}

TEST(QueueCommandStandingTest, ACommandAdmitsADroppedHeadOnceMore) {
  StandingWorld w;
  w.Entry(7, "dropped", 0, "the required checks did not report within checks_timeout (30m)");
  QueueStanding s = w.Decide();
  EXPECT_FALSE(s.enter) << "without a command a dropped head stays out";
  EXPECT_THAT(s.enter_skip, HasSubstr("dropped from the queue at this head"));

  w.facts.commands = FoldQueueCommands({QueueComment(50, "@gatehouse queue")}, kQueueApp);
  s = w.Decide();
  EXPECT_TRUE(s.enter);
  EXPECT_EQ(s.admitted_by, 50);

  // Once: the entry comment 50 admitted was dropped too.
  w.Entry(8, "dropped", 50, "failed on the tested head");
  EXPECT_FALSE(w.Decide().enter);
  // A later command admits it again; an open entry is never doubled.
  w.facts.commands = FoldQueueCommands(
      {QueueComment(50, "@gatehouse queue"), QueueComment(60, "@gatehouse merge")}, kQueueApp);
  EXPECT_EQ(w.Decide().admitted_by, 60);
  EXPECT_TRUE(w.Decide().enter);
  w.Entry(9, "queued", 60);
  EXPECT_FALSE(w.Decide().enter);
  EXPECT_THAT(w.Decide().enter_skip, HasSubstr("in the queue at this head"));
}

}  // namespace
}  // namespace gatehouse::decide

namespace gatehouse::decide {
namespace {

TEST(QueueSummaryLineTest, TheOpenEntrysPlaceElseWhyItLeftElseNothing) {
  QueueFacts f;
  QueueStanding none;
  EXPECT_EQ(QueueSummaryLine(f, none), "") << "no queue";
  f.queue = "acme/app@main/queue";
  EXPECT_EQ(QueueSummaryLine(f, none), "") << "never entered";
  QueueStanding entering;
  entering.enter = true;
  EXPECT_THAT(QueueSummaryLine(f, entering), HasSubstr("(`main`): entered the queue;"));

  QueueEntryFact e;
  e.id = 7;
  e.head_sha = "h1";
  e.state = "queued";
  f.entries.push_back(e);
  f.place = QueuePlace{7, 3, 5, 0, std::chrono::seconds(150)};
  EXPECT_EQ(QueueSummaryLine(f, none),
            "**Merge queue** (`main`): queued, position 3 of 5; ETA about 3 min at the queue's "
            "recent pace. The `gatehouse/queue` check run follows it live.");
  f.entries[0].state = "testing";
  f.entries[0].tested_sha = "0123456789abcdef0123";
  f.place = QueuePlace{7, 1, 5, 7, std::nullopt};
  EXPECT_EQ(QueueSummaryLine(f, none),
            "**Merge queue** (`main`): testing in batch 7 at `0123456789ab` (position 1 of 5); "
            "ETA not known yet (the queue has not landed twice recently). The `gatehouse/queue` "
            "check run follows it live.");

  f.entries[0].state = "dropped";
  f.entries[0].reason = "failed on the tested head";
  EXPECT_THAT(QueueSummaryLine(f, none),
              HasSubstr("left the queue: failed on the tested head. It enters again"));
  f.commands = FoldQueueCommands({QueueComment(42, "@gatehouse dequeue")}, kQueueApp);
  // The pass that carries the dequeue out says so; the next ones say the PR is kept out.
  f.entries[0].state = "queued";
  QueueStanding leaving;
  leaving.leave_entry = 7;
  leaving.leave_reason = "dequeued by @alice (comment 42)";
  EXPECT_EQ(QueueSummaryLine(f, leaving),
            "**Merge queue** (`main`): left the queue: dequeued by @alice (comment 42). Kept out "
            "until `/gatehouse queue` or `/gatehouse merge`.");
  f.entries[0].state = "dropped";
  EXPECT_EQ(QueueSummaryLine(f, none),
            "**Merge queue** (`main`): kept out: dequeued by @alice (comment 42); "
            "`/gatehouse queue` puts it back.");
}

}  // namespace
}  // namespace gatehouse::decide
