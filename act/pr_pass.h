// PrPass: one pass over one pull request (DESIGN.md §2-§3), the function the worker pool runs
// inside the PR's lease.
//
// Nothing decided before the claim is trusted: the pass reads everything it decides on after
// it holds the lease —
//   1. the live PR, its reviews, the check runs and combined status of its head SHA (and its
//      changed files when a protected-paths rule needs them);
//   2. the policy: the operator override file `<override_dir>/<owner>/<repo>.yml` if present,
//      else `.github/gatehouse.yml` on the default branch (GitHubClient caches it by ETag, so
//      an unchanged file costs a 304), merged over the server defaults;
//   3. facts from gatehouse's own records: the action ledger (did gatehouse close this PR,
//      since when is the pending-closure label on), the PR facts learned from webhooks (who
//      reopened it), the audit log (when this head was first seen), and the summary comment
//      found by its hidden marker;
// then evaluates the gate, plans, executes the plan through the action ledger (act/executor.h)
// and appends the verdict and every action (executed, skipped and why, superseded, failed) to
// the audit log. A mutation refused because the head moved ends the pass normally and signals
// the PR again, so a fresh pass decides on the new head.
//
// Errors: rate limits → PassOutcome::RateLimited (no attempt consumed); transient GitHub
// errors → Transient; a PR that no longer exists, or a repository with no known installation,
// → Done with an audit `error` entry (retrying cannot help). An invalid policy file is reported
// on the head as a failing check run (and in the audit log); nothing else is done until it is
// fixed.
//
// Thread-safe: one PrPass serves every worker of a pool; Run() may be called concurrently for
// different PRs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "act/executor.h"
#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "decide/policy.h"
#include "engine/worker_pool.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

struct PassConfig {
  decide::Policy defaults = decide::DefaultPolicy();  // server defaults under every repo file
  std::string policy_path = ".github/gatehouse.yml";
  std::string override_dir;  // "" = none; else <dir>/<owner>/<repo>.yml replaces the repo file
  bool dry_run = false;      // global switch: plan and audit everything, execute nothing
  // App mode: calls need the repository's installation id (learned from webhooks). Personal
  // token mode: every call uses installation 0.
  bool app_mode = true;
  ExecutorOptions executor;  // executor.app_login is gatehouse's login on GitHub
  // When set, asked for gatehouse's login (GET /app → "<slug>[bot]", or the token's user)
  // until it answers once; executor.app_login is used when this is unset, or as a logged
  // fallback when GitHub answers that it cannot tell (404, ...). Passes wait (transient) while
  // GitHub cannot answer at all: acting under a wrong login would post a new summary comment
  // per change and miss gatehouse's own approvals.
  std::function<GitHubResult<std::string>()> discover_login;
};

// Splits "owner/repo#12". False when `key` is not a PR subject.
bool ParseSubject(const std::string& key, RepoRef* repo, int64_t* number);

class PrPass {
 public:
  PrPass(Store& store, GitHub& github, ClockPtr clock, PassConfig config);

  // The worker pool's PassFn.
  PassOutcome Run(PassContext& ctx);

 private:
  struct LoadedPolicy {
    decide::Policy policy;
    std::string source;  // "defaults", the file path, or the override file
    std::string error;   // non-empty: the file is invalid (policy = defaults)
  };
  GitHubResult<LoadedPolicy> LoadPolicy(const CallContext& call, const RepoRef& repo);
  // gatehouse's login: config_.executor.app_login, or discovered once.
  GitHubResult<std::string> AppLogin();

  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  PassConfig config_;

  // Parsed policies by source text, so an unchanged file (a 304) is not parsed again.
  Mutex mu_;
  std::map<std::string, LoadedPolicy> parsed_ GUARDED_BY(mu_);  // key: source + '\0' + text
  std::optional<std::string> login_ GUARDED_BY(mu_);            // once discovered
};

}  // namespace gatehouse::act
