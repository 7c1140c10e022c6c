// The action-ledger part of the Store contract (DESIGN.md §3): intents are fenced and
// durable before the call; a done key is never acted on twice; an intent without an outcome
// asks for reconciliation; a moved head is a new key.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;
const ActionKey kMerge{"acme/app#1", "merge", "sha1", ""};

class LedgerContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    store_ = GetParam().open_fresh(dir_);
    Signal s{"acme/app#1", "pushed", {}};
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kRecoverable).ok());
    auto leases = store_->work().Claim("w1", 1, seconds(30), kT0);
    ASSERT_TRUE(leases.ok() && leases->size() == 1u);
    fence_ = (*leases)[0].fence;
  }
  IntentResult Intent(const ActionKey& key, int64_t fence) {
    auto r = store_->ledger().RecordIntent(key, fence, kT0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : IntentResult{};
  }
  // Lets the lease run out and reclaims the item under a new fence.
  int64_t Reclaim() {
    auto leases = store_->work().Claim("w2", 1, seconds(30), kT0 + seconds(31));
    EXPECT_TRUE(leases.ok() && leases->size() == 1u);
    return leases.ok() && !leases->empty() ? (*leases)[0].fence : 0;
  }

  TempDir dir_;
  StorePtr store_;
  int64_t fence_ = 0;
};

TEST_P(LedgerContractTest, AnIntentThenDoneIsNeverRepeated) {
  IntentResult first = Intent(kMerge, fence_);
  ASSERT_EQ(first.kind, IntentResult::Kind::kRecorded);
  EXPECT_EQ(first.record.state, ActionState::kIntent);
  EXPECT_EQ(first.record.attempts, 1);
  ASSERT_TRUE(store_->ledger()
                  .RecordOutcome(first.record.id, fence_, ActionState::kDone, "merged", kT0)
                  .ok());
  IntentResult again = Intent(kMerge, fence_);
  EXPECT_EQ(again.kind, IntentResult::Kind::kAlreadyDone);
  EXPECT_EQ(again.record.result, "merged");
  auto list = store_->ledger().ListActions("acme/app#1");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].state, ActionState::kDone);
}

TEST_P(LedgerContractTest, OpenIntentsAreListedAcrossSubjectsOldestFirst) {
  const ActionKey label{"acme/app#1", "label", "sha1", "ready"};
  const ActionKey comment{"acme/app#1", "comment", "sha1", "summary"};
  IntentResult merge = Intent(kMerge, fence_);
  IntentResult l = Intent(label, fence_);
  IntentResult c = Intent(comment, fence_);
  ASSERT_TRUE(store_->ledger()
                  .RecordOutcome(l.record.id, fence_, ActionState::kDone, "labelled", kT0)
                  .ok());
  auto open = store_->ledger().ListOpenIntents(10);
  ASSERT_TRUE(open.ok()) << open.status().ToString();
  ASSERT_EQ(open->size(), 2u);
  EXPECT_EQ((*open)[0].id, merge.record.id);
  EXPECT_EQ((*open)[1].id, c.record.id);
  EXPECT_EQ((*open)[1].key, comment);
  auto one = store_->ledger().ListOpenIntents(1);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].id, merge.record.id);
}

TEST_P(LedgerContractTest, ActionsAreCountedByKindAndState) {
  const ActionKey label{"acme/app#1", "label", "sha1", "ready"};
  const ActionKey label2{"acme/app#1", "label", "sha1", "size/S"};
  const ActionKey comment{"acme/app#1", "comment", "sha1", "summary"};
  Intent(kMerge, fence_);
  IntentResult l = Intent(label, fence_);
  IntentResult l2 = Intent(label2, fence_);
  Intent(comment, fence_);
  ASSERT_TRUE(
      store_->ledger().RecordOutcome(l.record.id, fence_, ActionState::kDone, "ok", kT0).ok());
  ASSERT_TRUE(
      store_->ledger().RecordOutcome(l2.record.id, fence_, ActionState::kDone, "ok", kT0).ok());
  auto counts = store_->ledger().CountActions();
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  std::map<std::pair<std::string, ActionState>, int64_t> got;
  for (const auto& c : *counts) got[{c.kind, c.state}] += c.count;
  const std::map<std::pair<std::string, ActionState>, int64_t> want = {
      {{"label", ActionState::kDone}, 2},
      {{kMerge.kind, ActionState::kIntent}, 1},
      {{"comment", ActionState::kIntent}, 1}};
  EXPECT_EQ(got, want);
}

