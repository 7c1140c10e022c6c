// Issue 16's merge queue end to end: tests/scenarios/queue_*.json played by `gatehouse-sim
// run` against `gatehouse serve`, both real processes (tests/serve_scenario_harness.h), on a
// strict base whose branch protection is not enforced (`enforce: false`), so that nothing but
// the queue stands between a ready PR and an untested combination. The simulator checks its
// invariants on the effect log (no untested merge, nothing done twice, nothing on a stale head)
// and each PR's end state; then this test reads the queue's entries from gatehouse's database.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <string>
#include <vector>

#include "tests/serve_scenario_harness.h"

namespace gatehouse {
namespace {

using serve_testing::Outcome;

constexpr char kQueue[] = "acme/app@main/queue";

class MergeQueueE2eTest : public serve_testing::ServeScenarioTest {
 protected:
  static std::vector<std::string> Args() {
    return {"--debounce-ms", "100", "--sweep-interval-seconds", "0"};
  }
  static std::string Pr(int n) { return "acme/app#" + std::to_string(n); }

  // PR n's queue entries, oldest first.
  static std::vector<QueueEntry> EntriesOf(const Outcome& o, int n) {
    auto entries = o.store->queues().EntriesOf(Pr(n));
    EXPECT_TRUE(entries.ok());
    return entries.ok() ? *entries : std::vector<QueueEntry>{};
  }
  // The PRs in the order the queue merged them.
  static std::vector<std::string> MergeOrder(const Outcome& o) {
    auto all = o.store->queues().ListQueue(kQueue, 1000);
    EXPECT_TRUE(all.ok());
    std::vector<QueueEntry> merged;
    for (const QueueEntry& e : all.ok() ? *all : std::vector<QueueEntry>{}) {
      if (e.state == EntryState::kMerged) merged.push_back(e);
    }
    std::sort(merged.begin(), merged.end(), [](const QueueEntry& a, const QueueEntry& b) {
      return a.updated_at < b.updated_at;
    });
    std::vector<std::string> out;
    for (const QueueEntry& e : merged) out.push_back(e.key.subject);
    return out;
  }
  // Every PR 1..n merged through exactly one entry, and no entry left open.
  static void ExpectEachMergedOnceAndNothingOpen(const Outcome& o, int n) {
    auto open = o.store->queues().ListQueue(kQueue);
    ASSERT_TRUE(open.ok());
    EXPECT_TRUE(open->empty()) << open->size() << " entries still open\n" << o.logs;
    for (int i = 1; i <= n; ++i) {
      int merged = 0;
      for (const QueueEntry& e : EntriesOf(o, i)) merged += e.state == EntryState::kMerged;
      EXPECT_EQ(merged, 1) << Pr(i);
    }
  }
  // The queue's ledger: its actions of `kind` done (merges: one per merged entry; land_batch:
  // one per batch that landed).
  static int QueueDone(const Outcome& o, const std::string& kind = "merge") {
    auto rows = o.store->ledger().ListActions(kQueue);
    EXPECT_TRUE(rows.ok());
    int n = 0;
    for (const ActionRecord& r : rows.ok() ? *rows : std::vector<ActionRecord>{}) {
      n += r.key.kind == kind && r.state == ActionState::kDone;
    }
    return n;
  }
  static int QueueMerges(const Outcome& o) { return QueueDone(o, "merge"); }
  // Batches: every merged entry was in a batch, and landed at its batch's tested SHA, the SHA
  // of one land_batch done (so each batch landed once, and at what it tested). Returns the
  // number of batches that landed.
  static int ExpectEachMergedWithItsBatch(const Outcome& o, int n) {
    std::map<std::string, int> landed;  // tested SHA -> land_batch actions done at it
    auto rows = o.store->ledger().ListActions(kQueue);
    EXPECT_TRUE(rows.ok());
    for (const ActionRecord& r : rows.ok() ? *rows : std::vector<ActionRecord>{}) {
      if (r.key.kind == "land_batch" && r.state == ActionState::kDone) ++landed[r.key.head_sha];
    }
    for (const auto& [sha, count] : landed) EXPECT_EQ(count, 1) << sha << " landed twice";
    for (int i = 1; i <= n; ++i) {
      for (const QueueEntry& e : EntriesOf(o, i)) {
        if (e.state != EntryState::kMerged) continue;
        EXPECT_NE(e.batch, 0) << Pr(i);
        EXPECT_EQ(landed.count(e.tested_sha), 1u)
            << Pr(i) << " merged at " << e.tested_sha << ", which no land_batch landed";
      }
    }
    return static_cast<int>(landed.size());
  }
};

// 20 PRs ready at the same instant on a strict base: all merge, one tested state at a time.
TEST_F(MergeQueueE2eTest, TwentyPrsReadyAtOnceAllMergeEachOnATestedHead) {
  Outcome o = Play("queue_storm", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  ExpectEachMergedOnceAndNothingOpen(o, 20);
  EXPECT_EQ(QueueMerges(o), 20);
  EXPECT_EQ(MergeOrder(o).size(), 20u);
  ExpectNothingDeadOrLost(o);
}

// A push to a queued PR drops its entry; the new head re-enters once it is green and merges.
TEST_F(MergeQueueE2eTest, APushDropsTheEntryAndTheNewHeadReenters) {
  Outcome o = Play("queue_push", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  const std::vector<QueueEntry> entries = EntriesOf(o, 3);
  ASSERT_GE(entries.size(), 2u) << o.logs;
  EXPECT_EQ(entries.front().state, EntryState::kDropped);
  EXPECT_NE(entries.front().reason.find("pushed"), std::string::npos) << entries.front().reason;
  EXPECT_EQ(entries.back().state, EntryState::kMerged);
  EXPECT_NE(entries.back().key.head_sha, entries.front().key.head_sha);
  ExpectEachMergedOnceAndNothingOpen(o, 3);
  ExpectNothingDeadOrLost(o);
}

// Checks that never report on the head entry's tested SHA (#2) and a tested SHA that fails
// (#3): each is dropped with its reason and the queue goes on (#1 and #4 merge).
TEST_F(MergeQueueE2eTest, ChecksThatNeverReportOrFailDropTheEntryAndTheQueueGoesOn) {
  Outcome o = Play("queue_never_wedges", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  const std::vector<QueueEntry> hung = EntriesOf(o, 2);
  ASSERT_EQ(hung.size(), 1u) << o.logs;
  EXPECT_EQ(hung[0].state, EntryState::kDropped);
  EXPECT_NE(hung[0].reason.find("within checks_timeout (10s)"), std::string::npos)
      << hung[0].reason;
  const std::vector<QueueEntry> failed = EntriesOf(o, 3);
  ASSERT_EQ(failed.size(), 1u) << o.logs;
  EXPECT_EQ(failed[0].state, EntryState::kDropped);
  EXPECT_NE(failed[0].reason.find("failed on the tested head"), std::string::npos)
      << failed[0].reason;
  EXPECT_EQ(MergeOrder(o), (std::vector<std::string>{Pr(1), Pr(4)}));
  ExpectNothingDeadOrLost(o);
}

// A hotfix label (priority 10) goes before the PRs queued earlier, but not before the entry
// already under test.
TEST_F(MergeQueueE2eTest, APriorityLabelJumpsTheQueueButNotTheEntryUnderTest) {
  Outcome o = Play("queue_priority", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(MergeOrder(o), (std::vector<std::string>{Pr(1), Pr(2), Pr(4), Pr(3)})) << o.logs;
  ExpectEachMergedOnceAndNothingOpen(o, 4);
  ExpectNothingDeadOrLost(o);
}

// 20 PRs ready at once, in batches of 5 on an integration branch: all merge, each batch landed
// once at exactly the SHA its checks passed on (the simulator's no_untested_merges), with at
// most 28 CI runs where the serial queue_storm needs at least 36.
TEST_F(MergeQueueE2eTest, TwentyPrsInBatchesOfFiveMergeWithFewerCiRuns) {
  Outcome o = Play("queue_batch_storm", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  ExpectEachMergedOnceAndNothingOpen(o, 20);
  const int batches = ExpectEachMergedWithItsBatch(o, 20);
  EXPECT_GE(batches, 4);
  EXPECT_LT(batches, 20) << "batches of one are a serial queue";
  EXPECT_EQ(QueueMerges(o), 0) << "a batch lands by fast-forward, not PR merges";
  // Each PR's gatehouse/queue check run, written through the queue's ledger once per state:
  // queued, testing (at each tested SHA), merged.
  int queued = 0, merged = 0;
  auto rows = o.store->ledger().ListActions(kQueue);
  ASSERT_TRUE(rows.ok());
  for (const ActionRecord& r : *rows) {
    if (r.key.kind != "check_run" || r.state != ActionState::kDone) continue;
    queued += r.key.detail.rfind("gatehouse/queue:queued:", 0) == 0;
    merged += r.key.detail.rfind("gatehouse/queue:merged:", 0) == 0;
  }
  EXPECT_EQ(queued, 20);
  EXPECT_EQ(merged, 20);
  ExpectNothingDeadOrLost(o);
}

// #3 breaks in combination with the others (its own head is green): the first batch of four
// fails, bisection finds #3 and drops it with the reason, and the other seven merge.
TEST_F(MergeQueueE2eTest, ABadPrInABatchIsFoundByBisectionAndTheOthersMerge) {
  Outcome o = Play("queue_bisect", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  const std::vector<QueueEntry> bad = EntriesOf(o, 3);
  ASSERT_EQ(bad.size(), 1u) << o.logs;
  EXPECT_EQ(bad[0].state, EntryState::kDropped);
  EXPECT_NE(bad[0].reason.find("failed on the integration SHA"), std::string::npos)
      << bad[0].reason;
  for (int i : {1, 2, 4, 5, 6, 7, 8}) {
    const std::vector<QueueEntry> entries = EntriesOf(o, i);
    ASSERT_EQ(entries.size(), 1u) << Pr(i);
    EXPECT_EQ(entries[0].state, EntryState::kMerged) << Pr(i) << ": " << entries[0].reason;
  }
  ExpectEachMergedWithItsBatch(o, 8);
  // #3's batch failed and was split until #3 was tested alone: its last batch holds only it.
  int with_3 = 0;
  for (int i = 1; i <= 8; ++i) with_3 += EntriesOf(o, i)[0].batch == bad[0].batch;
  EXPECT_EQ(with_3, 1) << o.logs;
  auto audit = o.store->audit().ListAudit("acme/app#3", 0);
  ASSERT_TRUE(audit.ok());
  EXPECT_TRUE(std::any_of(audit->begin(), audit->end(), [](const AuditEntry& e) {
    return e.kind == "queue" && e.summary.find("bisecting") != std::string::npos;
  })) << "#3's audit tells of the split";
  ExpectNothingDeadOrLost(o);
}

// A hotfix PR that becomes ready while the first batch is under test: that batch lands whole
// (three members, #7 not among them), and #7 lands before a PR that entered the queue before it.
TEST_F(MergeQueueE2eTest, APriorityLabelJumpsTheQueueWithoutBreakingTheBatchUnderTest) {
  Outcome o = Play("queue_batch_priority", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  ExpectEachMergedOnceAndNothingOpen(o, 7);
  ExpectEachMergedWithItsBatch(o, 7);
  std::map<int, QueueEntry> entry;
  for (int i = 1; i <= 7; ++i) {
    const std::vector<QueueEntry> entries = EntriesOf(o, i);
    ASSERT_EQ(entries.size(), 1u) << Pr(i) << "\n" << o.logs;
    entry[i] = entries[0];
  }
  const std::vector<std::string> order = MergeOrder(o);
  ASSERT_EQ(order.size(), 7u);
  const int first = std::stoi(order[0].substr(order[0].find('#') + 1));
  const int64_t first_batch = entry[first].batch;
  int in_first = 0;
  for (const auto& [n, e] : entry) in_first += e.batch == first_batch;
  EXPECT_EQ(in_first, 3) << "the first batch landed whole\n" << o.logs;
  EXPECT_NE(entry[7].batch, first_batch) << "the hotfix arrived while it was under test";
  EXPECT_GT(entry[7].entered_at, entry[first].entered_at);
  // Someone who entered before #7 merged after it.
  auto at = [&](int n) { return std::find(order.begin(), order.end(), Pr(n)) - order.begin(); };
  bool jumped = false;
  for (int i = 1; i <= 6; ++i) {
    jumped |= entry[i].entered_at < entry[7].entered_at && at(i) > at(7) &&
              entry[i].batch != entry[7].batch;
  }
  EXPECT_TRUE(jumped) << "the hotfix did not jump anyone\n" << o.logs;
  ExpectNothingDeadOrLost(o);
}

// The commands, with the merge actions at `suggest`: `merge` queues #1 and #4 anyway (each entry
// admitted by its comment) and they merge; `queue` on #2 is refused with a reply naming the
// autonomy, and a `merge` by someone without write access does nothing; `dequeue` takes the
// hanging #3 out with the reason, and the queue goes on.
TEST_F(MergeQueueE2eTest, CommandsQueueDequeueMergeAndRefreshByThoseWithWriteAccess) {
  Outcome o = Play("queue_commands", Args());
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  for (int n : {1, 4}) {
    const std::vector<QueueEntry> entries = EntriesOf(o, n);
    ASSERT_EQ(entries.size(), 1u) << Pr(n) << "\n" << o.logs;
    EXPECT_EQ(entries[0].state, EntryState::kMerged);
    EXPECT_NE(entries[0].key.admitted_by, 0) << Pr(n) << " entered by its merge command";
  }
  EXPECT_TRUE(EntriesOf(o, 2).empty()) << "queue under suggest, and eve's merge, queue nothing";
  const std::vector<QueueEntry> dequeued = EntriesOf(o, 3);
  ASSERT_EQ(dequeued.size(), 1u) << o.logs;
  EXPECT_EQ(dequeued[0].state, EntryState::kDropped);
  EXPECT_NE(dequeued[0].reason.find("dequeued by @maint"), std::string::npos)
      << dequeued[0].reason;
  EXPECT_EQ(QueueMerges(o), 2);
  // #2's refused `queue` has one reply, saying why.
  auto rows = o.store->ledger().ListActions(Pr(2));
  ASSERT_TRUE(rows.ok());
  int replies = 0;
  for (const ActionRecord& r : *rows) {
    replies += r.key.kind == "comment" && r.key.detail.starts_with("reply:") &&
               r.state == ActionState::kDone;
  }
  EXPECT_EQ(replies, 1) << o.logs;
  ExpectNothingDeadOrLost(o);
}

// SIGKILL right after a GitHub call of `kind` returned, before the ledger recorded it: the
// second gatehouse resumes the queue from the ledger, reconciling the open intent, with no
// duplicate effect and no entry lost.
class MergeQueueCrashTest : public MergeQueueE2eTest,
                            public ::testing::WithParamInterface<std::string> {};

TEST_P(MergeQueueCrashTest, AKillMidQueueResumesWithoutADuplicateOrALostEntry) {
  Outcome o = Play("queue_crash", Args(), GetParam());
  EXPECT_VERDICT_OK(o);
  EXPECT_EQ(o.first_serve_exit, 128 + SIGKILL) << o.logs;
  EXPECT_EQ(o.serves, 2);
  ASSERT_TRUE(o.store);
  ExpectEachMergedOnceAndNothingOpen(o, 5);
  for (int i = 1; i <= 5; ++i) {
    const std::vector<QueueEntry> entries = EntriesOf(o, i);
    EXPECT_EQ(entries.size(), 1u) << Pr(i) << ": the kill cost the PR its place in the queue";
  }
  EXPECT_EQ(QueueMerges(o), 5);
  ExpectNothingDeadOrLost(o);
}

INSTANTIATE_TEST_SUITE_P(BetweenUpdateAndMergeAndBetweenMergeAndRecord, MergeQueueCrashTest,
                         ::testing::Values("update_branch", "merge"));

// The same with batches: SIGKILL right after GitHub fast-forwarded the base branch to the
// batch's tested SHA, before the ledger recorded it. The next gatehouse finds the base at that
// SHA (reconciliation) and records every member merged, with no second landing.
TEST_F(MergeQueueE2eTest, AKillAfterABatchLandedResumesWithoutADuplicateOrALostEntry) {
  Outcome o = Play("queue_batch_crash", Args(), "land_batch");
  EXPECT_VERDICT_OK(o);
  EXPECT_EQ(o.first_serve_exit, 128 + SIGKILL) << o.logs;
  EXPECT_EQ(o.serves, 2);
  ASSERT_TRUE(o.store);
  ExpectEachMergedOnceAndNothingOpen(o, 5);
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(EntriesOf(o, i).size(), 1u) << Pr(i) << ": the kill cost the PR its place";
  }
  ExpectEachMergedWithItsBatch(o, 5);
  ExpectNothingDeadOrLost(o);
}

}  // namespace
}  // namespace gatehouse
