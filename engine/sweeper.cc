// The periodic sweep and the resolution of unresolved deliveries. See engine/sweeper.h.
#include "engine/sweeper.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>
#include <utility>

#include "base/log.h"
#include "base/thread_name.h"
#include "engine/router.h"

namespace gatehouse {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool SplitRepo(const std::string& full, RepoRef* out) {
  const size_t slash = full.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= full.size()) return false;
  out->owner = full.substr(0, slash);
  out->name = full.substr(slash + 1);
  return true;
}

}  // namespace

Sweeper::Sweeper(Store& store, GitHub& github, ClockPtr clock, SweepOptions options,
                 std::function<void()> on_signalled)
    : store_(store),
      github_(github),
      clock_(std::move(clock)),
      options_(options),
      on_signalled_(std::move(on_signalled)) {}

Sweeper::~Sweeper() { Stop(); }

void Sweeper::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void Sweeper::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

bool Sweeper::Stopping() {
  MutexLock lock(&mu_);
  return stopping_;
}

bool Sweeper::WaitUntil(Time deadline) {
  MutexLock lock(&mu_);
  while (!stopping_ && clock_->WaitUntil(&mu_, &cv_, deadline)) {
  }
  return !stopping_;
}

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
      if (Stopping()) break;
      CallContext ctx{id, /*background=*/true};
      auto repos = github_.ListInstallationRepositories(ctx);
      if (!repos.ok()) {
        Log(LogLevel::kWarn, "sweep.installation")
            .Field("installation", id)
            .Field("error", repos.error().ToStatus().ToString());
        continue;
      }
      for (const RepoRef& repo : *repos) {
        if (seen.insert(Lower(repo.FullName())).second) targets.push_back({repo, id});
        learned.push_back(RepoInstallation{Lower(repo.FullName()), id});
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
    if (!SplitRepo(r.repo, &t.repo)) continue;
    if (options_.app_mode) {
      if (!r.installation_id) continue;  // no installation: nothing can be called for it
      t.installation_id = *r.installation_id;
    }
    if (seen.insert(Lower(r.repo)).second) targets.push_back(std::move(t));
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
    signals.push_back(
        Signal{SubjectKey(target.repo.FullName(), pr.number), "swept", options_.debounce});
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
    if (Stopping()) break;
    SweepRepo(t, stats);
  }
  Log(LogLevel::kInfo, "sweep.done")
      .Field("repos", stats.repos)
      .Field("skipped", stats.skipped)
      .Field("prs", stats.prs);
  return stats;
}

SweepStats Sweeper::ResolveOnce() {
  SweepStats stats;
  // Accepted deliveries are the router's; this looks at the unresolved ones only (a routing
  // backlog does not hide them), a chunk at a time so that each claim's lease covers only that
  // chunk's lookups. Each ends in a terminal state unless GitHub could not be asked this time.
  size_t looked_at = 0;
  while (looked_at < options_.resolve_batch && !Stopping()) {
    const size_t chunk = std::min(options_.resolve_chunk, options_.resolve_batch - looked_at);
    auto open =
        store_.inbox().ClaimDeliveries(options_.resolve_owner, chunk, Inbox::Open::kUnresolved,
                                       options_.resolve_lease, clock_->Now());
    if (!open.ok() || open->empty()) break;
    looked_at += open->size();
    const int64_t resolved = ResolveChunk(*open);
    if (resolved < 0) break;
    stats.resolved += resolved;
    // Nothing in this chunk could be decided (GitHub refused, rate limits): the rest waits for
    // the next round instead of being claimed again at once.
    if (resolved == 0) break;
  }
  if (stats.resolved > 0) {
    Log(LogLevel::kInfo, "sweep.resolved").Field("deliveries", stats.resolved);
    if (on_signalled_) on_signalled_();
  }
  return stats;
}