TEST_P(LedgerContractTest, AStaleFenceCanRecordNothing) {
  const int64_t stale = fence_;
  const int64_t fresh = Reclaim();
  ASSERT_GT(fresh, stale);
  auto r = store_->ledger().RecordIntent(kMerge, stale, kT0);
  EXPECT_EQ(r.status().code(), StatusCode::kFenceLost);
  auto list = store_->ledger().ListActions("acme/app#1");
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty()) << "a rejected intent writes nothing";
  IntentResult ok = Intent(kMerge, fresh);
  EXPECT_EQ(ok.kind, IntentResult::Kind::kRecorded);
  EXPECT_EQ(store_->ledger().RecordOutcome(ok.record.id, stale, ActionState::kDone, "", kT0).code(),
            StatusCode::kFenceLost);
}

// A crash between the call and its outcome leaves an open intent: the next holder is told to
// reconcile, records what GitHub says, and only retries after a failure.
TEST_P(LedgerContractTest, AnOpenIntentAsksTheNextHolderToReconcile) {
  IntentResult first = Intent(kMerge, fence_);
  ASSERT_EQ(first.kind, IntentResult::Kind::kRecorded);
  const int64_t fresh = Reclaim();
  IntentResult second = Intent(kMerge, fresh);
  ASSERT_EQ(second.kind, IntentResult::Kind::kNeedsReconcile);
  EXPECT_EQ(second.record.id, first.record.id);
  // GitHub says the merge did not happen: record that, then the retry is a new attempt.
  ASSERT_TRUE(store_->ledger()
                  .RecordOutcome(second.record.id, fresh, ActionState::kFailed,
                                 "reconciled: not merged", kT0)
                  .ok());
  IntentResult retry = Intent(kMerge, fresh);
  EXPECT_EQ(retry.kind, IntentResult::Kind::kRecorded);
  EXPECT_EQ(retry.record.attempts, 2);
  EXPECT_EQ(retry.record.fence, fresh);
}

TEST_P(LedgerContractTest, SupersededStaysSupersededAndANewHeadIsANewKey) {
  IntentResult first = Intent(kMerge, fence_);
  ASSERT_TRUE(
      store_->ledger()
          .RecordOutcome(first.record.id, fence_, ActionState::kSuperseded, "409 head moved", kT0)
          .ok());
  EXPECT_EQ(Intent(kMerge, fence_).kind, IntentResult::Kind::kSuperseded);
  ActionKey moved = kMerge;
  moved.head_sha = "sha2";
  EXPECT_EQ(Intent(moved, fence_).kind, IntentResult::Kind::kRecorded);
  ActionKey label{"acme/app#1", "label", "sha2", "ready-to-merge"};
  ActionKey other_label{"acme/app#1", "label", "sha2", "needs-human-review"};
  EXPECT_EQ(Intent(label, fence_).kind, IntentResult::Kind::kRecorded);
  EXPECT_EQ(Intent(other_label, fence_).kind, IntentResult::Kind::kRecorded)
      << "the detail is part of the key";
  auto list = store_->ledger().ListActions("acme/app#1");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 4u);
}

TEST_P(LedgerContractTest, BadInputIsRefused) {
  EXPECT_EQ(store_->ledger()
                .RecordIntent(ActionKey{"acme/app#1", "", "sha1", ""}, fence_, kT0)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ledger().RecordOutcome(999, fence_, ActionState::kDone, "", kT0).code(),
            StatusCode::kNotFound);
  IntentResult first = Intent(kMerge, fence_);
  EXPECT_EQ(
      store_->ledger().RecordOutcome(first.record.id, fence_, ActionState::kIntent, "", kT0).code(),
      StatusCode::kInvalidArgument);
  ASSERT_TRUE(
      store_->ledger().RecordOutcome(first.record.id, fence_, ActionState::kDone, "", kT0).ok());
  EXPECT_EQ(
      store_->ledger().RecordOutcome(first.record.id, fence_, ActionState::kFailed, "", kT0).code(),
      StatusCode::kFailedPrecondition)
      << "an outcome is recorded once";
}

TEST_P(LedgerContractTest, IntentsSurviveReopen) {
  IntentResult first = Intent(kMerge, fence_);
  store_.reset();
  store_ = GetParam().open_again(dir_);
  auto list = store_->ledger().ListActions("acme/app#1");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].state, ActionState::kIntent);
  EXPECT_EQ((*list)[0].id, first.record.id);
}

INSTANTIATE_TEST_SUITE_P(Backends, LedgerContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
