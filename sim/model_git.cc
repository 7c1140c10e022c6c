// Branches through the git data API (sim/model.h, "branches"; sim/commit_graph.h): what a merge
// queue's integration branch needs, and the default branch moved to a tested commit.
#include <algorithm>
#include <string_view>

#include "sim/model.h"

namespace gatehouse::sim {
namespace {

constexpr std::string_view kHeads = "refs/heads/";

// git's rules for a branch name, as far as a client can trip on them: no empty component, no
// "..", no component starting with '.' or ending ".lock", no space, control character or any
// of ~^:?*[\ .
bool ValidBranchName(std::string_view name) {
  if (name.empty() || name.find("..") != std::string_view::npos || name.ends_with(".lock")) {
    return false;
  }
  for (char c : name) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f ||
        std::string_view("~^:?*[\\").find(c) != std::string_view::npos) {
      return false;
    }
  }
  size_t start = 0;
  while (start <= name.size()) {
    const size_t slash = std::min(name.find('/', start), name.size());
    if (slash == start || name[start] == '.') return false;
    start = slash + 1;
  }
  return true;
}

}  // namespace

std::optional<std::string> Model::BranchShaLocked(const RepoState& rs,
                                                  const std::string& branch) const {
  if (branch == rs.repo.default_branch) return rs.repo.default_sha;
  auto it = rs.branches.find(branch);
  if (it == rs.branches.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Model::BranchSha(const std::string& repo,
                                            const std::string& branch) const {
  MutexLock lock(&mu_);
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return std::nullopt;
  return BranchShaLocked(*rs, branch);
}

std::map<std::string, std::string> Model::Branches(const std::string& repo) const {
  MutexLock lock(&mu_);
  const RepoState* rs = FindLocked(repo);
  return rs == nullptr ? std::map<std::string, std::string>{} : rs->branches;
}

std::string Model::HeadBranchLocked(const RepoState& rs, const std::string& sha) const {
  for (const auto& [name, tip] : rs.branches) {
    if (tip == sha) return name;
  }
  if (sha == rs.repo.default_sha) return rs.repo.default_branch;
  auto made = rs.made_on.find(sha);
  return made == rs.made_on.end() ? "" : made->second;
}

void Model::BaseMovedLocked(RepoState& rs, const std::string& base_ref) {
  for (auto& [n, pr] : rs.pulls) {
    if (pr.state != "open" || pr.base_ref != base_ref) continue;
    pr.behind = true;
    pr.up_to_date.clear();
    pr.base_sha = rs.repo.default_sha;
  }
}

void Model::LandLocked(const std::string& who, RepoState& rs, const std::string& sha,
                       const std::string& untested, const std::string& detail) {
  const std::string& branch = rs.repo.default_branch;
  // Judged before the tip moves: once `sha` is on the default branch it holds only itself.
  std::vector<int> merged;
  for (const auto& [n, pr] : rs.pulls) {
    if (pr.state == "open" && pr.base_ref == branch && rs.commits.Contains(sha, pr.head_sha)) {
      merged.push_back(n);
    }
  }
  rs.commits.MoveTip(sha);
  rs.repo.default_sha = sha;
  const std::string repo = rs.repo.full_name();
  const Time now = clock_->Now();
  for (int n : merged) {
    PullRequest& pr = rs.pulls.at(n);
    pr.state = "closed";
    pr.merged = true;
    pr.merged_by = who;
    pr.merge_commit_sha = sha;
    pr.merged_at = pr.closed_at = pr.updated_at = now;
    RecordLocked(who, "merge", repo, n, pr.head_sha, {200, ""}, detail);
    effects_.back().untested = untested;
    PullRequest after = ViewLocked(rs, pr);
    NotifyLocked({.event = "pull_request", .action = "closed", .pr = &after, .sender = who}, rs);
  }
  BaseMovedLocked(rs, branch);
}

Outcome Model::CreateRef(const std::string& who, const std::string& repo, const std::string& ref,
                         const std::string& sha) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  const bool heads = ref.starts_with(kHeads);
  const std::string branch = heads ? ref.substr(kHeads.size()) : ref;
  auto record = [&](Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, "create_ref", repo, 0, sha, std::move(o), branch);
  };
  if (rs == nullptr) return record({404, "Not Found"});
  if (!heads || !ValidBranchName(branch)) {
    return record({422, "Reference name is not valid (the simulator makes refs/heads/<branch>)"});
  }
  if (BranchShaLocked(*rs, branch)) return record({422, "Reference already exists"});
  if (!rs->commits.Knows(sha)) return record({422, "Object does not exist"});
  rs->branches[branch] = sha;
  return record({201, ""});
}

