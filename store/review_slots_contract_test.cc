// The assignment part of the ReviewRuns contract (store/review_runs.h): affinity by the latest
// recorded assignment, the most free slots otherwise, pause, and `concurrency` enforced by slots
// that free themselves when their holder's lease runs out — also across store instances.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "store/review_runs_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::kReviewT0;
using ReviewSlotsContractTest = testing::ReviewRunsTest;

using testing::kT0;
const std::vector<ReviewerSlotSpec> kPair{{"alice", 2}, {"bob", 2}};
const std::vector<ReviewerSlotSpec> kAliceOnly{{"alice", 2}};

ReviewRunKey Pr(int number, const std::string& head = "sha1", const std::string& trigger = "auto") {
  return ReviewRunKey{"acme/app#" + std::to_string(number), "security", head, trigger};
}

void ExpectAssignment(const Assignment& a, Assignment::Kind kind, const std::string& reviewer,
                      bool affinity) {
  EXPECT_EQ(a.kind, kind);
  EXPECT_EQ(a.reviewer, reviewer);
  EXPECT_EQ(a.affinity, affinity);
}

// The latest recorded assignment of (PR, role) wins — also one whose run has not finished, and
// even over a reviewer with more free slots; a paused one is passed over, and then the
// fallback's assignment is the latest.
TEST_P(ReviewSlotsContractTest, AffinityFollowsTheLatestAssignmentWhileNotPaused) {
  for (int pr = 1; pr <= 4; ++pr) PrFence("acme/app#" + std::to_string(pr), kT0);
  auto [other, other_fence] = RequestAndClaim(Pr(2), kT0);
  ExpectAssignment(Assign(other.id, kPair, other_fence, kT0), Assignment::Kind::kAssigned, "alice",
                   false);  // a tie: file order
  auto [first, fence] = RequestAndClaim(Pr(1), kT0);
  ExpectAssignment(Assign(first.id, kPair, fence, kT0 + seconds(1)), Assignment::Kind::kAssigned,
                   "bob", false);  // the most free slots

  // A second run of PR 1 while the first still runs: it waits for bob, though alice is free.
  ReviewRun second = Request(Pr(1, "sha2"), kT0 + seconds(2)).run;
  ExpectAssignment(Assign(second.id, kPair, fence, kT0 + seconds(2)), Assignment::Kind::kAtCapacity,
                   "bob", true);
  ReviewRun waiting = Run(second.id);
  EXPECT_EQ(waiting.state, RunState::kQueued);
  EXPECT_EQ(waiting.reviewer, "") << "a choice no slot confirmed is not recorded";
  EXPECT_FALSE(waiting.assigned_at.has_value());
  EXPECT_EQ(waiting.starts, 0);

  ASSERT_TRUE(reviews().RecordResult(first.id, "{}", fence, kT0 + seconds(3)).ok());
  auto [fourth, fourth_fence] = RequestAndClaim(Pr(4), kT0 + seconds(3));
  ExpectAssignment(Assign(fourth.id, kPair, fourth_fence, kT0 + seconds(3)),
                   Assignment::Kind::kAssigned, "bob", false);
  // alice and bob have one free slot each: file order would say alice, affinity says bob.
  ExpectAssignment(Assign(second.id, kPair, fence, kT0 + seconds(4)), Assignment::Kind::kAssigned,
                   "bob", true);
  ASSERT_TRUE(reviews().RecordResult(second.id, "{}", fence, kT0 + seconds(5)).ok());

  ASSERT_TRUE(
      reviews()
          .EnsureReviewers(
              std::vector<std::pair<std::string, bool>>{{"alice", false}, {"bob", false}}, kT0)
          .ok());
  ASSERT_TRUE(reviews().SetPaused("bob", true, kT0 + seconds(6)).ok());
  ReviewRun third = Request(Pr(1, "sha2", "comment:77"), kT0 + seconds(6)).run;
  ExpectAssignment(Assign(third.id, kPair, fence, kT0 + seconds(6)), Assignment::Kind::kAssigned,
                   "alice", false);
  ASSERT_TRUE(reviews().RecordResult(third.id, "{}", fence, kT0 + seconds(7)).ok());
  ASSERT_TRUE(reviews().SetPaused("bob", false, kT0 + seconds(8)).ok());
  ReviewRun fifth = Request(Pr(1, "sha3"), kT0 + seconds(8)).run;
  ExpectAssignment(Assign(fifth.id, kPair, fence, kT0 + seconds(8)), Assignment::Kind::kAssigned,
                   "alice", true);
}

