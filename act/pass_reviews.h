// The reviews side of a PR's pass (docs/REVIEWERS.md, "The PR's pass"): the PR's review runs
// and the command comments not handled yet (history), each role's verdict at the current head
// for the gate, the runs, reactions and replies to plan, and the cancellation of runs for a
// head that is gone.
//
// Free functions; safe to call concurrently for different PRs.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "act/pass_outcome.h"
#include "base/clock.h"
#include "decide/planner.h"
#include "decide/policy.h"
#include "decide/prior_action.h"
#include "decide/review_plan.h"
#include "decide/snapshot.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

struct PrReviewState {
  std::vector<ReviewRun> runs;                   // every role, oldest first
  std::vector<decide::CommandComment> commands;  // command comments not handled yet
  // Comment ids gatehouse answered already, on any head: with a run, a reaction, a reply.
  std::set<int64_t> commanded, reacted, replied;
};

// Reads the PR's runs, and turns its `command:<id>` facts into the comments not handled yet: not
// acknowledged with a reaction, or answered by neither a run nor a reply (on any head: a
// comment is handled once; a reaction or reply that failed is tried again). nullopt on
// success; else Transient (the store failed).
// `app_login` tells gatehouse's commands apart (a queue command is done once acknowledged).
std::optional<PassOutcome> ReadPrReviews(Store& store, const std::string& subject,
                                         const std::vector<PrFact>& facts,
                                         const std::vector<decide::PriorAction>& ledger,
                                         const std::string& app_login, PrReviewState* state);

// The runs as decide/ sees them.
std::vector<decide::KnownRun> KnownRuns(const std::vector<ReviewRun>& runs);

// One RoleReview per role rule that applies to the PR (decide::RoleApplies), from the latest
// run of that role at the current head: its state, result and reviewer; "missing" when there
// is none. A role no reviewer serves is "dead" with that reason (a required one blocks).
std::vector<decide::RoleReview> RoleReviewsAt(const decide::ReviewsPolicy& policy,
                                              const decide::PrSnapshot& pr,
                                              const std::vector<ReviewRun>& runs,
                                              const std::set<std::string>& served_roles);

// What the merge queue's commands are acknowledged against (decide::DecideQueueCommand).
struct QueueCommandContext {
  bool enabled = false;  // the PR's base has a merge queue
  std::string base_ref;
  decide::Autonomy merge_level = decide::Autonomy::kObserve;  // before any `merge` grant
};

// The command actions of this pass, to run before the rest of the plan: one review_run per run
// decide::PlanReviewRuns asks for (detail "<role>:<trigger>"), and for each command comment a
// reaction (detail "comment:<id>": +1 for an accepted command, confused for a refused one) and,
// for a refused one, a reply saying why (detail "reply:<id>"; for a queue command it comes
// first, decide/queue_commands.h).
std::vector<decide::PlannedAction> PlanReviewActions(
    const decide::ReviewsPolicy& policy, const decide::PrSnapshot& pr, const PrReviewState& state,
    const std::vector<std::string>& reasons, const std::string& app_login,
    const std::set<std::string>& served_roles, int64_t head_occurrence,
    const QueueCommandContext& queue);

// Ends every run that can no longer be reviewed on `pr` (closed, merged, draft: all; else those
// for another head), fenced by the PR's lease. Writes nothing when there is none. nullopt on
// success; else Transient.
std::optional<PassOutcome> CancelStaleRuns(Store& store, const std::string& subject, int64_t fence,
                                           const PullRequest& pr,
                                           const std::vector<ReviewRun>& runs, Time now,
                                           std::vector<std::string>* cancelled_keys);

// The hidden last line of gatehouse's reply to command comment `comment_id`: how a reply whose
// answer was lost is found again when its intent is settled without its body (act/reconcile.h).
std::string ReplyMarker(int64_t comment_id);

// "role:trigger" <-> its parts (the review_run action's detail).
std::string ReviewRunDetail(const std::string& role, const std::string& trigger);
bool ParseReviewRunDetail(std::string_view detail, std::string* role, std::string* trigger);

}  // namespace gatehouse::act
