#include "sim/model.h"

#include <algorithm>
#include <cstdio>

#include "base/ascii.h"
#include "github/signature.h"

namespace gatehouse::sim {
namespace {

std::string Lower(std::string_view s) { return AsciiLower(s); }

bool HasOpenState(const PullRequest& pr) { return pr.state == "open"; }

}  // namespace

Model::Model(ClockPtr clock, ModelOptions options) : clock_(std::move(clock)), options_(options) {}

void Model::SetListener(std::function<void(const Notification&)> listener) {
  MutexLock lock(&mu_);
  listener_ = std::move(listener);
}

void Model::SetHeadObserver(std::function<void(const HeadEvent&)> observer) {
  MutexLock lock(&mu_);
  head_observer_ = std::move(observer);
}

void Model::ObserveHeadLocked(const RepoState& rs, const PullRequest& pr) {
  if (!head_observer_ || !rs.repo.ci.enabled() || pr.state != "open" || pr.merged) return;
  head_observer_({.repo = rs.repo.full_name(), .number = pr.number, .sha = pr.head_sha});
}

std::string Model::NewShaLocked() {
  // Deterministic, unique, 40 hex digits: tests can predict nothing but uniqueness.
  return Sha256Hex("sim-commit-" + std::to_string(++sha_counter_)).substr(0, 40);
}

Model::RepoState* Model::FindLocked(const std::string& repo) {
  auto it = repos_.find(Lower(repo));
  return it == repos_.end() ? nullptr : &it->second;
}
const Model::RepoState* Model::FindLocked(const std::string& repo) const {
  auto it = repos_.find(Lower(repo));
  return it == repos_.end() ? nullptr : &it->second;
}

PullRequest* Model::PullLocked(const std::string& repo, int number, RepoState** rs) {
  *rs = FindLocked(repo);
  if (*rs == nullptr) return nullptr;
  auto it = (*rs)->pulls.find(number);
  return it == (*rs)->pulls.end() ? nullptr : &it->second;
}

PullRequest Model::ViewLocked(const RepoState& rs, const PullRequest& pr) const {
  PullRequest view = pr;
  if (pr.merged || pr.state != "open") {
    view.mergeable = std::nullopt;
    view.mergeable_state = "unknown";
    return view;
  }
  if (clock_->Now() - pr.head_pushed_at < options_.mergeable_delay) {
    view.mergeable = std::nullopt;
    view.mergeable_state = "unknown";
    return view;
  }
  view.mergeable = !pr.conflicted;
  bool failing = false;
  bool pending = false;
  // The latest run of each name counts, as on GitHub: a re-run replaces the run before it.
  std::map<std::string, const CheckRun*> latest;
  for (const auto& run : rs.check_runs) {
    if (run.head_sha == pr.head_sha) latest[run.name] = &run;
  }
  for (const auto& [name, r] : latest) {
    const CheckRun& run = *r;
    if (run.status != "completed") {
      pending = true;
    } else if (run.conclusion != "success" && run.conclusion != "neutral" &&
               run.conclusion != "skipped") {
      failing = true;
    }
  }
  for (const auto& st : rs.statuses) {
    if (st.sha != pr.head_sha) continue;
    if (st.state == "pending") pending = true;
    if (st.state == "failure" || st.state == "error") failing = true;
  }
  if (pr.conflicted) {
    view.mergeable_state = "dirty";
  } else if (pr.draft) {
    view.mergeable_state = "draft";
  } else if (pr.behind) {
    view.mergeable_state = "behind";
  } else if (!UntestedLocked(rs, pr).empty()) {
    view.mergeable_state = "blocked";  // a required check has not succeeded
  } else if (failing || pending) {
    view.mergeable_state = "unstable";
  } else {
    view.mergeable_state = "clean";
  }
  return view;
}

void CountPatchLines(const std::string& patch, int* additions, int* deletions) {
  *additions = 0;
  *deletions = 0;
  size_t start = 0;
  while (start < patch.size()) {
    size_t end = patch.find('\n', start);
    if (end == std::string::npos) end = patch.size();
    if (end > start) {
      if (patch[start] == '+') ++*additions;
      if (patch[start] == '-') ++*deletions;
    }
    start = end + 1;
  }
}

namespace {

// The lines described files account for.
std::pair<int, int> DescribedLines(const PullRequest& pr) {
  std::pair<int, int> sum{0, 0};
  for (const auto& [path, change] : pr.file_changes) {
    sum.first += change.additions;
    sum.second += change.deletions;
  }
  return sum;
}

// Gives `pr` its changed files: `changes` describe some of `files` (others are dropped), the
// rest share `additions` and `deletions`; the PR's totals are the sum.
void SetFiles(PullRequest& pr, std::vector<std::string> files,
              std::map<std::string, FileChange> changes, int additions, int deletions) {
  pr.files = std::move(files);
  pr.file_changes.clear();
  for (auto& [path, change] : changes) {
    if (std::find(pr.files.begin(), pr.files.end(), path) != pr.files.end()) {
      pr.file_changes.emplace(path, std::move(change));
    }
  }
  auto [described_add, described_del] = DescribedLines(pr);
  const bool undescribed = pr.files.size() > pr.file_changes.size();
  pr.additions = described_add + (undescribed ? additions : 0);
  pr.deletions = described_del + (undescribed ? deletions : 0);
}

}  // namespace

Outcome Model::RecordLocked(const std::string& who, const std::string& kind,
                            const std::string& repo, int number, const std::string& sha,
                            Outcome outcome, const std::string& detail) {
  Effect e;
  e.seq = static_cast<int64_t>(effects_.size()) + 1;
  e.at = clock_->Now();
  e.who = who;
  e.kind = kind;
  e.repo = repo;
  e.number = number;
  e.sha = sha;
  if (number != 0) {
    if (const RepoState* rs = FindLocked(repo)) {
      auto it = rs->pulls.find(number);
      if (it != rs->pulls.end()) e.head = it->second.head_sha;
    }
  }
  e.status = outcome.status;
  e.detail = detail.empty() ? outcome.message : detail;
  effects_.push_back(std::move(e));
  return outcome;
}

void Model::NotifyLocked(Notification n, const RepoState& rs) {
  if (!listener_) return;
  n.repo = &rs.repo;
  listener_(n);
}

Result<Repository> Model::CreateRepo(const std::string& owner, const std::string& name,
                                     int64_t installation_id,
                                     std::map<std::string, std::string> files,
                                     RepoOptions options) {
  if (owner.empty() || name.empty()) return InvalidArgument("repo needs an owner and a name");
  MutexLock lock(&mu_);
  std::string key = Lower(owner + "/" + name);
  if (repos_.count(key)) return AlreadyExists("repository " + key + " exists");
  RepoState rs;
  rs.repo.id = ++next_id_;
  rs.repo.owner = owner;
  rs.repo.name = name;
  rs.repo.installation_id = installation_id;
  rs.repo.default_sha = NewShaLocked();
  rs.repo.files = std::move(files);
  rs.repo.dismiss_stale_reviews = options.dismiss_stale_reviews;
  rs.repo.members = options.members;
  rs.repo.protection = std::move(options.protection);
  rs.repo.ci = std::move(options.ci);
  rs.commits = CommitGraph(rs.repo.default_sha);
  Repository copy = rs.repo;
  repos_.emplace(key, std::move(rs));
  return copy;
}

Result<PullRequest> Model::CreatePull(const std::string& repo, const NewPull& np) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return NotFound("no repository " + repo);
  PullRequest pr;
  pr.number = rs->next_number++;
  pr.id = ++next_id_;
  pr.title = np.title;
  pr.body = np.body;
  pr.author = np.author;
  pr.author_association = np.author_association;
  pr.author_type = np.author_type;
  pr.head_ref = np.head_ref;
  pr.head_sha = np.head_sha.empty() ? NewShaLocked() : np.head_sha;
  pr.base_ref = np.base_ref.empty() ? rs->repo.default_branch : np.base_ref;
  pr.base_sha = rs->repo.default_sha;
  pr.draft = np.draft;
  pr.labels = np.labels;
  SetFiles(pr, np.files, np.file_changes, np.additions, np.deletions);
  pr.changed_files = np.changed_files >= 0 ? np.changed_files : static_cast<int>(np.files.size());
  pr.commits.push_back(pr.head_sha);
  pr.up_to_date.push_back(pr.head_sha);
  pr.created_at = pr.updated_at = pr.head_pushed_at = clock_->Now();
  rs->commits.OpenHead(pr.number, pr.head_sha);
  // Recorded before the PR exists, so the effect's `head` is "".
  RecordLocked("control", "create_pull", rs->repo.full_name(), pr.number, pr.head_sha, {201, ""});
  auto& stored = rs->pulls[pr.number] = pr;
  PullRequest view = ViewLocked(*rs, stored);
  NotifyLocked({.event = "pull_request", .action = "opened", .pr = &view, .sender = pr.author},
               *rs);
  ObserveHeadLocked(*rs, stored);
  return view;
}

