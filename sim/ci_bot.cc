#include "sim/ci_bot.h"

#include <algorithm>
#include <utility>

namespace gatehouse::sim {

CiBot::CiBot(Model& model, ClockPtr clock) : model_(model), clock_(std::move(clock)) {
  model_.SetHeadObserver([this](const HeadEvent& head) { Observe(head); });
  thread_ = std::thread([this] { Loop(); });
}

CiBot::~CiBot() {
  model_.SetHeadObserver(nullptr);  // after this returns, no Observe is running or will start
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  idle_cv_.SignalAll();
  thread_.join();
}

int64_t CiBot::runs() const {
  MutexLock lock(&mu_);
  return runs_;
}

void CiBot::Observe(const HeadEvent& head) {
  {
    MutexLock lock(&mu_);
    // A branch's commit is tested once it has settled (Start checks it is still the tip).
    const bool later = head.number == 0 || !pulls_seen_.emplace(head.repo, head.number).second;
    jobs_.push_back({.head = head, .due = clock_->Now() + head.settle, .later = later});
  }
  cv_.SignalAll();
}

bool CiBot::IdleLocked() const {
  if (busy_) return false;
  const Time now = clock_->Now();
  return std::none_of(jobs_.begin(), jobs_.end(), [now](const Job& j) { return j.due <= now; });
}

void CiBot::AwaitIdle() {
  MutexLock lock(&mu_);
  while (!stopping_ && !IdleLocked()) idle_cv_.Wait(&mu_);
}

bool CiBot::NextDueLocked(Job* out) {
  busy_ = false;
  idle_cv_.SignalAll();
  while (!stopping_) {
    auto next = std::min_element(jobs_.begin(), jobs_.end(),
                                 [](const Job& a, const Job& b) { return a.due < b.due; });
    if (next == jobs_.end()) {
      clock_->WaitUntil(&mu_, &cv_, clock_->Now() + std::chrono::hours(24 * 365));
    } else if (clock_->Now() < next->due) {
      clock_->WaitUntil(&mu_, &cv_, next->due);
    } else {
      *out = std::move(*next);
      jobs_.erase(next);
      busy_ = true;
      return true;
    }
  }
  return false;
}

void CiBot::Loop() {
  for (;;) {
    Job job;
    {
      MutexLock lock(&mu_);
      if (!NextDueLocked(&job)) return;
    }
    if (job.started) {
      Complete(job);
      continue;
    }
    Start(job);
    if (job.run_ids.empty()) continue;
    MutexLock lock(&mu_);
    jobs_.push_back(std::move(job));  // before busy_ clears: AwaitIdle sees the completion due
  }
}

void CiBot::Start(Job& job) {
  job.started = true;
  const std::optional<Repository> repo = model_.GetRepo(job.head.repo);
  if (!repo || !repo->ci.enabled()) return;
  const CiConfig& ci = repo->ci;
  const bool branch = !job.head.branch.empty();
  if (branch && model_.BranchSha(job.head.repo, job.head.branch) != job.head.sha) {
    return;  // superseded by a later push to the branch, or the branch is gone: not run
  }
  // The PRs whose changes the tested commit holds: the PR, or those merged into the branch.
  const std::vector<int> holds = branch ? job.head.contains : std::vector<int>{job.head.number};
  auto listed = [&](const std::vector<int>& prs) {
    return std::any_of(holds.begin(), holds.end(),
                       [&](int n) { return std::find(prs.begin(), prs.end(), n) != prs.end(); });
  };
  const bool fails = listed(ci.failing) || (job.later && listed(ci.failing_later));
  job.conclusion = fails ? "failure" : "success";
  const bool hangs = job.later && listed(ci.hanging_later);
  {
    MutexLock lock(&mu_);
    ++runs_;
  }
  for (const std::string& name : ci.checks) {
    CheckRun run;
    run.name = name;
    run.head_sha = job.head.sha;
    run.status = "in_progress";
    CheckRun made;
    if (model_.UpsertCheckRun(kCiBotActor, job.head.repo, run, &made).ok()) {
      job.run_ids.push_back(made.id);
    }
  }
  job.due = clock_->Now() + ci.duration;
  if (hangs) job.run_ids.clear();  // started, never completed
}

void CiBot::Complete(Job& job) {
  for (int64_t id : job.run_ids) {
    CheckRun run;
    run.id = id;
    run.conclusion = job.conclusion;
    run.title = job.conclusion == "success" ? "CI passed" : "CI failed";
    model_.UpsertCheckRun(kCiBotActor, job.head.repo, run, nullptr);
  }
  job.run_ids.clear();
}

}  // namespace gatehouse::sim
