// sim::CiBot: the repositories' CI as the simulator plays it (Repository::ci, sim/model.h).
// Whenever an open PR of a repository with CI gets a new head — opened, pushed, updated from
// its base (an update-branch, as a merge queue makes) — the bot starts each configured check
// on that SHA at once (a check run of the app "ci-bot", in progress) and completes it the
// configured duration later on the model's clock: `failure` when the PR is one the
// configuration fails, else `success`. Completing emits check_run.completed as any check run
// does, so gatehouse hears of it the way it hears of real CI.
//
// A commit POST /merges makes on a branch other than the default one (an integration branch)
// is tested the same way once it has stayed the branch's tip for CiConfig::branch_settle: a
// commit superseded (or a branch deleted) before that is never tested, as CI cancels a run a
// later push made moot. It fails when a PR merged into it is in `failing` or `failing_later`,
// and never completes when one is in `hanging_later`; its check runs list no pull request.
//
// Each commit tested is one CI run (runs()): what batching in a merge queue saves.
//
// Thread-safety: constructed and destroyed by the model's owner (it installs itself as the
// model's head observer, and the destructor stops its thread before the model may go); runs()
// from any thread. Time only through the injected clock: on a SimClock a run completes when a
// test moves the time past its end.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "sim/model.h"

namespace gatehouse::sim {

// The `who` (and so the check runs' app) of the bot's calls.
inline constexpr const char* kCiBotActor = "ci-bot";

class CiBot {
 public:
  CiBot(Model& model, ClockPtr clock);
  ~CiBot();
  CiBot(const CiBot&) = delete;
  CiBot& operator=(const CiBot&) = delete;

  // Commits whose checks the bot has started, since it was made (a superseded branch commit
  // is not one).
  int64_t runs() const;
  // Blocks until the bot has done everything due at the clock's current time (for tests: after
  // a change or a clock move, the checks it causes exist when this returns).
  void AwaitIdle();

 private:
  struct Job {
    HeadEvent head;
    Time due;  // when to start (a branch's commit: once settled), then when to complete
    bool started = false;
    std::vector<int64_t> run_ids{};  // the check runs started, to complete
    std::string conclusion{};        // decided at the start, from the repository's CiConfig
    // Not the first head of its PR the bot has seen; always for a branch's commit, which
    // holds its PRs combined.
    bool later = false;
  };

  void Observe(const HeadEvent& head);  // under the model's lock: queues, never calls back
  void Loop();
  // Waits for the earliest job to fall due and takes it; false when stopping.
  bool NextDueLocked(Job* out) REQUIRES(mu_);
  bool IdleLocked() const REQUIRES(mu_);
  void Start(Job& job);     // outside mu_: calls the model
  void Complete(Job& job);  // outside mu_: calls the model

  Model& model_;
  ClockPtr clock_;
  mutable Mutex mu_;
  CondVar cv_;
  std::vector<Job> jobs_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool busy_ GUARDED_BY(mu_) = false;  // a job taken from jobs_ is being worked on
  CondVar idle_cv_;
  int64_t runs_ GUARDED_BY(mu_) = 0;
  std::set<std::pair<std::string, int>> pulls_seen_ GUARDED_BY(mu_);  // (repo, number)
  std::thread thread_;
};

}  // namespace gatehouse::sim