Outcome Model::Push(const std::string& who, const std::string& repo, int number, std::string sha,
                    std::optional<std::vector<std::string>> files,
                    std::map<std::string, FileChange> changes) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  if (pr == nullptr) return {404, "Not Found"};
  if (pr->merged) {
    // The branch may move on, but a merged PR keeps the head it was merged at.
    return RecordLocked(who, "push", repo, number, sha, {422, "Pull request is merged"}, "");
  }
  if (sha.empty()) sha = NewShaLocked();
  if (sha == pr->head_sha) {
    return RecordLocked(who, "push", repo, number, sha, {422, "head is already " + sha}, "");
  }
  const std::string before = pr->head_sha;
  // Recorded before the head moves: the effect's `head` is the old one.
  Outcome out = RecordLocked(who, "push", repo, number, sha, {200, ""}, "before=" + before);
  pr->head_sha = sha;
  if (auto earlier = std::find(pr->commits.begin(), pr->commits.end(), sha);
      earlier != pr->commits.end()) {
    // A force-push back: the commits after it leave the PR (reviews of them stay, outdated,
    // but no new review may name them), and it is behind unless it contained the base.
    pr->commits.erase(earlier + 1, pr->commits.end());
    pr->behind =
        std::find(pr->up_to_date.begin(), pr->up_to_date.end(), sha) == pr->up_to_date.end();
  } else {
    // A new commit on top of the old head: as up to date with the base as that head was.
    pr->commits.push_back(sha);
    if (!pr->behind) pr->up_to_date.push_back(sha);
    rs->commits.PushHead(number, sha, before);
  }
  pr->head_pushed_at = pr->updated_at = clock_->Now();
  if (files) {
    auto [described_add, described_del] = DescribedLines(*pr);
    SetFiles(*pr, *std::move(files), std::move(changes), pr->additions - described_add,
             pr->deletions - described_del);
    pr->changed_files = static_cast<int>(pr->files.size());
  }
  if (HasOpenState(*pr)) HeadMovedLocked(*rs, *pr, before, who);
  return out;
}

