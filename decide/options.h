// PlannerOptions: the planner's settings, the `actions:` section of the policy file.
//
// They are a member of Policy (`Policy::actions`), so they are read from
// `.github/gatehouse.yml` and merged over the server defaults key by key like the rules
// (docs/POLICY.md). One field, `app_login`, is server configuration only: the policy file has
// no key for it, so a merge always keeps the server's value. The pass applies its server-wide
// overrides (the global dry-run switch, app_login) to `policy.actions` after the merge and
// before calling PlanActions (decide/planner.h); their meaning is in docs/PLANNER.md.
//
// Included by both decide/policy.h and decide/planner.h. All types are plain values; the
// functions are pure and safe from any thread.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace gatehouse::decide {

// Autonomy is configured per class of actions rather than per kind (ClassOf in planner.h).
enum class ActionClass {
  kReport,  // check_run, comment, review_run, reaction
  kLabel,   // label, unlabel
  kReview,  // approve, request_changes
  kMerge,   // merge, update_branch
  kClose,   // close, reopen_reclose, draft_dodge_close
};
std::string_view ActionClassName(ActionClass c);

// observe: execute nothing; suggest: execute only the report class; auto: execute everything.
enum class Autonomy { kObserve, kSuggest, kAuto };
std::string_view AutonomyName(Autonomy a);

enum class MergeMethod { kMerge, kSquash, kRebase };
std::string_view MergeMethodName(MergeMethod m);

// What the `gatehouse` check run tells (docs/PLANNER.md, "What the check run reports"):
// progress — the readiness score and every waiting condition's state, so it changes with each
// CI step; verdicts — the verdict, the names of the rules still waiting and every blocker, so
// it changes only when one of those does (fewer writes, less rate limit).
enum class Report { kProgress, kVerdicts };
std::string_view ReportName(Report r);

// The inverses of the Name functions: exact, lower-case names; nullopt for anything else.
std::optional<ActionClass> ParseActionClass(std::string_view name);
std::optional<Autonomy> ParseAutonomy(std::string_view name);
std::optional<MergeMethod> ParseMergeMethod(std::string_view name);
std::optional<Report> ParseReport(std::string_view name);

struct PlannerOptions {
  Autonomy autonomy = Autonomy::kObserve;          // every class without an override
  std::map<ActionClass, Autonomy> class_autonomy;  // per-class overrides of `autonomy`
  // Plan everything, execute nothing. A repository may turn it on; the server's global
  // dry-run switch is OR-ed in by the pass, so a repository can never turn it off.
  bool dry_run = false;
  MergeMethod merge_method = MergeMethod::kSquash;
  // How long the pending-closure label must have been on before a close.
  Duration close_grace = std::chrono::hours(72);
  bool update_branch = false;         // update a `behind` branch from its base
  Report report = Report::kProgress;  // what the check run tells
  // gatehouse's own login, to recognise its approvals in the snapshot's reviews. Server
  // configuration only: not a key of the policy file.
  std::string app_login = "gatehouse[bot]";

  std::string label_ready = "ready-to-merge";
  std::string label_changes_requested = "changes-requested";
  std::string label_needs_human = "needs-human-review";
  std::string label_pending_closure = "pending-closure";

  // The level in force for `c`: its override if any, else `autonomy`.
  Autonomy AutonomyFor(ActionClass c) const;

  bool operator==(const PlannerOptions&) const = default;
};

// The planner's settings for one pass: `repository` (the policy's `actions:`, merged over the
// server defaults) under the server's switches — `app_login` replaces the login, and
// `server_dry_run` is OR-ed in, so a repository can turn dry-run on for itself but never off.
PlannerOptions UnderServerSwitches(PlannerOptions repository, std::string app_login,
                                   bool server_dry_run);

}  // namespace gatehouse::decide
