// The planner: a pure function from a policy, a PR snapshot, the gate's verdict and a few
// facts from the ledger/audit to an ordered list of actions.
//
// Every action considered is either planned (in `Plan::actions`, to be executed through the
// action ledger, DESIGN.md §3) or skipped (in `Plan::skipped`, with the reason: the autonomy
// level, dry-run, already in that state, grace period not over, ...), so the audit log can say
// why nothing happened. Every action is bound to `snapshot.head_sha`; `(kind, head_sha,
// detail)` is its idempotency key within the PR (the ledger adds the subject).
//
// Autonomy is set per action class: `observe` executes nothing, `suggest` executes only the
// report class (check run and summary comment), `auto` executes everything. The global
// dry-run switch skips every action but still plans it. The rules are documented in
// docs/PLANNER.md.
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
#include "decide/policy.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// The hidden marker that identifies gatehouse's summary comment on a PR.
inline constexpr std::string_view kSummaryMarker = "<!-- gatehouse:summary -->";

// The name of gatehouse's check run on the head SHA.
inline constexpr std::string_view kCheckRunName = "gatehouse";

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
};
std::string_view ActionKindName(ActionKind kind);

// Autonomy is configured per class of actions rather than per kind.
enum class ActionClass {
  kReport,  // check_run, comment
  kLabel,   // label, unlabel
  kReview,  // approve, request_changes
  kMerge,   // merge, update_branch
  kClose,   // close, reopen_reclose, draft_dodge_close
};
std::string_view ActionClassName(ActionClass c);
ActionClass ClassOf(ActionKind kind);

enum class Autonomy { kObserve, kSuggest, kAuto };
std::string_view AutonomyName(Autonomy a);

enum class MergeMethod { kMerge, kSquash, kRebase };
std::string_view MergeMethodName(MergeMethod m);

// The planner's settings. They live here, not in Policy, until the policy file grows an
// `actions:` section; docs/PLANNER.md describes the planned mapping.
struct PlannerOptions {
  Autonomy autonomy = Autonomy::kObserve;          // every class without an override
  std::map<ActionClass, Autonomy> class_autonomy;  // per-class overrides
  bool dry_run = false;                            // plan everything, execute nothing
  MergeMethod merge_method = MergeMethod::kSquash;
  // How long the pending-closure label must have been on before a close.
  Duration close_grace = std::chrono::hours(72);
  bool update_branch = false;  // update a `behind` branch from its base
  // gatehouse's own login, to recognise its approvals in the snapshot's reviews.
  std::string app_login = "gatehouse[bot]";

  std::string label_ready = "ready-to-merge";
  std::string label_changes_requested = "changes-requested";
  std::string label_needs_human = "needs-human-review";
  std::string label_pending_closure = "pending-closure";
};

// Who reopened the PR last (from the `pull_request.reopened` event the engine recorded).
struct ReopenFact {
  std::string by;  // login
  AuthorRole role = AuthorRole::kNone;
  Time at{};
};

// Facts the engine supplies from its action ledger and audit log.
struct PlannerInput {
  std::optional<Time> now;                     // overrides snapshot.now when set
  std::optional<Time> closed_by_gatehouse_at;  // gatehouse closed this PR before
  std::optional<ReopenFact> last_reopen;       // the last reopen, if any
  std::optional<Time> pending_closure_since;   // when our pending-closure label was applied
  bool drafted_while_pending_closure = false;  // turned draft while pending closure
  std::optional<int64_t> summary_comment_id;   // the comment carrying kSummaryMarker
  std::string previous_summary;                // that comment's current body
};

struct PlannedAction {
  ActionKind kind = ActionKind::kCheckRun;
  std::string head_sha;
  std::string detail;  // part of the idempotency key: label name, comment id, ...
  std::string why;     // the rule that asked for the action

  // Payload, by kind.
  std::string label;                  // label, unlabel
  std::string body;                   // comment (with the marker), approve (review body)
  std::optional<int64_t> comment_id;  // comment: edit this one; nullopt: create
  MergeMethod merge_method = MergeMethod::kSquash;  // merge
  std::string expected_base_sha;                    // update_branch: the base it was behind
  std::string check_status;                         // check_run: completed or in_progress
  std::string check_conclusion;  // check_run: success, failure, neutral; empty if in_progress
  std::string check_title;       // check_run
  std::string check_summary;     // check_run

  // (kind, head_sha, detail) joined with '|'; the ledger prefixes the subject.
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

// The full summary comment body (starting with kSummaryMarker) for this verdict and head.
// Deterministic: it contains no time, so an unchanged verdict gives an unchanged body.
std::string RenderSummary(const PrSnapshot& pr, const GateVerdict& verdict);

Plan PlanActions(const Policy& policy, const PrSnapshot& pr, const GateVerdict& verdict,
                 const PlannerInput& facts, const PlannerOptions& options = PlannerOptions());

}  // namespace gatehouse::decide
