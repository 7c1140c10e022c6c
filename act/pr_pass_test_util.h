// PassFixture: a real SqliteStore and the in-process simulator (sim/in_process_github_test_util.h)
// on one SimClock, with helpers to make a ready pull request, run one pass over it under a
// fresh claim, and read back the App's effects and the audit log. For tests of act/pr_pass.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "act/pr_pass.h"
#include "sim/in_process_github_test_util.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"

namespace gatehouse::act::pass_testing {

using std::chrono::hours;
using std::chrono::seconds;

inline const Time kStart = Time(seconds(1796040000));  // 2026-11-30T12:00:00Z
inline constexpr int64_t kInstallation = 7;
inline constexpr char kFullName[] = "acme/app";
inline constexpr char kSubject[] = "acme/app#1";
inline constexpr char kAppWho[] = "installation:7";

inline constexpr char kAutoPolicy[] = R"(version: 1
rules:
  required_checks:
    checks: [ci]
  approvals:
    min: 1
actions:
  autonomy: auto
)";
// kAutoPolicy with merges observed only: everything else acts, nothing merges.
inline const std::string kNoMergePolicy =
    std::string(kAutoPolicy) + "  classes: {merge: observe}\n";

class PassFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    auto store = OpenSqliteStore(dir_.File("gatehouse.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  // A repository with `files` (path → content) and `options`, known to the store with its
  // installation, and one open PR that is ready: CI green, approved.
  void ReadyPull(std::map<std::string, std::string> files, bool known = true,
                 sim::RepoOptions options = {}) {
    ASSERT_TRUE(github_.model().CreateRepo("acme", "app", kInstallation, files, options).ok());
    sim::NewPull spec;
    spec.author = "alice";
    auto pr = github_.model().CreatePull(kFullName, spec);
    ASSERT_TRUE(pr.ok());
    head_ = pr->head_sha;
    ASSERT_NO_FATAL_FAILURE(CompleteCi("success"));
    ASSERT_TRUE(
        github_.model().SubmitReview("bob", kFullName, 1, "APPROVE", head_, "", nullptr).ok());
    if (known) {
      const RepoInstallation r{kFullName, kInstallation};
      ASSERT_TRUE(store_->repos().RecordLearned({&r, 1}, {}, clock_->Now()).ok());
    }
  }

  // The `ci` check run on the PR's head completes with `conclusion`.
  void CompleteCi(const std::string& conclusion) {
    sim::CheckRun run;
    run.name = "ci";
    run.head_sha = head_;
    run.status = "completed";
    run.conclusion = conclusion;
    ASSERT_TRUE(github_.model().UpsertCheckRun("ci-app", kFullName, run, nullptr).ok());
  }

  // One pass over acme/app#1 under a fresh claim.
  PassOutcome RunPass(PassConfig config) {
    Signal s{kSubject, "pushed", {}};
    EXPECT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kRecoverable).ok());
    auto leases = store_->work().Claim("test", 1, hours(1), clock_->Now());
    EXPECT_TRUE(leases.ok() && leases->size() == 1u);
    if (!leases.ok() || leases->empty()) return PassOutcome::Permanent("no claim");
    lease_ = (*leases)[0];
    PrPass pass(*store_, github_.client(), clock_, std::move(config));
    PassOutcome outcome = pass.Run(lease_, LeaseRunsOut(lease_));
    PassFinish finish{kSubject, lease_.fence, PassFinish::Kind::kCompleted, {}, 0, {}, ""};
    EXPECT_TRUE(store_->work().Finish({&finish, 1}, clock_->Now()).ok());
    return outcome;
  }

  // The lease is lost once the simulated clock reaches its end, as the worker pool's lease
  // would be without renewals.
  LeaseLostProbe LeaseRunsOut(const Lease& lease) {
    return [clock = clock_, until = lease.lease_until] { return clock->Now() >= until; };
  }

  std::vector<sim::Effect> AppEffects(const std::string& kind = "") {
    std::vector<sim::Effect> out;
    for (const auto& e : github_.model().Effects()) {
      if (e.who == kAppWho && (kind.empty() || e.kind == kind)) out.push_back(e);
    }
    return out;
  }
  std::vector<AuditEntry> Audit(const std::string& kind) {
    auto all = store_->audit().ListAudit(kSubject, 0);
    EXPECT_TRUE(all.ok());
    std::vector<AuditEntry> out;
    for (const auto& e : *all) {
      if (e.kind == kind) out.push_back(e);
    }
    return out;
  }

  testing::TempDir dir_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  sim_testing::InProcessGitHub github_{clock_};
  StorePtr store_;
  Lease lease_;
  std::string head_;
};

}  // namespace gatehouse::act::pass_testing
