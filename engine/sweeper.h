// Sweeper: the safety net under the webhooks (issue 5, DESIGN.md §2).
//
// Webhooks get lost (GitHub does not redeliver by itself), or stop while a PR waits for a
// timer (a grace period, a check that never reports). The sweeper makes sure every open PR
// gets a pass anyway: every `interval` (default 10 minutes) it lists the App's installations
// (GET /app/installations, App mode) and those learned from webhooks, the repositories of each
// (GET /installation/repositories) plus those learned from webhooks, then the open PRs of each
// (paginated, conditional), and routes a `swept` signal into the work item of each PR that is
// new or changed — the same items webhooks signal, so a sweep and a webhook at the same
// instant share one pass.
//
// What a round signals (docs/PASS.md, "The sweeper"): a *changes* round only the PRs whose
// listing row (head SHA, `updated_at`) differs from the previous round's, or that the previous
// round did not see, so a sweep of an unchanged world costs one (usually free, 304) listing per
// repository and no pass. A check run, a status or a moved base does not move a PR's
// `updated_at`; webhooks and delivery recovery carry those, and the *full* round (the first
// after start, and every `full_every`-th after it) is the net under both. It lists each
// repository's open PRs with their heads' checks and whether each is behind its base or
// conflicts with it (GitHub::ListOpenPullChecks, one GraphQL request per 100 PRs), and signals
// those whose row, behind/conflicting state or checks moved since the previous full round's, or
// that it did not see. The first round after start has nothing to compare with and signals
// every open PR; so does a full round whose listing with checks cannot be had (no GraphQL),
// over the REST listing.
//
// The first round after start runs back to back (catching up after downtime as fast as the
// rate limit allows); later rounds spread their repositories evenly over the interval. Every
// call is a background call: it stays out of the rate-limit reserve kept for passes, and a
// repository whose calls are refused for the reserve is simply left to the next round: a
// changes round forgets its row listing (the next one signals all its PRs), a full round keeps
// what the last full round saw (the next one compares with it, and so sees every change since).
//
// Every `deep_every`-th full round is *deep* (the first round after start is one): it signals
// every open PR, the net under what only time or GitHub's side changes and no listing shows.
//
// Repositories found through an installation are remembered with it (RepoDirectory::RecordLearned),
// so that passes for their PRs know which installation to act as. (Deliveries the router could
// not route are the DeliveryResolver's, engine/delivery_resolver.h.)
//
// The interval is measured on the injected Clock: on a SimClock a repository comes due when the
// test moves the time past its share of the interval.
//
// Thread-safe. Start() once, Stop() joins. SweepOnce() runs one round on the caller's thread
// (tests, `gatehouse` tools); it and the loop share the memory of the previous round.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/loop_thread.h"
#include "base/metrics.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/app_installations.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse {

struct SweepOptions {
  Duration interval = std::chrono::minutes(10);  // one round; must be positive
  Duration debounce = std::chrono::seconds(1);   // for every swept signal
  // App mode: repositories are listed per installation. Personal-token mode: only the
  // repositories learned from webhooks are swept, all under installation 0.
  bool app_mode = true;
  // Every how many rounds a round is full (compares checks and the policy file too); 1 = every
  // round. The first round after start is always full. Must be positive.
  int full_every = 6;
  // Every how many full rounds a full round is *deep*: it signals every open PR, whatever its
  // print says (1 = every full round; the first round after start is deep). The net under
  // what only time or GitHub's side changes and no listing shows: a mergeability GitHub
  // computed after a pass stopped waiting for it, a merge branch protection refused on a head
  // that did not move, a timer signal that could not be stored, a change of branch protection.
  // Default 24: daily at the default interval. Must be positive.
  int deep_every = 24;
  // App mode: the App's installation listing (GET /app/installations), asked each round; null
  // to sweep only the installations learned from webhooks. Must outlive the sweeper.
  AppInstallations* installations = nullptr;
  // The policy file on each repository's default branch (act::PolicySource's policy_path): a
  // full round lists its object id, and signals every open PR of a repository whose file
  // changed since the previous full round (its push is not a webhook gatehouse routes).
  std::string policy_path = ".github/gatehouse.yml";
  // What else a repository's policy comes from, as text that changes when it does (the
  // operator's override file's content, "" without one); null when nothing else.
  std::function<std::string(const RepoRef&)> local_policy = nullptr;
};

