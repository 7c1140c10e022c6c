// The planner: a pure function from a policy, a PR snapshot, the gate's verdict and a few
// facts from the ledger/audit to an ordered list of actions.
//
// Every action considered is either planned (in `Plan::actions`, to be executed through the
// action ledger, DESIGN.md §3) or skipped (in `Plan::skipped`, with the reason: the autonomy
// level, dry-run, already in that state, grace period not over, ...), so the audit log can say
// why nothing happened. Every action is bound to `snapshot.head_sha`; `(kind, head_sha,
// head_occurrence, detail)` is its idempotency key within the PR (the ledger adds the subject).
//
// Autonomy is set per action class: `observe` executes nothing, `suggest` executes only the
// report class (check run and summary comment), `auto` executes everything. The dry-run
// switch skips every action but still plans it. These settings (PlannerOptions, in
// decide/options.h) are the policy file's `actions:` section, `Policy::actions`. The rules are
// documented in docs/PLANNER.md.
//
// No I/O and no clock: the instant is `facts.now` if set, else `snapshot.now`. All types are
// plain values; PlanActions is safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "decide/gate.h"
#include "decide/options.h"
#include "decide/policy.h"
#include "decide/queue_standing.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// The hidden marker that identifies gatehouse's summary comment on a PR.
inline constexpr std::string_view kSummaryMarker = "<!-- gatehouse:summary -->";

// The name of gatehouse's check run on the head SHA.
inline constexpr std::string_view kCheckRunName = "gatehouse";
// The merge queue's check run on a queued PR's head (docs/MERGE_QUEUE.md "Visibility"): its
// ledger detail starts "gatehouse/queue:", which is how a settled intent knows its name.
inline constexpr std::string_view kQueueCheckRunName = "gatehouse/queue";

// Action kinds, named as in DESIGN.md §8.
enum class ActionKind {
  kMerge,
  kApprove,
  kRequestChanges,  // reserved: not planned yet (see docs/PLANNER.md)
  kClose,
  kReopenReclose,
  kDraftDodgeClose,
  kLabel,
  kUnlabel,
  kComment,
  kCheckRun,
  kUpdateBranch,
  // Reviewer dispatch (docs/REVIEWERS.md), class report. PlanActions never plans these: the
  // pass builds them from decide/review_plan.h's decisions and runs them through the same ledger.
  kReviewRun,  // request a review run: `role`, `trigger` (detail "<role>:<trigger>")
  kReaction,   // acknowledge a command comment: `reaction` on `comment_id`
  // The merge queue (docs/MERGE_QUEUE.md), class merge: gatehouse's own records in the store,
  // not GitHub calls, ledgered like review runs. Planned in place of `merge` when the policy's
  // merge queue is enabled.
  kQueueEnter,  // enter the head into `queue` with `queue_priority` (detail: the queue's key,
                //   "+comment:<id>" after it when a command admits the head once more)
  kQueueLeave,  // drop the PR's open entry (detail "entry:<id>"), the reason in `why`
  // The queue's own pass (integration_branch): fast-forward the base branch of `queue` to the
  // tested integration SHA `head_sha` (detail "batch:<id>"). GitHub marks the batch's PRs merged.
  kLandBatch,
};
std::string_view ActionKindName(ActionKind kind);
// The inverse of ActionKindName (the ledger's `kind` column); nullopt for anything else.
std::optional<ActionKind> ParseActionKind(std::string_view name);

// The autonomy class of an action kind (classes and PlannerOptions are in decide/options.h).
ActionClass ClassOf(ActionKind kind);

// Who reopened the PR last (from the `pull_request.reopened` event the engine recorded).
struct ReopenFact {
  std::string by;  // login
  AuthorRole role = AuthorRole::kNone;
  Time at{};
};

// Facts the engine supplies from its action ledger and audit log.
struct PlannerInput {
  // Which time the PR's head became snapshot.head_sha (docs/ACTIONS.md, "Head occurrences");
  // every planned action is bound to it.
  int64_t head_occurrence = 1;
  // The detail (as in PlannedAction::detail, without a generation) of gatehouse's latest
  // check run on the head, "" when it has none: an unchanged check run is not written again.
  std::string check_run_detail;
  std::optional<Time> now;                     // overrides snapshot.now when set
  std::optional<Time> closed_by_gatehouse_at;  // gatehouse closed this PR before
  std::optional<ReopenFact> last_reopen;       // the last reopen, if any
  std::optional<Time> pending_closure_since;   // when our pending-closure label was applied
  bool drafted_while_pending_closure = false;  // turned draft while pending closure
  std::optional<int64_t> summary_comment_id;   // the comment carrying kSummaryMarker
  std::string previous_summary;                // that comment's current body, when read
  // Or, known from the ledger (decide/summary_record.h) without a read, the StableDigest of
  // the body gatehouse last gave it.
  std::string previous_summary_digest;
  // The PR's merge queue and its entries there; read only when the policy's merge queue is
  // enabled (then `merge` is never planned: queue_enter and queue_leave are).
  QueueFacts queue;
};

