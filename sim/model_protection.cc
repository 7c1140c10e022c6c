// Branch protection's merge rules (sim/model.h, BranchProtection): what makes a merge, or an
// update of the default branch, untested.
#include <string>

#include "sim/model.h"

namespace gatehouse::sim {
namespace {

enum class CheckState { kMissing, kPending, kFailing, kSuccess };

// The latest check run named `name` on `sha`, else the latest status of that context.
CheckState RequiredCheckState(const std::vector<CheckRun>& runs,
                              const std::vector<CommitStatus>& statuses, const std::string& sha,
                              const std::string& name) {
  const CheckRun* latest_run = nullptr;
  for (const CheckRun& run : runs) {
    if (run.head_sha == sha && run.name == name) latest_run = &run;  // ids only grow
  }
  if (latest_run != nullptr) {
    if (latest_run->status != "completed") return CheckState::kPending;
    const std::string& c = latest_run->conclusion;
    return c == "success" || c == "neutral" || c == "skipped" ? CheckState::kSuccess
                                                              : CheckState::kFailing;
  }
  const CommitStatus* latest_status = nullptr;
  for (const CommitStatus& st : statuses) {
    if (st.sha == sha && st.context == name) latest_status = &st;
  }
  if (latest_status == nullptr) return CheckState::kMissing;
  if (latest_status->state == "success") return CheckState::kSuccess;
  return latest_status->state == "pending" ? CheckState::kPending : CheckState::kFailing;
}

}  // namespace

std::string Model::UntestedLocked(const RepoState& rs, const PullRequest& pr) const {
  const BranchProtection& p = rs.repo.protection;
  if (!p.configured()) return "";
  if (p.strict && pr.behind) {
    // GitHub counts no check of a head that lacks the base's latest commit.
    if (p.required_checks.empty()) return "Head branch is not up to date with the base branch.";
    const std::string n = std::to_string(p.required_checks.size());
    return n + " of " + n + " required status checks are expected.";
  }
  return UntestedShaLocked(rs, pr.head_sha);
}

std::string Model::ProtectedUpdateLocked(const RepoState& rs, const std::string& sha,
                                         bool force) const {
  if (!rs.repo.protection.configured()) return "";
  if (force) return "Cannot force-push to this branch.";
  return UntestedShaLocked(rs, sha);  // a fast-forward is up to date: `strict` holds
}

std::string Model::UntestedShaLocked(const RepoState& rs, const std::string& sha) const {
  for (const std::string& name : rs.repo.protection.required_checks) {
    switch (RequiredCheckState(rs.check_runs, rs.statuses, sha, name)) {
      case CheckState::kSuccess:
        break;
      case CheckState::kFailing:
        return "Required status check \"" + name + "\" is failing.";
      case CheckState::kPending:
      case CheckState::kMissing:
        return "Required status check \"" + name + "\" is expected.";
    }
  }
  return "";
}

}  // namespace gatehouse::sim