Outcome Model::UpdateRef(const std::string& who, const std::string& repo, const std::string& branch,
                         const std::string& sha, bool force) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  std::string untested;  // copied to the effect
  auto record = [&](Outcome o) REQUIRES(mu_) {
    Outcome out = RecordLocked(who, "update_ref", repo, 0, sha, std::move(o), branch);
    effects_.back().untested = untested;
    return out;
  };
  if (rs == nullptr) return record({404, "Not Found"});
  const std::optional<std::string> tip = BranchShaLocked(*rs, branch);
  if (!tip) return record({422, "Reference does not exist"});
  if (!rs->commits.Knows(sha)) return record({422, "Object does not exist"});
  if (sha == *tip) return record({200, ""});  // nothing moves: nothing to judge
  if (!force && !rs->commits.Contains(sha, *tip)) {
    return record({422, "Update is not a fast forward"});
  }
  if (branch != rs->repo.default_branch) {
    rs->branches[branch] = sha;
    return record({200, ""});
  }
  untested = ProtectedUpdateLocked(*rs, sha, force);
  if (!untested.empty() && rs->repo.protection.enforce) {
    const std::string why = std::move(untested);
    untested.clear();
    return record({422, "Protected branch update failed for refs/heads/" + branch + ". " + why});
  }
  Outcome out = record({200, ""});
  LandLocked(who, *rs, sha, untested, (force ? "forced update " : "fast-forward ") + sha);
  return out;
}

Outcome Model::DeleteRef(const std::string& who, const std::string& repo,
                         const std::string& branch) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  auto record = [&](Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, "delete_ref", repo, 0, "", std::move(o), branch);
  };
  if (rs == nullptr) return record({404, "Not Found"});
  if (branch == rs->repo.default_branch) {
    return record({422, "Cannot delete the default branch"});
  }
  if (rs->branches.erase(branch) == 0) return record({422, "Reference does not exist"});
  return record({204, ""});
}

Outcome Model::MergeIntoBranch(const std::string& who, const std::string& repo,
                               const std::string& base, const std::string& head,
                               MergeCommitMade* made) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  std::string commit;    // the effect's sha: the commit made
  std::string untested;  // copied to the effect
  auto record = [&](Outcome o) REQUIRES(mu_) {
    Outcome out =
        RecordLocked(who, "merge_branch", repo, 0, commit, std::move(o), base + " <- " + head);
    effects_.back().untested = untested;
    return out;
  };
  if (rs == nullptr) return record({404, "Not Found"});
  if (base.empty() || head.empty()) {
    return record({422, "Invalid request: base and head are required"});
  }
  const std::optional<std::string> tip = BranchShaLocked(*rs, base);
  if (!tip) return record({404, "Base does not exist"});
  const std::string head_sha = BranchShaLocked(*rs, head).value_or(head);
  if (!rs->commits.Knows(head_sha)) return record({404, "Head does not exist"});
  if (rs->commits.Contains(*tip, head_sha)) return record({204, ""});
  CommitGraph::Merge merge = rs->commits.Merged(*tip, head_sha);
  for (int n : merge.brought) {
    auto pr = rs->pulls.find(n);
    if (pr != rs->pulls.end() && pr->second.conflicted) return record({409, "Merge conflict"});
  }
  const bool into_default = base == rs->repo.default_branch;
  const std::string sha = NewShaLocked();
  if (into_default) {
    // A commit made now has no checks: required checks cannot have passed on it.
    untested = ProtectedUpdateLocked(*rs, sha, /*force=*/false);
    if (!untested.empty() && rs->repo.protection.enforce) {
      const std::string why = std::move(untested);
      untested.clear();
      return record({422, "Protected branch update failed for refs/heads/" + base + ". " + why});
    }
  }
  commit = sha;
  rs->commits.AddMerge(sha, merge.content);
  rs->made_on[sha] = base;
  if (made != nullptr) *made = {.sha = sha, .parents = {*tip, head_sha}};
  Outcome out = record({201, ""});
  if (into_default) {
    LandLocked(who, *rs, sha, untested, "merge " + sha);
    return out;
  }
  rs->branches[base] = sha;
  if (head_observer_ && rs->repo.ci.enabled()) {
    HeadEvent event{.repo = rs->repo.full_name(),
                    .number = 0,
                    .sha = sha,
                    .branch = base,
                    .contains = {},
                    .settle = rs->repo.ci.branch_settle};
    for (const auto& [n, h] : merge.content.pulls) {
      if (std::find(event.contains.begin(), event.contains.end(), n) == event.contains.end()) {
        event.contains.push_back(n);
      }
    }
    head_observer_(event);
  }
  return out;
}

}  // namespace gatehouse::sim