struct PlannedAction {
  ActionKind kind = ActionKind::kCheckRun;
  std::string head_sha;
  int64_t head_occurrence = 1;  // PlannerInput::head_occurrence
  std::string detail;           // part of the idempotency key: label name, comment id, ...
  std::string why;              // the rule that asked for the action

  // Payload, by kind.
  std::string label;                  // label, unlabel
  std::string body;                   // comment (with the marker), approve (review body)
  std::optional<int64_t> comment_id;  // comment: edit this one; nullopt: create.
                                      // reaction: the comment reacted to
  MergeMethod merge_method = MergeMethod::kSquash;  // merge
  std::string expected_base_sha;                    // update_branch: the base it was behind
  std::string check_status;                         // check_run: completed or in_progress
  std::string check_conclusion;  // check_run: success, failure, neutral; empty if in_progress
  std::string check_title;       // check_run
  std::string check_summary;     // check_run
  // check_run: the run's name ("" = kCheckRunName, or kQueueCheckRunName for a detail that
  // starts "gatehouse/queue:"); see CheckRunNameOf.
  std::string check_name;
  std::string role;              // review_run: the review role
  std::string trigger;           // review_run: "auto" or "comment:<id>"
  std::string reaction;          // reaction: GitHub's content name, e.g. "+1", "eyes"
  std::string queue;             // queue_enter: the queue's key, "owner/repo@main/queue"
  int queue_priority = 0;        // queue_enter
  int64_t queue_admitted_by = 0;  // queue_enter: the command admitting the head (QueueEntryKey)
  std::string queue_keep_sha;    // queue_leave: an entry of this head (or tested SHA) stays

  // (kind, head, detail) joined with '|', the head written "SHA" for its first occurrence and
  // "SHA@N" for the N-th; the ledger prefixes the subject. It is also the check run's
  // external_id, which is how a check run is recognised as this action's.
  std::string Key() const;
};

struct SkippedAction {
  PlannedAction action;  // as it would have been executed
  std::string reason;    // observe, suggest, dry-run, already in that state, ...
};

struct Plan {
  std::vector<PlannedAction> actions;  // in execution order
  std::vector<SkippedAction> skipped;
};

// The name of the check run a check_run action writes: `check_name`, else kQueueCheckRunName
// when its detail starts "gatehouse/queue:", else kCheckRunName.
std::string CheckRunNameOf(const PlannedAction& a);

// The `gatehouse` check run's summary (starting with kSummaryMarker) for this verdict and
// head. Report::kProgress: the score, the reviews, and every blocker, waiting item and warning
// with its reason. Report::kVerdicts: the verdict, the reviews, every blocker, and only the
// names of the rules still waiting or warning. Deterministic: it contains no time, so an
// unchanged verdict gives an unchanged text.
std::string RenderSummary(const PrSnapshot& pr, const GateVerdict& verdict,
                          Report report = Report::kProgress);

// The summary comment's body (starting with kSummaryMarker): the verdict, the head, the
// reviews, every blocker with its reason, and only the names of the rules still waiting or
// warning (docs/PLANNER.md, "The summary comment"). What changes with each CI step (the
// score, which checks are still running) is the check run's, so the comment — which every
// edit costs a request and shows as edited — changes when there is something to act on.
// `queue_line`: the merge queue's line (QueueSummaryLine), after the verdict when not empty.
std::string RenderSummaryComment(const PrSnapshot& pr, const GateVerdict& verdict,
                                 std::string_view queue_line = "");

// Plans with `options` as the planner's settings; `policy.actions` is ignored. The pass calls
// it as PlanActions(policy, pr, verdict, facts, policy.actions) after applying its server-wide
// overrides (dry-run, app_login) to `policy.actions`.
Plan PlanActions(const Policy& policy, const PrSnapshot& pr, const GateVerdict& verdict,
                 const PlannerInput& facts, const PlannerOptions& options);

// Plans with the policy's own settings: PlanActions(policy, pr, verdict, facts, policy.actions).
Plan PlanActions(const Policy& policy, const PrSnapshot& pr, const GateVerdict& verdict,
                 const PlannerInput& facts);

}  // namespace gatehouse::decide
