// Test support for the ReviewRuns contract suites (store/review_*_contract_test.cc): a fresh
// store per test with the PR's work item claimed, and helpers that request runs and claim their
// work items the way the engine does.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse::testing {

inline const Time kReviewT0 = FromMicros(1'800'000'000'000'000);

class ReviewRunsTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }
  ReviewRuns& reviews() { return store_->reviews(); }
  WorkQueue& work() { return store_->work(); }

  // Signals `key` at `now` and claims it (and only it: nothing else may be due before it).
  Lease SignalAndClaim(const std::string& key, Time now,
                       Duration lease = std::chrono::seconds(30)) {
    Signal s{key, "pushed", {}};
    EXPECT_TRUE(work().Enqueue({&s, 1}, now, Durability::kRecoverable).ok());
    return ClaimNext(key, now, lease);
  }
  // Claims one item at `now` and checks that it is `key`.
  Lease ClaimNext(const std::string& key, Time now, Duration lease = std::chrono::seconds(30)) {
    auto r = work().Claim("w-" + key, 1, lease, now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok() || r->size() != 1u) {
      ADD_FAILURE() << "nothing claimable at the time for " << key;
      return Lease{};
    }
    EXPECT_EQ((*r)[0].key, key);
    return (*r)[0];
  }
  // Requests a run under the PR `subject`'s current fence. The PR's item is claimed the first
  // time (so claim every PR before leaving review items pending: a claim takes the earliest).
  ReviewRuns::Requested Request(const ReviewRunKey& key, Time now) {
    auto r = reviews().RequestRun(key, key.subject, PrFence(key.subject, now), now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ReviewRuns::Requested{};
  }
  int64_t PrFence(const std::string& subject, Time now) {
    auto it = pr_fences_.find(subject);
    if (it != pr_fences_.end()) return it->second;
    const int64_t fence = SignalAndClaim(subject, now, std::chrono::hours(24)).fence;
    pr_fences_[subject] = fence;
    return fence;
  }
  // Requests the run and claims its work item: the run, and the fence its writes need.
  std::pair<ReviewRun, int64_t> RequestAndClaim(const ReviewRunKey& key, Time now,
                                                Duration lease = std::chrono::seconds(30)) {
    ReviewRun run = Request(key, now).run;
    return {run, ClaimNext(ReviewWorkKey(key.subject, key.role), now, lease).fence};
  }
  ReviewRun Run(int64_t id) {
    auto r = reviews().GetRun(id);
    EXPECT_TRUE(r.ok() && r->has_value()) << "run " << id;
    return r.ok() && r->has_value() ? **r : ReviewRun{};
  }
  std::map<std::string, int> Busy(Time now) {
    auto r = reviews().ListReviewers(now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::map<std::string, int> out;
    if (r.ok()) {
      for (const ReviewerState& s : *r) out[s.name] = s.busy;
    }
    return out;
  }
  Assignment Assign(int64_t id, const std::vector<ReviewerSlotSpec>& candidates, int64_t fence,
                    Time now) {
    auto r = reviews().AssignAndClaimSlot(id, candidates, fence, now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Assignment{};
  }

  TempDir dir_;
  StorePtr store_;
  std::map<std::string, int64_t> pr_fences_;
};

}  // namespace gatehouse::testing