TEST_P(ReviewSlotsContractTest, WhenEveryCandidateIsPausedNothingIsWritten) {
  ASSERT_TRUE(
      reviews()
          .EnsureReviewers(
              std::vector<std::pair<std::string, bool>>{{"bob", false}, {"alice", true}}, kT0)
          .ok());
  ASSERT_TRUE(reviews().SetPaused("bob", true, kT0 + seconds(1)).ok());
  auto [run, fence] = RequestAndClaim(Pr(1), kT0);
  ExpectAssignment(Assign(run.id, kPair, fence, kT0 + seconds(2)), Assignment::Kind::kPaused, "",
                   false);
  ReviewRun same = Run(run.id);
  EXPECT_EQ(same.state, RunState::kQueued);
  EXPECT_EQ(same.reviewer, "");
  EXPECT_FALSE(same.assigned_at.has_value());
  EXPECT_EQ(same.updated_at, kT0);

  // An operator's pause survives the reviewers file being applied again.
  ASSERT_TRUE(
      reviews()
          .EnsureReviewers(
              std::vector<std::pair<std::string, bool>>{{"alice", false}, {"bob", false}}, kT0)
          .ok());
  auto listed = reviews().ListReviewers(kT0 + seconds(2));
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].name, "alice");
  EXPECT_TRUE((*listed)[0].paused);
  EXPECT_EQ((*listed)[1].name, "bob");
  EXPECT_TRUE((*listed)[1].paused);
  EXPECT_EQ((*listed)[1].updated_at, kT0 + seconds(1));
  EXPECT_EQ(reviews().SetPaused("carol", true, kT0).code(), StatusCode::kNotFound);

  ASSERT_TRUE(reviews().SetPaused("alice", false, kT0 + seconds(3)).ok());
  ExpectAssignment(Assign(run.id, kPair, fence, kT0 + seconds(3)), Assignment::Kind::kAssigned,
                   "alice", false);
}

// concurrency 2: the third claim waits; a release frees a slot, and so does a holder whose lease
// ran out, without any release.
TEST_P(ReviewSlotsContractTest, ConcurrencyIsEnforcedAndExpiredHoldersFreeTheirSlots) {
  for (int pr = 1; pr <= 4; ++pr) PrFence("acme/app#" + std::to_string(pr), kT0);
  auto [r1, f1] = RequestAndClaim(Pr(1), kT0 + seconds(1), seconds(30));
  auto [r2, f2] = RequestAndClaim(Pr(2), kT0 + seconds(2), seconds(300));
  auto [r3, f3] = RequestAndClaim(Pr(3), kT0 + seconds(3), seconds(300));
  auto [r4, f4] = RequestAndClaim(Pr(4), kT0 + seconds(4), seconds(300));
  EXPECT_EQ(Assign(r1.id, kAliceOnly, f1, kT0 + seconds(4)).kind, Assignment::Kind::kAssigned);
  EXPECT_EQ(Assign(r2.id, kAliceOnly, f2, kT0 + seconds(4)).kind, Assignment::Kind::kAssigned);
  ExpectAssignment(Assign(r3.id, kAliceOnly, f3, kT0 + seconds(4)), Assignment::Kind::kAtCapacity,
                   "alice", false);
  EXPECT_EQ(Run(r3.id).state, RunState::kQueued);
  ASSERT_TRUE(reviews()
                  .EnsureReviewers(std::vector<std::pair<std::string, bool>>{{"alice", false}}, kT0)
                  .ok());
  EXPECT_EQ(Busy(kT0 + seconds(4))["alice"], 2);

  ASSERT_TRUE(reviews().ReleaseSlot("acme/app#2/review/security", f2, kT0 + seconds(5)).ok());
  EXPECT_TRUE(reviews().ReleaseSlot("acme/app#2/review/security", f2, kT0 + seconds(5)).ok())
      << "releasing none is fine";
  EXPECT_EQ(Busy(kT0 + seconds(5))["alice"], 1);
  EXPECT_EQ(Assign(r3.id, kAliceOnly, f3, kT0 + seconds(5)).kind, Assignment::Kind::kAssigned);
  EXPECT_EQ(Assign(r3.id, kAliceOnly, f3, kT0 + seconds(5)).kind, Assignment::Kind::kAssigned)
      << "idempotent under the same fence";
  EXPECT_EQ(Run(r3.id).starts, 1);
  EXPECT_EQ(Busy(kT0 + seconds(5))["alice"], 2);
  EXPECT_EQ(Assign(r4.id, kAliceOnly, f4, kT0 + seconds(6)).kind, Assignment::Kind::kAtCapacity);

  // r1's lease ended at kT0+31s and nobody renewed it: its slot is free.
  EXPECT_EQ(Busy(kT0 + seconds(31))["alice"], 1);
  EXPECT_EQ(Assign(r4.id, kAliceOnly, f4, kT0 + seconds(40)).kind, Assignment::Kind::kAssigned);
  EXPECT_EQ(Busy(kT0 + seconds(40))["alice"], 2);
}

