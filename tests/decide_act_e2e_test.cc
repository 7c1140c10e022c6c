// Issue 5's end-to-end scenarios, tests/scenarios/NAME.json played by `gatehouse-sim run`
// against `gatehouse serve`, both real processes (tests/serve_scenario_harness.h); then this
// test opens gatehouse's database and checks the ledger, the audit log and the work items.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "tests/serve_scenario_harness.h"

namespace gatehouse {
namespace {

namespace json = boost::json;
using serve_testing::kSubject;
using serve_testing::Outcome;

class DecideActE2eTest : public serve_testing::ServeScenarioTest {};

const std::string kA(40, 'a');
const std::string kB(40, 'b');

// 1. CI completion, a push and sweeps at the same instant: one merge, at the newest head.
TEST_F(DecideActE2eTest, SameInstantSignalsMergeOnceAtTheNewestHead) {
  Outcome o = Play("same_instant", {"--debounce-ms", "200", "--sweep-interval-seconds", "1"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kB), 1);
  ExpectNothingDeadOrLost(o);
}

// 2. A push lands between the decision and the merge: 409, superseded, a fresh pass merges
//    the new head.
TEST_F(DecideActE2eTest, AStalePlanIsSupersededAndANewPassDecidesOnTheNewHead) {
  Outcome o = Play("stale_plan", {"--debounce-ms", "200", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kSuperseded, kA), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kA), 0);
  EXPECT_GE(CountAudit(o, "superseded"), 1);
  ExpectNothingDeadOrLost(o);
}

// 3. gatehouse's own approval comes back as a webhook while it works: one approval, one merge,
//    no close.
TEST_F(DecideActE2eTest, OwnApprovalWebhookCausesNoConflictingAction) {
  Outcome o = Play("own_approval", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "close", ActionState::kDone), 0);
  ExpectNothingDeadOrLost(o);
}

// 4. kill -9 between the merge call and its ledger record: after the restart the open intent
//    is reconciled against GitHub and nothing happens twice.
TEST_F(DecideActE2eTest, KillBetweenCallAndRecordIsReconciledWithoutASecondEffect) {
  Outcome o =
      Play("crash_reconcile", {"--debounce-ms", "100", "--sweep-interval-seconds", "1"}, "merge");
  EXPECT_VERDICT_OK(o);
  EXPECT_EQ(o.first_serve_exit, 128 + SIGKILL);
  EXPECT_EQ(o.serves, 2);
  ASSERT_TRUE(o.store);
  ASSERT_EQ(Count(o, "merge", ActionState::kDone), 1) << o.logs;
  for (const auto& a : o.actions) {
    if (a.key.kind == "merge") {
      EXPECT_NE(a.result.find("reconciled"), std::string::npos);
    }
  }
  EXPECT_GE(CountAudit(o, "reconciled"), 1);
  ExpectNothingDeadOrLost(o);
}

