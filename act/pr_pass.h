// PrPass: one pass over one pull request (DESIGN.md §2-§3), run inside the PR's lease.
//
// Nothing decided before the claim is trusted. A pass is a short sequence of steps, each in a
// file named after it (docs/PASS.md, "One pass, step by step"):
//   1. who acts: the repository's installation, gatehouse's login (act/app_login.h);
//   2. read the live state: the PR, its policy (act/policy_source.h), its reviews, the check
//      runs and combined status of its head, its changed files (act/live_state.h);
//   3. read the history: the action ledger, the PR facts, the head occurrence
//      (act/pass_history.h), and settle what open intents GitHub shows were done;
//   3b. gatehouse's summary comment: from the ledger, or from the PR's comments
//      (act/live_state.h, ReadSummaryComment);
//   3c. the review runs and unanswered commands (act/pass_reviews.h): runs for a head that is
//      gone (a push, a close, a conversion to draft) are cancelled here;
//   3d. the merge queue's entries of the PR, when the policy enables the queue
//      (act/pass_queue.h);
//   4. evaluate and plan with decide/ (act/pass_decision.h), each role's verdict feeding the
//      gate and the review runs, reactions and replies to plan coming first;
//   5. settle open intents the plan no longer contains (act/settle_intents.h);
//   6. execute the plan through the action ledger (act/executor.h);
//   7. audit (act/pass_audit.h);
//   8. reschedule: superseded, mergeability rechecks, timers (act/pass_schedule.h).
//
// Errors: rate limits → PassOutcome::RateLimited (no attempt consumed); transient GitHub
// errors and any other failed read → Transient; a PR that no longer exists, or a repository
// with no known installation, → Done with an audit `error` entry (retrying cannot help). An
// invalid policy file is reported on the head as a failing check run (and in the audit log);
// nothing else is done until it is fixed.
//
// Thread-safe: one PrPass serves every worker of a pool; Run() may be called concurrently for
// different PRs (the store's fences keep two passes of one PR from both acting).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "act/app_login.h"
#include "act/executor.h"
#include "act/live_state.h"
#include "act/pass_audit.h"
#include "act/pass_history.h"
#include "act/pass_outcome.h"
#include "act/pass_reviews.h"
#include "act/policy_source.h"
#include "base/clock.h"
#include "decide/policy.h"
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
  // GitHub cannot answer at all (act/app_login.h).
  std::function<GitHubResult<std::string>()> discover_login;
  // The roles some reviewer of the server's reviewers file serves (docs/REVIEWERS.md): the
  // repository's `reviews:` rules request runs only for these.
  std::set<std::string> served_roles;
};

// Whether the pass's lease is gone: it ran out, or a renewal was rejected. Another worker may
// hold the PR then, and nothing the pass writes through its fence will be accepted, so the pass
// stops early when it sees it. Called from the pass's own thread.
using LeaseLostProbe = std::function<bool()>;

class PrPass {
 public:
  PrPass(Store& store, GitHub& github, ClockPtr clock, PassConfig config);

  // One pass over the PR `lease` names, under `lease.fence`, covering `lease.reasons`. The
  // engine's worker pool runs it through a PassFn that adapts its PassContext
  // (app/gatehouse_server.cc): act/ does not depend on engine/ (docs/PASS.md, "Layering").
  PassOutcome Run(const Lease& lease, const LeaseLostProbe& lease_lost);

  // gatehouse's login when known without asking GitHub (act::AppLogin::Known).
  std::optional<std::string> KnownLogin() { return login_.Known(); }

 private:
  // Step 1: the PR's repository, number and call context. nullopt with `*target` filled; else
  // the outcome that ends the pass.
  std::optional<PassOutcome> ResolveTarget(const Lease& lease, PassAudit& audit, Target* target);
  // Step 3c: the PR's review runs and unanswered commands; runs for a gone head end here.
  std::optional<PassOutcome> ReadReviews(const Lease& lease, const LiveState& live,
                                         const PassHistory& history, const std::string& app_login,
                                         PrReviewState* reviews);

  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  const PassConfig config_;
  PolicySource policies_;
  AppLogin login_;
};

}  // namespace gatehouse::act