// A holder that crashed: its item is reclaimed with a higher fence, and the run starts again on
// its reviewer, holding one slot, not two.
TEST_P(ReviewSlotsContractTest, AReclaimedRunStartsAgainOnOneSlot) {
  auto [run, stale] = RequestAndClaim(Pr(1), kT0);
  ASSERT_EQ(Assign(run.id, kPair, stale, kT0).kind, Assignment::Kind::kAssigned);
  const int64_t fresh = ClaimNext("acme/app#1/review/security", kT0 + seconds(31)).fence;
  ExpectAssignment(Assign(run.id, kPair, fresh, kT0 + seconds(32)), Assignment::Kind::kAssigned,
                   "alice", true);
  ReviewRun again = Run(run.id);
  EXPECT_EQ(again.state, RunState::kRunning);
  EXPECT_EQ(again.starts, 2);
  EXPECT_EQ(again.assigned_fence, fresh);
  ASSERT_TRUE(reviews()
                  .EnsureReviewers(std::vector<std::pair<std::string, bool>>{{"alice", false}}, kT0)
                  .ok());
  EXPECT_EQ(Busy(kT0 + seconds(32))["alice"], 1);
}

TEST_P(ReviewSlotsContractTest, BadCandidatesAreRefused) {
  auto [run, fence] = RequestAndClaim(Pr(1), kT0);
  EXPECT_EQ(reviews().AssignAndClaimSlot(run.id, {}, fence, kT0).status().code(),
            StatusCode::kInvalidArgument);
  const std::vector<ReviewerSlotSpec> zero{{"alice", 0}};
  EXPECT_EQ(reviews().AssignAndClaimSlot(run.id, zero, fence, kT0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(reviews().AssignAndClaimSlot(run.id + 1, kPair, fence, kT0).status().code(),
            StatusCode::kNotFound);
}

// Eight stores on one database (processes) assign eight PRs' runs at once: two slots, two runs.
TEST_P(ReviewSlotsContractTest, CapacityHoldsAcrossStoreInstances) {
  constexpr int kPrs = 8;
  for (int pr = 1; pr <= kPrs; ++pr) PrFence("acme/app#" + std::to_string(pr), kT0);
  std::vector<std::pair<ReviewRun, int64_t>> runs;
  for (int pr = 1; pr <= kPrs; ++pr) runs.push_back(RequestAndClaim(Pr(pr), kT0));
  std::vector<StorePtr> stores;
  for (int i = 0; i < kPrs; ++i) stores.push_back(GetParam().open_again(dir_));
  std::atomic<int> assigned{0}, at_capacity{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kPrs; ++i) {
    threads.emplace_back([&, i] {
      auto a = stores[i]->reviews().AssignAndClaimSlot(runs[i].first.id, kAliceOnly, runs[i].second,
                                                       kT0 + seconds(1));
      if (!a.ok()) {
        failed.fetch_add(1);
      } else if (a->kind == Assignment::Kind::kAssigned) {
        assigned.fetch_add(1);
      } else if (a->kind == Assignment::Kind::kAtCapacity) {
        at_capacity.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(assigned.load(), 2);
  EXPECT_EQ(at_capacity.load(), kPrs - 2);
  ASSERT_TRUE(reviews()
                  .EnsureReviewers(std::vector<std::pair<std::string, bool>>{{"alice", false}}, kT0)
                  .ok());
  EXPECT_EQ(Busy(kT0 + seconds(1))["alice"], 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReviewSlotsContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