// 5. 100 signals within one second: at most 3 passes, and the last saw the final state.
TEST_F(DecideActE2eTest, HundredSignalsInASecondAreAFewPassesAndTheLastSawEverything) {
  Outcome o = Play("signal_storm", {"--debounce-ms", "1000", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  int storm_passes = 0;
  int64_t last_statuses = -1;
  for (const auto& e : o.audit) {
    if (e.kind != "verdict") continue;
    boost::system::error_code ec;
    json::value detail = json::parse(e.detail, ec);
    ASSERT_FALSE(ec) << e.detail;
    const int64_t statuses = detail.at("statuses").to_number<int64_t>();
    if (statuses > 0) ++storm_passes;
    last_statuses = statuses;
  }
  EXPECT_GE(storm_passes, 1);
  EXPECT_LE(storm_passes, 3);
  EXPECT_EQ(last_statuses, 100);
  ExpectNothingDeadOrLost(o);
}

// 6a. Turned draft while pending closure: closed anyway.
TEST_F(DecideActE2eTest, DraftDodgeIsClosed) {
  Outcome o = Play("draft_dodge", {"--debounce-ms", "100", "--sweep-interval-seconds", "1"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "label", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "draft_dodge_close", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "close", ActionState::kDone), 0);
  ExpectNothingDeadOrLost(o);
}

// 6b. Closed by gatehouse after the grace, reopened by its author: closed again.
TEST_F(DecideActE2eTest, ReopenByTheAuthorIsReclosed) {
  Outcome o = Play("reopen_reclose", {"--debounce-ms", "100", "--sweep-interval-seconds", "1"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "close", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "reopen_reclose", ActionState::kDone), 1);
  ExpectNothingDeadOrLost(o);
}

// 7. A secondary rate limit with Retry-After: gatehouse waits, uses no attempt, nothing dies,
//    and the merge happens after the wait.
TEST_F(DecideActE2eTest, SecondaryRateLimitWaitsWithoutConsumingAnAttempt) {
  Outcome o =
      Play("secondary_rate_limit", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_GE(CountAudit(o, "error", "rate"), 1) << o.logs;
  auto item = o.store->work().GetWorkItem(kSubject);
  ASSERT_TRUE(item.ok());
  ASSERT_TRUE(item->has_value());
  EXPECT_EQ((*item)->attempts, 0);
  EXPECT_EQ((*item)->state, WorkState::kIdle);
  ExpectNothingDeadOrLost(o);
}

// 8a. observe (the default autonomy): everything is planned and audited, nothing is called.
TEST_F(DecideActE2eTest, ObserveMakesNoMutatingCall) {
  Outcome o = Play("observe", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_TRUE(o.actions.empty());
  EXPECT_GE(CountAudit(o, "verdict"), 1);
  EXPECT_GE(CountAudit(o, "skipped", "observe"), 1);
  ExpectNothingDeadOrLost(o);
}

// 8b. --dry-run overrides a repository on `auto`: nothing is called.
TEST_F(DecideActE2eTest, DryRunMakesNoMutatingCall) {
  // The pass that plans the merge may come from the mergeability recheck (3 s after a pass
  // that saw `mergeable` still null), later than the simulator's settle: wait for it.
  Outcome o =
      Play("dry_run", {"--debounce-ms", "100", "--sweep-interval-seconds", "0", "--dry-run"}, "",
           [](const std::vector<AuditEntry>& audit) {
             return std::any_of(audit.begin(), audit.end(), [](const AuditEntry& e) {
               return e.kind == "skipped" && e.summary.find("merge") != std::string::npos;
             });
           });
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_TRUE(o.actions.empty());
  EXPECT_GE(CountAudit(o, "skipped", "dry-run"), 1);
  EXPECT_GE(CountAudit(o, "skipped", "merge"), 1) << o.logs;
  ExpectNothingDeadOrLost(o);
}

// Issue 9: a head that comes back is decided afresh.

// 9a. The merge of A is superseded (X pushed just before it), then B, then a force-push back to
//     A: A is merged once, on its second occurrence, and the summary speaks of A.
TEST_F(DecideActE2eTest, AHeadThatComesBackAfterASupersededMergeIsMerged) {
  Outcome o = Play("return_after_superseded_merge",
                   {"--debounce-ms", "200", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kSuperseded, kA, 1), 1) << o.logs;
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kA, 2), 1) << o.logs;
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  ExpectNothingDeadOrLost(o);
}

// 9b. The ready-to-merge label removed on the intermediate head is put back on A; gatehouse's
//     approval of A still stands, so it is not given again.
TEST_F(DecideActE2eTest, ALabelRemovedOnTheIntermediateHeadIsPutBackWhenTheHeadReturns) {
  Outcome o =
      Play("return_label_removed", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "label", ActionState::kDone, kA, 1), 1);
  EXPECT_EQ(Count(o, "label", ActionState::kDone, kA, 2), 1) << o.logs;
  EXPECT_EQ(Count(o, "approve", ActionState::kDone), 1);
  ExpectNothingDeadOrLost(o);
}

// 9c. GitHub dismissed gatehouse's approval of A when X was pushed: back on A it approves again.
TEST_F(DecideActE2eTest, ADismissedApprovalIsGivenAgainWhenTheHeadReturns) {
  Outcome o = Play("return_after_dismissed_approval",
                   {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone, kA, 1), 1);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone, kA, 2), 1) << o.logs;
  ExpectNothingDeadOrLost(o);
}

// 9d. No pass sees X (its synchronize webhook is lost, the dismissals arrive late): the webhook of
//     the push back to A reports a push after gatehouse decided on A, so A is a new occurrence.
TEST_F(DecideActE2eTest, APushNoPassSawIsLearnedFromTheWebhookOfThePushBack) {
  Outcome o = Play("return_unseen_head", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone, kA, 2), 1) << o.logs;
  for (const auto& e : o.audit) {
    EXPECT_NE(e.head_sha, std::string(40, 'e')) << "a pass saw X: " << e.summary;
  }
  ExpectNothingDeadOrLost(o);
}

// 9e. The simulator's example of a late webhook and a force-push back (sim/scenarios/), played
//     as documented: the server's defaults on `auto`, no policy file. The first merge call gets a
//     502 (the intent stays open and is reconciled); A is merged once.
TEST_F(DecideActE2eTest, TheSimulatorsLateWebhookExampleMergesOnce) {
  Outcome o = Play(std::string(GATEHOUSE_SIM_SCENARIOS) + "/late_webhook_force_push.json",
                   {"--debounce-ms", "100", "--sweep-interval-seconds", "0", "--autonomy", "auto"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kA), 1) << o.logs;
  ExpectNothingDeadOrLost(o);
}

}  // namespace
}  // namespace gatehouse
