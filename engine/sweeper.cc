// The periodic sweep. See engine/sweeper.h.
#include "engine/sweeper.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "base/ascii.h"
#include "base/log.h"
#include "base/subject.h"
#include "base/thread_name.h"
#include "decide/planner.h"
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
  // Every repository of every installation we know of, as GitHub lists them now.
  if (options_.app_mode) {
    std::vector<RepoInstallation> learned;
    for (int64_t id : ListInstallations(*known)) {
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

std::vector<int64_t> Sweeper::ListInstallations(const std::vector<RepoInstallation>& known) {
  std::set<int64_t> installations;
  for (const RepoInstallation& r : known) {
    if (r.installation_id) installations.insert(*r.installation_id);
  }
  if (options_.installations != nullptr) {
    auto listed = options_.installations->ListInstallationIds();
    if (listed.ok()) {
      installations.insert(listed->begin(), listed->end());
    } else {
      // Those learned from webhooks are still swept.
      Log(LogLevel::kWarn, "sweep.installations")
          .Field("error", listed.error().ToStatus().ToString());
    }
  }
  return {installations.begin(), installations.end()};
}

namespace {

const char* RoundKind(const SweepStats& stats) {
  return stats.deep ? "deep" : stats.full ? "full" : "changes";
}

// What both rounds compare of one open PR's listing row: its head SHA and `updated_at`, which
// REST and GraphQL spell alike. Not the base SHA: GraphQL's `baseRefOid` is the base branch's
// tip, REST's `base.sha` the base as of the PR's last update, so the two listings would
// disagree on every PR whose base moved since. A base that moved shows in a full round's merge
// state when the PR conflicts or is behind it, and retargeting a PR moves its `updated_at`.
std::string RowPrint(const PullRequest& pr) { return pr.head_sha + ' ' + pr.updated_at; }

// What a full round compares of one open PR beyond its row: whether it is behind its base, and
// its head's checks, one line each, sorted, each check run by its id and times and each status
// by when it was posted, so that a check that went elsewhere and came back (a re-run, a run
// patched back, a status posted again) is a change. Not the rest of GitHub's merge state: it
// follows every check, gatehouse's own among them. gatehouse's own check runs are left out too:
// they are what its passes wrote, not what they read.
std::string ChecksPrint(const OpenPullChecks& p) {
  std::vector<std::string> lines;
  for (const OpenPullChecks::Run& r : p.check_runs) {
    if (r.name == decide::kCheckRunName || r.name.starts_with(decide::kQueueCheckRunName)) {
      continue;
    }
    lines.push_back("run " + r.name + ' ' + std::to_string(r.id) + ' ' + r.status + ' ' +
                    r.conclusion + ' ' + r.started_at + ' ' + r.completed_at);
  }
  for (const OpenPullChecks::Status& st : p.statuses) {
    lines.push_back("status " + st.context + ' ' + st.state + ' ' + st.created_at);
  }
  std::sort(lines.begin(), lines.end());
  std::string out = p.pr.mergeable_state == "behind" ? "behind" : "";
  for (const std::string& l : lines) out += '\n' + l;
  return out;
}

// A full round's print of one PR: its mergeability as one character ('u'nknown, 'm'ergeable,
// 'c'onflicting), then its row, its repository's policy and ChecksPrint. SamePrint compares two:
// mergeability only when GitHub had computed it both times, since it reads UNKNOWN for a while
// after every push (and after a base moves), which is no change of the PR.
std::string FullPrint(const OpenPullChecks& p, const std::string& row, const std::string& policy) {
  const char merge = !p.pr.mergeable ? 'u' : *p.pr.mergeable ? 'm' : 'c';
  return merge + row + '\n' + policy + '\n' + ChecksPrint(p);
}

bool SamePrint(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return a == b;
  if (a[0] != b[0] && a[0] != 'u' && b[0] != 'u') return false;
  return std::string_view(a).substr(1) == std::string_view(b).substr(1);
}

}  // namespace

bool Sweeper::SweepRepo(const RepoTarget& target, SweepStats& stats) {
  const std::string key = AsciiLower(target.repo.FullName());
  CallContext ctx{target.installation_id, /*background=*/true};
  if (stats.full && github_.ListsOpenPullChecks()) {
    auto checked = github_.ListOpenPullChecks(ctx, target.repo, options_.policy_path);
    if (checked.ok()) {
      // The policy every PR of the repository is judged by, as part of each PR's print: when it
      // changed, every PR is signalled.
      std::string policy = "policy " + checked->watched_oid;
      if (options_.local_policy) policy += ' ' + options_.local_policy(target.repo);
      return SweepChecked(target, checked->pulls, policy, stats);
    }
    if (github_.ListsOpenPullChecks()) {
      // A rate limit, the background reserve, a transient failure, a repository gone: left to
      // the next round, with what the last full round saw kept to compare with.
      ++stats.skipped;
      Log(LogLevel::kWarn, "sweep.repo")
          .Field("repo", target.repo.FullName())
          .Field("error", checked.error().ToStatus().ToString());
      return false;
    }
    // GitHub refused the query itself (logged once by the client): from now on the full round
    // passes every PR, over the REST listing, as a client without GraphQL does.
  }
  auto prs = github_.ListOpenPullRequests(ctx, target.repo);
  if (!prs.ok()) {
    ++stats.skipped;
    Forget(key);  // the next changes round signals all of it
    Log(LogLevel::kWarn, "sweep.repo")
        .Field("repo", target.repo.FullName())
        .Field("error", prs.error().ToStatus().ToString());
    return false;
  }
  ++stats.repos;
  RepoListing listing;
  std::vector<Signal> signals;
  {
    MutexLock lock(&mu_);
    const auto before = listings_.find(key);
    for (const PullRequest& pr : *prs) {
      if (pr.state != "open") continue;
      auto subject = Subject::PullRequest(target.repo.FullName(), pr.number);
      if (!subject) continue;
      Fingerprint print = RowPrint(pr);
      bool unchanged = false;
      if (!stats.full && before != listings_.end()) {
        auto it = before->second.find(pr.number);
        unchanged = it != before->second.end() && it->second == print;
      }
      listing.emplace(pr.number, std::move(print));
      if (unchanged) {
        ++stats.unchanged;
        continue;
      }
      signals.push_back(
          Signal{subject->key(), std::string(decide::kReasonSwept), options_.debounce});
    }
  }
  // A full round over REST passed every PR: the next one with checks compares with nothing.
  std::optional<RepoListing> checked;
  if (stats.full) checked.emplace();
  return Commit(key, signals, std::move(listing), std::move(checked), stats);
}

bool Sweeper::SweepChecked(const RepoTarget& target, const std::vector<OpenPullChecks>& pulls,
                           const std::string& policy, SweepStats& stats) {
  const std::string key = AsciiLower(target.repo.FullName());
  ++stats.repos;
  RepoListing listing, checked;
  std::vector<Signal> signals;
  {
    MutexLock lock(&mu_);
    const auto before = checked_.find(key);
    for (const OpenPullChecks& p : pulls) {
      const PullRequest& pr = p.pr;
      auto subject = Subject::PullRequest(target.repo.FullName(), pr.number);
      if (!subject) continue;
      Fingerprint print = RowPrint(pr);
      Fingerprint full = FullPrint(p, print, policy);
      bool unchanged = false;
      if (!stats.deep && p.checks_complete && before != checked_.end()) {
        auto it = before->second.find(pr.number);
        unchanged = it != before->second.end() && SamePrint(it->second, full);
      }
      listing.emplace(pr.number, std::move(print));
      if (p.checks_complete) checked.emplace(pr.number, std::move(full));
      if (unchanged) {
        ++stats.unchanged;
        continue;
      }
      signals.push_back(
          Signal{subject->key(), std::string(decide::kReasonSwept), options_.debounce});
    }
  }
  return Commit(key, signals, std::move(listing), std::move(checked), stats);
}

bool Sweeper::Commit(const std::string& key, const std::vector<Signal>& signals,
                     RepoListing listing, std::optional<RepoListing> checked, SweepStats& stats) {
  if (!signals.empty()) {
    // Acknowledged: the listings remembered below say these PRs were signalled, and no later
    // round would signal them again were the signals lost (a database server that crashed
    // while this node ran on).
    Status s = store_.work().Enqueue(signals, clock_->Now(), Durability::kAcknowledged);
    if (!s.ok()) {
      ++stats.skipped;
      Forget(key);
      Log(LogLevel::kWarn, "sweep.enqueue").Field("error", s.ToString());
      return false;
    }
    stats.prs += static_cast<int64_t>(signals.size());
    if (on_signalled_) on_signalled_();
  }
  MutexLock lock(&mu_);
  listings_[key] = std::move(listing);
  if (checked) checked_[key] = std::move(*checked);
  return true;
}

void Sweeper::Forget(const std::string& key) {
  MutexLock lock(&mu_);
  listings_.erase(key);
}

void Sweeper::BeginRound(SweepStats& stats) {
  MutexLock lock(&mu_);
  const int64_t full_every = std::max(options_.full_every, 1);
  stats.full = rounds_ % full_every == 0;
  stats.deep = stats.full && (rounds_ / full_every) % std::max(options_.deep_every, 1) == 0;
  ++rounds_;
}

void Sweeper::EndRound(const SweepStats& stats, Time started) {
  const double seconds = std::chrono::duration<double>(clock_->Now() - started).count();
  Log(LogLevel::kInfo, "sweep.done")
      .Field("kind", RoundKind(stats))
      .Field("repos", stats.repos)
      .Field("skipped", stats.skipped)
      .Field("prs", stats.prs)
      .Field("unchanged", stats.unchanged)
      .Field("seconds", seconds);
  if (metrics_.rounds == nullptr) return;
  metrics_.rounds->With({RoundKind(stats)}).Inc();
  metrics_.prs->With({"signalled"}).Inc(stats.prs);
  metrics_.prs->With({"unchanged"}).Inc(stats.unchanged);
  metrics_.repos->With({"listed"}).Inc(stats.repos);
  metrics_.repos->With({"skipped"}).Inc(stats.skipped);
  metrics_.last_round_seconds->Set(seconds);
}

void Sweeper::RegisterMetrics(metrics::Registry& registry) {
  metrics_.rounds = &registry.AddCounter("gatehouse_sweep_rounds_total",
                                         "Sweep rounds finished, by kind: full (checks and "
                                         "policy compared too) or changes (only new or "
                                         "changed PR rows).",
                                         {"kind"});
  metrics_.prs = &registry.AddCounter(
      "gatehouse_sweep_prs_total",
      "Open PRs a sweep listed, by outcome: signalled (a pass follows) or unchanged.", {"outcome"});
  metrics_.repos = &registry.AddCounter(
      "gatehouse_sweep_repositories_total",
      "Repositories a sweep listed, or skipped to the next round (rate limit, errors).",
      {"outcome"});
  metrics_.last_round_seconds = &registry
                                     .AddGauge("gatehouse_sweep_last_round_seconds",
                                               "Wall time of the last finished sweep round, "
                                               "from its first listing to its last.")
                                     .With({});
}

SweepStats Sweeper::SweepOnce() {
  const Time started = clock_->Now();
  SweepStats stats;
  BeginRound(stats);
  for (const RepoTarget& t : ListTargets()) {
    if (loop_.Stopping()) break;
    SweepRepo(t, stats);
  }
  EndRound(stats, started);
  return stats;
}

void Sweeper::Loop() {
  SetThreadName("gh-sweeper");
  // The first round catches up after downtime: back to back. Later ones are spread.
  Time round_start = clock_->Now();
  SweepOnce();
  SweepStats stats;
  std::vector<RepoTarget> round;
  size_t next = 0;
  bool in_round = false;
  while (true) {
    // The next repository of this round is due at its share of the interval.
    if (next >= round.size()) {
      if (in_round) EndRound(stats, round_start);
      // The next round starts one interval after this one did, or now if this one ran late
      // (a slow round is not made up for by sweeping back to back).
      if (!loop_.WaitUntil(round_start + options_.interval)) return;
      round_start = clock_->Now();
      stats = SweepStats{};
      round = ListTargets();
      next = 0;
      in_round = !round.empty();
      if (round.empty()) continue;  // nothing known yet: look again at the next interval
      BeginRound(stats);
    }
    const auto share = options_.interval / static_cast<int64_t>(round.size());
    if (!loop_.WaitUntil(round_start + share * static_cast<int64_t>(next))) return;
    SweepRepo(round[next++], stats);
  }
}

}  // namespace gatehouse
