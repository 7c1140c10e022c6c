// Sweeper: the safety net under the webhooks (issue 5, DESIGN.md §2).
//
// Webhooks get lost (GitHub does not redeliver by itself), or stop while a PR waits for a
// timer (a grace period, a check that never reports). The sweeper makes sure every open PR
// gets a pass anyway: every `interval` (default 10 minutes) it lists the repositories of every
// known installation (GET /installation/repositories) plus those learned from webhooks, then
// the open PRs of each (paginated), and routes a `swept` signal into each PR's work item — the
// same items webhooks signal, so a sweep and a webhook at the same instant share one pass.
// Repositories are spread evenly over the interval, and every call is a background call: it
// stays out of the rate-limit reserve kept for passes, and a repository whose calls are
// refused for the reserve is simply left to the next round.
//
// Repositories found through an installation are remembered with it (RepoDirectory::RecordLearned),
// so that passes for their PRs know which installation to act as. (Deliveries the router could
// not route are the DeliveryResolver's, engine/delivery_resolver.h.)
//
// The interval is measured on the injected Clock: on a SimClock a repository comes due when the
// test moves the time past its share of the interval.
//
// Thread-safe. Start() once, Stop() joins. SweepOnce() runs one round on the caller's thread
// (tests, `gatehouse` tools).
#pragma once

#include <cstdint>
#include <functional>

#include "base/clock.h"
#include "base/loop_thread.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse {

struct SweepOptions {
  Duration interval = std::chrono::minutes(10);  // one round; must be positive
  Duration debounce = std::chrono::seconds(1);   // for every swept signal
  // App mode: repositories are listed per installation. Personal-token mode: only the
  // repositories learned from webhooks are swept, all under installation 0.
  bool app_mode = true;
};

struct SweepStats {
  int64_t repos = 0;    // repositories whose open PRs were listed
  int64_t skipped = 0;  // repositories left to the next round (rate limit, errors)
  int64_t prs = 0;      // open PRs signalled
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

 private:
  struct RepoTarget {
    RepoRef repo;
    int64_t installation_id = 0;
  };
  std::vector<RepoTarget> ListTargets();
  bool SweepRepo(const RepoTarget& target, SweepStats& stats);
  void Loop();

  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  SweepOptions options_;
  std::function<void()> on_signalled_;

  LoopThread loop_;  // last: stopped (in ~Sweeper) before the members its loop uses go
};

}  // namespace gatehouse