struct SweepStats {
  bool full = false;      // a full round (checks and the policy file compared too)
  bool deep = false;      // a deep full round (every open PR signalled)
  int64_t repos = 0;      // repositories whose open PRs were listed
  int64_t skipped = 0;    // repositories left to the next round (rate limit, errors)
  int64_t prs = 0;        // open PRs signalled
  int64_t unchanged = 0;  // open PRs not signalled: listed as in the previous round
};

class Sweeper {
 public:
  // `on_signalled` runs after signals were enqueued (wired to WorkerPool::Wake).
  Sweeper(Store& store, GitHub& github, ClockPtr clock, SweepOptions options,
          std::function<void()> on_signalled = nullptr);
  ~Sweeper();

  void Start();
  void Stop();

  // One round now, without spreading (every repository back to back): full or changes-only as
  // the round count says (the first one is full).
  SweepStats SweepOnce();

  // Registers gatehouse_sweep_* (docs/METRICS.md) on `registry`, which must outlive the
  // sweeper. Call at most once, before Start().
  void RegisterMetrics(metrics::Registry& registry);

 private:
  struct RepoTarget {
    RepoRef repo;
    int64_t installation_id = 0;
  };
  // What the listing said of one open PR, to tell a changed one from an unchanged one.
  using Fingerprint = std::string;
  using RepoListing = std::map<int64_t, Fingerprint>;  // PR number -> fingerprint

  struct Metrics {
    metrics::Family<metrics::Counter>* rounds = nullptr;
    metrics::Family<metrics::Counter>* prs = nullptr;
    metrics::Family<metrics::Counter>* repos = nullptr;
    metrics::Gauge* last_round_seconds = nullptr;
  };

  std::vector<RepoTarget> ListTargets();
  std::vector<int64_t> ListInstallations(const std::vector<RepoInstallation>& known);
  // Starts a round: sets whether it is full, and deep (and counts it).
  void BeginRound(SweepStats& stats);
  void EndRound(const SweepStats& stats, Time started);
  // Lists one repository and signals its PRs: in a changes round those whose listing row moved
  // since the previous round's; in a full round (stats.full) those whose row, merge state or
  // head checks moved since the previous full round's (GitHub::ListOpenPullChecks), or every
  // one when that listing is not to be had.
  bool SweepRepo(const RepoTarget& target, SweepStats& stats);
  bool SweepChecked(const RepoTarget& target, const std::vector<OpenPullChecks>& pulls,
                    const std::string& policy, SweepStats& stats);
  // Enqueues `signals` and remembers the listings (`checked` when the round had one); on a
  // failed enqueue forgets the repository's row listing instead (Forget).
  bool Commit(const std::string& key, const std::vector<Signal>& signals, RepoListing listing,
              std::optional<RepoListing> checked, SweepStats& stats);
  // Forgets the repository's row listing, so that the next changes round signals all of it.
  // What the last full round saw is kept: the next full round compares with it, and so sees
  // every change since, whatever happened in between.
  void Forget(const std::string& key);
  void Loop();

  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  SweepOptions options_;
  std::function<void()> on_signalled_;
  Metrics metrics_;

  Mutex mu_;
  int64_t rounds_ GUARDED_BY(mu_) = 0;  // rounds begun since start
  // The previous listing of each repository (lower-case full name), as far as it was signalled.
  std::map<std::string, RepoListing> listings_ GUARDED_BY(mu_);
  // The previous full round's listing with checks of each repository, as far as it was
  // signalled: row, merge state and head checks per PR (ChecksPrint in sweeper.cc).
  std::map<std::string, RepoListing> checked_ GUARDED_BY(mu_);

  LoopThread loop_;  // last: stopped (in ~Sweeper) before the members its loop uses go
};

}  // namespace gatehouse
