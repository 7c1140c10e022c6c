// The periodic sweep. See engine/sweeper.h.
#include "engine/sweeper.h"

#include <algorithm>
#include <set>
#include <utility>

#include "base/ascii.h"
#include "base/log.h"
#include "base/subject.h"
#include "base/thread_name.h"
#include "decide/reasons.h"
#include "engine/router.h"

namespace gatehouse {

Sweeper::Sweeper(Store& store, GitHub& github, ClockPtr clock, SweepOptions options,
                 std::function<void()> on_signalled)
    : store_(store),
      github_(github),
      clock_(std::move(clock)),
      options_(options),
      on_signalled_(std::move(on_signalled)),
      loop_(clock_) {}

Sweeper::~Sweeper() { Stop(); }

void Sweeper::Start() {
  loop_.Start([this] { Loop(); });
}

void Sweeper::Stop() { loop_.Stop(); }

std::vector<Sweeper::RepoTarget> Sweeper::ListTargets() {
  std::vector<RepoTarget> targets;
  std::set<std::string> seen;
  auto known = store_.repos().ListRepositories();
  if (!known.ok()) {
    Log(LogLevel::kWarn, "sweep.repos").Field("error", known.status().ToString());
    return targets;
  }
  std::set<int64_t> installations;
  for (const RepoInstallation& r : *known) {
    if (r.installation_id) installations.insert(*r.installation_id);
  }
  // Every repository of every installation we know of, as GitHub lists them now.
  if (options_.app_mode) {
    std::vector<RepoInstallation> learned;
    for (int64_t id : installations) {
      if (loop_.Stopping()) break;
      CallContext ctx{id, /*background=*/true};
      auto repos = github_.ListInstallationRepositories(ctx);
      if (!repos.ok()) {
        Log(LogLevel::kWarn, "sweep.installation")
            .Field("installation", id)
            .Field("error", repos.error().ToStatus().ToString());
        continue;
      }
      for (const RepoRef& repo : *repos) {
        if (seen.insert(AsciiLower(repo.FullName())).second) targets.push_back({repo, id});
        learned.push_back(RepoInstallation{AsciiLower(repo.FullName()), id});
      }
    }
    // Remembered, so that a pass for one of their PRs knows which installation to act as
    // even before any webhook from that repository arrived.
    if (Status s = store_.repos().RecordLearned(learned, {}, clock_->Now()); !s.ok()) {
      Log(LogLevel::kWarn, "sweep.learn").Field("error", s.ToString());
    }
  }
  // And those learned from webhooks (all of them in personal-token mode).
  for (const RepoInstallation& r : *known) {
    RepoTarget t;
    if (!ParseRepoFullName(r.repo, &t.repo)) continue;
    if (options_.app_mode) {
      if (!r.installation_id) continue;  // no installation: nothing can be called for it
      t.installation_id = *r.installation_id;
    }
    if (seen.insert(AsciiLower(r.repo)).second) targets.push_back(std::move(t));
  }
  return targets;
}

bool Sweeper::SweepRepo(const RepoTarget& target, SweepStats& stats) {
  CallContext ctx{target.installation_id, /*background=*/true};
  auto prs = github_.ListOpenPullRequests(ctx, target.repo);
  if (!prs.ok()) {
    ++stats.skipped;
    Log(LogLevel::kWarn, "sweep.repo")
        .Field("repo", target.repo.FullName())
        .Field("error", prs.error().ToStatus().ToString());
    return false;
  }
  ++stats.repos;
  std::vector<Signal> signals;
  for (const PullRequest& pr : *prs) {
    if (pr.state != "open") continue;
    if (auto subject = Subject::PullRequest(target.repo.FullName(), pr.number)) {
      signals.push_back(
          Signal{subject->key(), std::string(decide::kReasonSwept), options_.debounce});
    }
  }
  if (signals.empty()) return true;
  if (Status s = store_.work().Enqueue(signals, clock_->Now(), Durability::kRecoverable); !s.ok()) {
    ++stats.skipped;
    Log(LogLevel::kWarn, "sweep.enqueue").Field("error", s.ToString());
    return false;
  }
  stats.prs += static_cast<int64_t>(signals.size());
  if (on_signalled_) on_signalled_();
  return true;
}

SweepStats Sweeper::SweepOnce() {
  SweepStats stats;
  for (const RepoTarget& t : ListTargets()) {
    if (loop_.Stopping()) break;
    SweepRepo(t, stats);
  }
  Log(LogLevel::kInfo, "sweep.done")
      .Field("repos", stats.repos)
      .Field("skipped", stats.skipped)
      .Field("prs", stats.prs);
  return stats;
}

void Sweeper::Loop() {
  SetThreadName("gh-sweeper");
  Time round_start = clock_->Now();
  std::vector<RepoTarget> round;
  size_t next = 0;
  SweepStats stats;
  while (true) {
    // The next repository of this round is due at its share of the interval.
    if (next >= round.size()) {
      if (!round.empty()) {
        Log(LogLevel::kInfo, "sweep.done")
            .Field("repos", stats.repos)
            .Field("skipped", stats.skipped)
            .Field("prs", stats.prs);
        // The next round starts one interval after this one did, or now if this one ran
        // late (a slow round is not made up for by sweeping back to back).
        round_start = std::max(round_start + options_.interval, clock_->Now());
      }
      stats = SweepStats{};
      round = ListTargets();
      next = 0;
      if (round.empty()) {
        // Nothing known yet: look again at the next interval.
        if (!loop_.WaitUntil(clock_->Now() + options_.interval)) return;
        round_start = clock_->Now();
        continue;
      }
    }
    const auto share = options_.interval / static_cast<int64_t>(round.size());
    if (!loop_.WaitUntil(round_start + share * static_cast<int64_t>(next))) return;
    SweepRepo(round[next++], stats);
  }
}

}  // namespace gatehouse