void Model::HeadMovedLocked(RepoState& rs, PullRequest& pr, const std::string& before,
                            const std::string& sender) {
  PullRequest view = ViewLocked(rs, pr);
  NotifyLocked({.event = "pull_request",
                .action = "synchronize",
                .pr = &view,
                .sender = sender,
                .before = before},
               rs);
  ObserveHeadLocked(rs, pr);
  if (!rs.repo.dismiss_stale_reviews) return;
  for (Review& review : pr.reviews) {
    if (review.state == "APPROVED" && review.commit_id != pr.head_sha) {
      DismissLocked("control", sender, rs, pr, review);
    }
  }
}

Outcome Model::PutDefaultBranchFile(const std::string& repo, const std::string& path,
                                    const std::string& content) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return {404, "Not Found"};
  rs->repo.files[path] = content;
  rs->repo.default_sha = NewShaLocked();
  rs->commits.Commit(rs->repo.default_sha);
  return {200, ""};
}

Outcome Model::MoveBase(const std::string& repo, int number, bool conflicted) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  if (pr == nullptr) return {404, "Not Found"};
  rs->repo.default_sha = NewShaLocked();
  rs->commits.Commit(rs->repo.default_sha);
  pr->base_sha = rs->repo.default_sha;  // `base.sha`: the base branch's tip
  pr->behind = true;
  pr->up_to_date.clear();
  pr->conflicted = conflicted;
  // GitHub recomputes mergeability in the background after the base moves, too.
  pr->head_pushed_at = clock_->Now();
  return RecordLocked("control", "move_base", repo, number, pr->head_sha, {200, ""});
}

