// Sweeper: the safety net under the webhooks (issue 5, DESIGN.md §2).
//
// Webhooks get lost (GitHub does not redeliver by itself), arrive for commits no known PR has,
// or stop while a PR waits for a timer (a grace period, a check that never reports). The
// sweeper makes sure every open PR gets a pass anyway:
//
//  - every `interval` (default 10 minutes) it lists the repositories of every known
//    installation (GET /installation/repositories) plus those learned from webhooks, then the
//    open PRs of each (paginated), and routes a `swept` signal into each PR's work item — the
//    same items webhooks signal, so a sweep and a webhook at the same instant share one pass.
//    Repositories are spread evenly over the interval, and every call is a background call:
//    it stays out of the rate-limit reserve kept for passes, and a repository whose calls are
//    refused for the reserve is simply left to the next round;
//  - every `resolve_interval` (default 30 s) it asks GitHub which PRs contain the commit of
//    each delivery the router left `unresolved` (GET /repos/{o}/{r}/commits/{sha}/pulls) and
//    routes the delivery to the open ones, or marks it `ignored` when no open PR has it (or
//    when no installation is known to ask with), `dead` when its body cannot be decoded.
//
// Repositories found through an installation are remembered with it (Store::RecordLearned),
// so that passes for their PRs know which installation to act as.
//
// The intervals are measured on the injected Clock: on a SimClock a round or a resolve comes
// due when the test moves the time past it.
//
// Thread-safe. Start() once, Stop() joins. SweepOnce() and ResolveOnce() run one round on the
// caller's thread (tests, `gatehouse` tools).
#pragma once

#include <cstdint>
#include <functional>
#include <thread>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse {

struct SweepOptions {
  bool sweep = true;  // false: only resolve unresolved deliveries
  Duration interval = std::chrono::minutes(10);
  Duration resolve_interval = std::chrono::seconds(30);
  Duration debounce = std::chrono::seconds(1);  // for every swept or resolved signal
  // App mode: repositories are listed per installation. Personal-token mode: only the
  // repositories learned from webhooks are swept, all under installation 0.
  bool app_mode = true;
  size_t resolve_batch = 100;
  // The resolver claims the unresolved deliveries it looks up (Inbox::ClaimDeliveries) a chunk
  // at a time, each chunk for long enough for its GitHub lookups; one that dies leaves its
  // chunk to another (or to itself, restarted) after the lease.
  std::string resolve_owner = "resolver";
  size_t resolve_chunk = 10;
  Duration resolve_lease = std::chrono::seconds(20);
};

struct SweepStats {
  int64_t repos = 0;     // repositories whose open PRs were listed
  int64_t skipped = 0;   // repositories left to the next round (rate limit, errors)
  int64_t prs = 0;       // open PRs signalled
  int64_t resolved = 0;  // unresolved deliveries routed or ignored
};

class Sweeper {
 public:
  // `on_signalled` runs after signals were enqueued (wired to WorkerPool::Wake).
  Sweeper(Store& store, GitHub& github, ClockPtr clock, SweepOptions options,
          std::function<void()> on_signalled = nullptr);
  ~Sweeper();

  void Start();
  void Stop();

  // One full sweep now, without spreading (every repository back to back).
  SweepStats SweepOnce();
  // Resolves the currently unresolved deliveries once.
  SweepStats ResolveOnce();

 private:
  // Decides one claimed chunk of unresolved deliveries and applies the decisions; returns how
  // many reached a terminal state, or -1 when applying failed.
  int64_t ResolveChunk(const std::vector<InboxEntry>& open);
  struct RepoTarget {
    RepoRef repo;
    int64_t installation_id = 0;
  };
  std::vector<RepoTarget> ListTargets();
  bool SweepRepo(const RepoTarget& target, SweepStats& stats);
  void Loop();
  // Waits until the clock reaches `deadline` or Stop(); false when stopping.
  bool WaitUntil(Time deadline);
  bool Stopping();

  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  SweepOptions options_;
  std::function<void()> on_signalled_;

  Mutex mu_;
  CondVar cv_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace gatehouse
