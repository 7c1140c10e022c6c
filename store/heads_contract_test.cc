// Head occurrences as part of the Store contract (docs/ACTIONS.md): a PR's heads form a
// sequence; each new occurrence of a SHA is numbered after that SHA's earlier ones; only the
// holder of the PR's fence can start one; and ledger keys of different occurrences of one SHA
// are different actions.
#include <gtest/gtest.h>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;
constexpr char kPr[] = "acme/app#1";

class HeadsContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    store_ = GetParam().open_fresh(dir_);
    fence_ = Claim(kT0);
  }
  // Claims the PR's work item (after the current lease ran out) and returns the new fence.
  int64_t Claim(Time now) {
    Signal s{kPr, "pushed", {}};
    EXPECT_TRUE(store_->work().Enqueue({&s, 1}, now, Durability::kRecoverable).ok());
    auto leases = store_->work().Claim("w", 1, seconds(30), now);
    EXPECT_TRUE(leases.ok() && leases->size() == 1u);
    return leases.ok() && !leases->empty() ? (*leases)[0].fence : 0;
  }
  HeadOccurrence Start(const std::string& sha, Time github_at, Time now = kT0) {
    auto r = store_->ledger().StartHeadOccurrence(kPr, sha, github_at, fence_, now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : HeadOccurrence{};
  }
  std::optional<HeadOccurrence> Latest() {
    auto r = store_->ledger().LatestHeadOccurrence(kPr);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }

  TempDir dir_;
  StorePtr store_;
  int64_t fence_ = 0;
};

TEST_P(HeadsContractTest, NoOccurrenceUntilOneIsStarted) {
  EXPECT_FALSE(Latest().has_value());
  auto other = store_->ledger().LatestHeadOccurrence("acme/app#2");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST_P(HeadsContractTest, ASequenceOfHeadsNumbersEachShaByItsOwnEarlierOccurrences) {
  const HeadOccurrence a1 = Start("aaa", kT0, kT0 + seconds(1));
  EXPECT_EQ(a1.subject, kPr);
  EXPECT_EQ(a1.head_sha, "aaa");
  EXPECT_EQ(a1.occurrence, 1);
  EXPECT_EQ(a1.github_at, kT0);
  EXPECT_EQ(a1.observed_at, kT0 + seconds(1));
  EXPECT_EQ(Start("xxx", kT0 + seconds(2)).occurrence, 1);
  EXPECT_EQ(Start("bbb", kT0 + seconds(3)).occurrence, 1);
  const HeadOccurrence a2 = Start("aaa", kT0 + seconds(4), kT0 + seconds(5));
  EXPECT_EQ(a2.occurrence, 2);
  EXPECT_EQ(Start("xxx", kT0 + seconds(6)).occurrence, 2);
  EXPECT_EQ(Start("aaa", kT0 + seconds(7)).occurrence, 3);

  auto latest = Latest();
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->head_sha, "aaa");
  EXPECT_EQ(latest->occurrence, 3);
  EXPECT_EQ(latest->github_at, kT0 + seconds(7));

  // Another PR's heads are its own.
  Signal s{"acme/app#2", "pushed", {}};
  ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kRecoverable).ok());
  auto leases = store_->work().Claim("w", 1, seconds(30), kT0);
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  auto other =
      store_->ledger().StartHeadOccurrence("acme/app#2", "aaa", kT0, (*leases)[0].fence, kT0);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(other->occurrence, 1);
}

TEST_P(HeadsContractTest, OnlyTheCurrentFenceStartsAnOccurrence) {
  Start("aaa", kT0);
  const int64_t stale = fence_;
  const int64_t fresh = Claim(kT0 + seconds(31));
  ASSERT_GT(fresh, stale);
  auto r = store_->ledger().StartHeadOccurrence(kPr, "xxx", kT0, stale, kT0 + seconds(31));
  EXPECT_EQ(r.status().code(), StatusCode::kFenceLost);
  auto latest = Latest();
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->head_sha, "aaa") << "a rejected start writes nothing";
  fence_ = fresh;
  EXPECT_EQ(Start("xxx", kT0).occurrence, 1);
}

TEST_P(HeadsContractTest, BadInputIsRefused) {
  EXPECT_EQ(store_->ledger().StartHeadOccurrence(kPr, "", kT0, fence_, kT0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->ledger().StartHeadOccurrence("", "aaa", kT0, fence_, kT0).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_P(HeadsContractTest, OccurrencesSurviveReopen) {
  Start("aaa", kT0);
  Start("bbb", kT0 + seconds(1));
  Start("aaa", kT0 + seconds(2));
  store_.reset();
  store_ = GetParam().open_again(dir_);
  auto latest = Latest();
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->head_sha, "aaa");
  EXPECT_EQ(latest->occurrence, 2);
  EXPECT_EQ(Start("bbb", kT0 + seconds(3)).occurrence, 2);
}

// The ledger keys of two occurrences of one SHA are two actions: a superseded merge of the
// first never blocks the second, and a done one is not "already done" for it.
TEST_P(HeadsContractTest, LedgerKeysOfDifferentOccurrencesAreDifferentActions) {
  ActionKey first{kPr, "merge", "aaa", "squash", 1};
  auto r1 = store_->ledger().RecordIntent(first, fence_, kT0);
  ASSERT_TRUE(r1.ok());
  ASSERT_EQ(r1->kind, IntentResult::Kind::kRecorded);
  ASSERT_TRUE(store_->ledger()
                  .RecordOutcome(r1->record.id, fence_, ActionState::kSuperseded, "409", kT0)
                  .ok());
  ActionKey second = first;
  second.head_occurrence = 2;
  auto r2 = store_->ledger().RecordIntent(second, fence_, kT0);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->kind, IntentResult::Kind::kRecorded);
  EXPECT_NE(r2->record.id, r1->record.id);
  EXPECT_EQ(r2->record.key.head_occurrence, 2);
  auto again = store_->ledger().RecordIntent(first, fence_, kT0);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->kind, IntentResult::Kind::kSuperseded);

  auto list = store_->ledger().ListActions(kPr);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].key.head_occurrence, 1);
  EXPECT_EQ((*list)[1].key.head_occurrence, 2);

  ActionKey zero = first;
  zero.head_occurrence = 0;
  EXPECT_EQ(store_->ledger().RecordIntent(zero, fence_, kT0).status().code(),
            StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Backends, HeadsContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