std::optional<Repository> Model::GetRepo(const std::string& repo) const {
  MutexLock lock(&mu_);
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return std::nullopt;
  return rs->repo;
}

std::vector<Repository> Model::Repos() const {
  MutexLock lock(&mu_);
  std::vector<Repository> out;
  for (const auto& [key, rs] : repos_) out.push_back(rs.repo);
  return out;
}

std::optional<PullRequest> Model::GetPull(const std::string& repo, int number) const {
  MutexLock lock(&mu_);
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return std::nullopt;
  auto it = rs->pulls.find(number);
  if (it == rs->pulls.end()) return std::nullopt;
  return ViewLocked(*rs, it->second);
}

std::vector<PullRequest> Model::ListPulls(const std::string& repo, const std::string& state) const {
  MutexLock lock(&mu_);
  std::vector<PullRequest> out;
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return out;
  // GitHub lists newest first by default.
  for (auto it = rs->pulls.rbegin(); it != rs->pulls.rend(); ++it) {
    if (state == "all" || it->second.state == state) out.push_back(ViewLocked(*rs, it->second));
  }
  return out;
}

std::vector<PullRequest> Model::PullsForCommit(const std::string& repo,
                                               const std::string& sha) const {
  MutexLock lock(&mu_);
  std::vector<PullRequest> out;
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return out;
  for (const auto& [n, pr] : rs->pulls) {
    if (std::find(pr.commits.begin(), pr.commits.end(), sha) != pr.commits.end())
      out.push_back(ViewLocked(*rs, pr));
  }
  return out;
}

std::vector<CheckRun> Model::CheckRunsFor(const std::string& repo, const std::string& sha) const {
  MutexLock lock(&mu_);
  std::vector<CheckRun> out;
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return out;
  for (const auto& run : rs->check_runs)
    if (run.head_sha == sha) out.push_back(run);
  return out;
}

std::vector<CommitStatus> Model::StatusesFor(const std::string& repo,
                                             const std::string& sha) const {
  MutexLock lock(&mu_);
  std::vector<CommitStatus> out;
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return out;
  // Newest first; the combined status uses the latest per context.
  for (auto it = rs->statuses.rbegin(); it != rs->statuses.rend(); ++it)
    if (it->sha == sha) out.push_back(*it);
  return out;
}

std::vector<Comment> Model::CommentsFor(const std::string& repo, int number) const {
  MutexLock lock(&mu_);
  std::vector<Comment> out;
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return out;
  for (const auto& c : rs->comments)
    if (c.number == number) out.push_back(c);
  return out;
}

std::string Model::ResolveRef(const std::string& repo, const std::string& ref) const {
  MutexLock lock(&mu_);
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return "";
  if (ref == rs->repo.default_branch) return rs->repo.default_sha;
  if (auto branch = rs->branches.find(ref); branch != rs->branches.end()) return branch->second;
  for (const auto& [n, pr] : rs->pulls) {
    if (pr.head_ref == ref && pr.state == "open") return pr.head_sha;
  }
  return ref;  // treat anything else as a SHA
}

bool Model::KnowsCommit(const std::string& repo, const std::string& sha) const {
  MutexLock lock(&mu_);
  const RepoState* rs = FindLocked(repo);
  return rs != nullptr && rs->commits.Knows(sha);
}

std::vector<Effect> Model::Effects() const {
  MutexLock lock(&mu_);
  return effects_;
}

}  // namespace gatehouse::sim