int64_t Sweeper::ResolveChunk(const std::vector<InboxEntry>& open) {
  std::vector<RouteDecision> decisions;
  for (const InboxEntry& entry : open) {
    RouteDecision d;
    d.seq = entry.seq;
    d.claim = entry.claim;
    if (Stopping()) {
      // Released, not held for the claim's lease: another resolver may take it at once.
      d.state = InboxState::kUnresolved;
      d.reason = entry.state_reason;
      decisions.push_back(std::move(d));
      continue;
    }
    boost::system::error_code ec;
    boost::json::value payload =
        entry.body_error.empty() ? boost::json::parse(entry.body, ec) : boost::json::value();
    if (!entry.body_error.empty() || ec) {
      d.state = InboxState::kDead;
      d.reason =
          "undecodable body: " + (entry.body_error.empty() ? ec.message() : entry.body_error);
      decisions.push_back(std::move(d));
      continue;
    }
    // A delivery this round cannot decide stays unresolved, and its claim is released (by
    // applying `unresolved` again), so that the next round — here or in another process —
    // looks at it again.
    auto later = [&](std::string why) {
      d.state = InboxState::kUnresolved;
      d.reason = std::move(why);
      decisions.push_back(std::move(d));
    };
    RouteResult route = RouteWebhook(entry.event, payload);
    RepoRef repo;
    if (route.kind != RouteResult::Kind::kResolveBySha || !SplitRepo(route.repo, &repo)) {
      later(entry.state_reason);  // the router routes it differently now; it will pick it up
      continue;
    }
    CallContext ctx{0, /*background=*/true};
    if (options_.app_mode) {
      std::optional<int64_t> id = entry.installation_id;
      if (!id) {
        auto known = store_.repos().GetRepository(route.repo);
        if (known.ok() && *known) id = (*known)->installation_id;
      }
      if (!id) {
        d.state = InboxState::kIgnored;
        d.reason = "no installation known for " + route.repo + " to look up " + route.sha;
        decisions.push_back(std::move(d));
        continue;
      }
      ctx.installation_id = *id;
    }
    auto prs = github_.ListPullRequestsForCommit(ctx, repo, route.sha);
    if (!prs.ok()) {
      if (prs.error().kind != GitHubErrorKind::kNotFound) {
        Log(LogLevel::kInfo, "sweep.resolve_later")
            .Field("delivery", entry.delivery_id)
            .Field("error", prs.error().ToString());
        later("looking up " + route.sha + " later: " + prs.error().ToString());
        continue;
      }
      d.state = InboxState::kIgnored;
      d.reason = "commit " + route.sha + " not found on GitHub";
    } else {
      for (const PullRequest& pr : *prs) {
        if (pr.state != "open") continue;
        const std::string key = SubjectKey(route.repo, pr.number);
        d.signals.push_back(Signal{key, route.reason, options_.debounce});
        if (!pr.head_sha.empty()) d.heads.emplace_back(key, pr.head_sha);
      }
      if (d.signals.empty()) {
        d.state = InboxState::kIgnored;
        d.reason = "no open pull request contains " + route.sha;
      } else {
        d.state = InboxState::kRouted;
        d.reason = "resolved through GitHub: " + std::to_string(d.signals.size()) + " PR(s)";
      }
    }
    decisions.push_back(std::move(d));
  }
  if (decisions.empty()) return 0;
  if (Status s = store_.inbox().ApplyRouting(decisions, clock_->Now()); !s.ok()) {
    Log(LogLevel::kWarn, "sweep.resolve").Field("error", s.ToString());
    return -1;
  }
  return std::count_if(decisions.begin(), decisions.end(),
                       [](const RouteDecision& x) { return x.state != InboxState::kUnresolved; });
}

void Sweeper::Loop() {
  SetThreadName("gh-sweeper");
  Time next_resolve = clock_->Now() + options_.resolve_interval;
  Time round_start = clock_->Now();
  std::vector<RepoTarget> round;
  size_t next = 0;
  SweepStats stats;
  while (!options_.sweep) {
    if (!WaitUntil(next_resolve)) return;
    ResolveOnce();
    next_resolve = clock_->Now() + options_.resolve_interval;
  }
  while (true) {
    // The next repository of this round is due at its share of the interval.
    if (next >= round.size()) {
      if (!round.empty() || next > 0) {
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
        // Nothing known yet: resolve meanwhile, and look again at the next interval.
        const Time next_round = clock_->Now() + options_.interval;
        while (clock_->Now() < next_round) {
          if (!WaitUntil(std::min(next_resolve, next_round))) return;
          if (clock_->Now() >= next_resolve) {
            ResolveOnce();
            next_resolve = clock_->Now() + options_.resolve_interval;
          }
        }
        round_start = clock_->Now();
        continue;
      }
    }
    const auto share = options_.interval / static_cast<int64_t>(round.size());
    const Time repo_due = round_start + share * static_cast<int64_t>(next);
    if (!WaitUntil(std::min(repo_due, next_resolve))) return;
    const Time now = clock_->Now();
    if (now >= next_resolve) {
      ResolveOnce();
      next_resolve = clock_->Now() + options_.resolve_interval;
    }
    if (now >= repo_due) SweepRepo(round[next++], stats);
  }
}

}  // namespace gatehouse
