#include "decide/planner.h"

#include <algorithm>
#include <map>
#include <utility>

#include "decide/digest.h"
#include "decide/labels.h"
#include "decide/review_body.h"
#include "decide/reviews.h"

namespace gatehouse::decide {
namespace {

// Read as the gate's approvals rule reads the reviews.
bool HasOutstandingChangeRequest(const PrSnapshot& pr) {
  const auto latest = LatestDecidingReviews(pr);
  return std::any_of(latest.begin(), latest.end(),
                     [](const auto& e) { return e.second->state == "CHANGES_REQUESTED"; });
}

bool HasOwnApprovalOnHead(const PrSnapshot& pr, const PlannerOptions& options) {
  return std::any_of(pr.reviews.begin(), pr.reviews.end(), [&](const Review& r) {
    return r.user == options.app_login && r.state == "APPROVED" && r.commit_id == pr.head_sha;
  });
}

bool HasBlockerFrom(const GateVerdict& v, std::string_view rule) {
  return std::any_of(v.blockers.begin(), v.blockers.end(),
                     [&](const Finding& f) { return f.rule == rule; });
}

void AppendFindings(std::string& out, std::string_view title, const std::vector<Finding>& list) {
  if (list.empty()) return;
  out += "\n**";
  out += title;
  out += "**\n";
  for (const Finding& f : list) out += "- `" + f.rule + "`: " + f.reason + "\n";
}

// " Waiting on `ci`, `approvals`." — each rule once, in the order of `list`; nothing when empty.
void AppendRuleNames(std::string& out, std::string_view lead, const std::vector<Finding>& list) {
  std::vector<std::string_view> rules;
  for (const Finding& f : list) {
    if (std::find(rules.begin(), rules.end(), f.rule) == rules.end()) rules.push_back(f.rule);
  }
  if (rules.empty()) return;
  out += lead;
  for (size_t i = 0; i < rules.size(); ++i) {
    out += (i == 0 ? "`" : ", `");
    out += rules[i];
    out += "`";
  }
  out += ".";
}

std::string CheckTitle(const GateVerdict& v, Report report) {
  std::string title = "gatehouse: " + std::string(VerdictName(v.verdict));
  if (report == Report::kProgress) title += " (score " + std::to_string(v.score) + ")";
  return title;
}

// Collects the plan, applying dry-run and the per-class autonomy to each proposed action.
class PlanBuilder {
 public:
  PlanBuilder(const PrSnapshot& pr, const PlannerOptions& options, int64_t head_occurrence)
      : pr_(pr), options_(options), head_occurrence_(head_occurrence) {}

  const PlannerOptions& options() const { return options_; }

  PlannedAction Make(ActionKind kind, std::string detail, std::string why) const {
    PlannedAction a;
    a.kind = kind;
    a.head_sha = pr_.head_sha;
    a.head_occurrence = head_occurrence_;
    a.detail = std::move(detail);
    a.why = std::move(why);
    return a;
  }

  // An action the rules ask for: executed, or skipped for dry-run or autonomy.
  void Propose(PlannedAction a) {
    if (options_.dry_run) return Skip(std::move(a), "dry-run");
    const Autonomy level = options_.AutonomyFor(ClassOf(a.kind));
    if (level == Autonomy::kObserve) return Skip(std::move(a), "observe");
    if (level == Autonomy::kSuggest && ClassOf(a.kind) != ActionClass::kReport) {
      return Skip(std::move(a), "suggest");
    }
    plan_.actions.push_back(std::move(a));
  }

  // gatehouse's own bookkeeping with no effect on GitHub (leaving the merge queue): only the
  // server's dry-run holds it back, never the autonomy that let the PR in.
  void ProposeBookkeeping(PlannedAction a) {
    if (options_.dry_run) return Skip(std::move(a), "dry-run");
    plan_.actions.push_back(std::move(a));
  }

  // An action considered but not needed or not allowed by the rules.
  void Skip(PlannedAction a, std::string reason) {
    plan_.skipped.push_back(SkippedAction{std::move(a), std::move(reason)});
  }

  Plan Take() { return std::move(plan_); }

 private:
  const PrSnapshot& pr_;
  const PlannerOptions& options_;
  const int64_t head_occurrence_;
  Plan plan_;
};

void PlanCheckRun(const PrSnapshot& pr, const GateVerdict& v, const PlannerInput& facts,
                  PlanBuilder& b) {
  PlannedAction a = b.Make(ActionKind::kCheckRun, "", "always reported");
  a.check_title = CheckTitle(v, b.options().report);
  a.check_summary = RenderSummary(pr, v, b.options().report);
  switch (v.verdict) {
    case Verdict::kPass:
      a.check_status = "completed";
      a.check_conclusion = "success";
      break;
    case Verdict::kFail:
      a.check_status = "completed";
      a.check_conclusion = "failure";
      break;
    case Verdict::kNeutral:
      a.check_status = "completed";
      a.check_conclusion = "neutral";
      break;
    case Verdict::kPending:
      a.check_status = "in_progress";
      break;
  }
  // A changed verdict or summary on the same head is a new write of the same check run.
  a.detail = std::string(kCheckRunName) + ":" + a.check_status + ":" + a.check_conclusion + ":" +
             StableDigest(a.check_summary);
  // The head's latest gatehouse check run already says this (a head that came back finds the
  // run of its earlier occurrence): writing it again would change nothing on GitHub.
  if (facts.check_run_detail == a.detail) return b.Skip(std::move(a), "already in that state");
  // A closed or merged PR keeps a completed check run: its conclusion is the verdict the PR
  // was merged or closed under. Only one still in progress (or none) is completed as neutral,
  // so that nothing shows "in progress" forever.
  const std::string completed = std::string(kCheckRunName) + ":completed:";
  if (pr.state != "open" && facts.check_run_detail.starts_with(completed)) {
    return b.Skip(std::move(a), "closed: its last verdict stands");
  }
  b.Propose(std::move(a));
}

void PlanSummaryComment(const PrSnapshot& pr, const GateVerdict& v, const PlannerInput& facts,
                        const std::optional<QueueStanding>& queue, PlanBuilder& b) {
  PlannedAction a = b.Make(ActionKind::kComment, "", "summary comment");
  a.body = RenderSummaryComment(pr, v, queue ? QueueSummaryLine(facts.queue, *queue) : "");
  if (!facts.summary_comment_id) {
    a.detail = "summary:new";
    return b.Propose(std::move(a));
  }
  a.comment_id = facts.summary_comment_id;
  a.detail = "summary:" + std::to_string(*facts.summary_comment_id) + ":" + StableDigest(a.body);
  const bool unchanged = facts.previous_summary_digest.empty()
                             ? facts.previous_summary == a.body
                             : facts.previous_summary_digest == StableDigest(a.body);
  if (unchanged) return b.Skip(std::move(a), "already in that state");
  b.Propose(std::move(a));
}

struct LabelWish {
  std::string name;
  bool wanted;
  std::string why;
};

void PlanLabels(const std::vector<LabelWish>& wishes, const PrSnapshot& pr, PlanBuilder& b) {
  // Removals first, so a PR never shows both ready-to-merge and pending-closure.
  for (const LabelWish& w : wishes) {
    if (w.wanted || !HasLabel(pr.labels, w.name)) continue;
    PlannedAction a = b.Make(ActionKind::kUnlabel, w.name, "stale: " + w.why);
    a.label = w.name;
    b.Propose(std::move(a));
  }
  for (const LabelWish& w : wishes) {
    if (!w.wanted) continue;
    PlannedAction a = b.Make(ActionKind::kLabel, w.name, w.why);
    a.label = w.name;
    if (HasLabel(pr.labels, w.name)) {
      b.Skip(std::move(a), "already in that state");
    } else {
      b.Propose(std::move(a));
    }
  }
}

bool HasRightToReopen(const Policy& policy, const ReopenFact& reopen) {
  const auto& roles = policy.authors.maintainer_roles;
  return std::find(roles.begin(), roles.end(), reopen.role) != roles.end();
}

// Whether this pass answers an unauthorised reopen of a PR gatehouse closed.
bool MustReclose(const Policy& policy, const GateVerdict& verdict, const PlannerInput& facts) {
  return facts.closed_by_gatehouse_at && facts.last_reopen &&
         facts.last_reopen->at >= *facts.closed_by_gatehouse_at && !verdict.close_exempt &&
         !HasRightToReopen(policy, *facts.last_reopen);
}

// At most one close per pass: reopen-reclose, then draft-dodge, then the grace-period close.
void PlanClose(const Policy& policy, const PrSnapshot& pr, const GateVerdict& verdict,
               const PlannerInput& facts, const PlannerOptions& options, Time now, PlanBuilder& b) {
  const bool exempt = verdict.close_exempt;
  if (facts.closed_by_gatehouse_at && facts.last_reopen &&
      facts.last_reopen->at >= *facts.closed_by_gatehouse_at) {
    PlannedAction a =
        b.Make(ActionKind::kReopenReclose, std::to_string(ToMicros(facts.last_reopen->at)),
               "reopened by " + facts.last_reopen->by + " after gatehouse closed it");
    if (exempt) {
      b.Skip(std::move(a), verdict.close_exempt_reason);
    } else if (HasRightToReopen(policy, *facts.last_reopen)) {
      b.Skip(std::move(a), "reopened by a maintainer");
    } else {
      b.Propose(std::move(a));
      return;
    }
  }

  if (pr.draft && facts.drafted_while_pending_closure) {
    PlannedAction a =
        b.Make(ActionKind::kDraftDodgeClose, "", "turned draft while pending closure");
    if (exempt) return b.Skip(std::move(a), verdict.close_exempt_reason);
    return b.Propose(std::move(a));
  }

  if (verdict.verdict == Verdict::kFail && !pr.draft) {
    PlannedAction a = b.Make(ActionKind::kClose, "", "blocking failure");
    if (exempt) {
      b.Skip(std::move(a), verdict.close_exempt_reason);
    } else if (!facts.pending_closure_since) {
      b.Skip(std::move(a), "pending-closure label not applied yet");
    } else if (now - *facts.pending_closure_since < options.close_grace) {
      b.Skip(std::move(a), "grace period not over");
    } else {
      b.Propose(std::move(a));
    }
  }
}

// The merge queue's side of the plan (decide/queue_standing.h): the PR's open entry dropped
// when it no longer deserves its place, its head entered when it passes.
void PlanQueue(const PrSnapshot& pr, const GateVerdict& verdict, const PlannerInput& facts,
               const QueueStanding& standing, bool reclose, PlanBuilder& b) {
  if (standing.leave_entry != 0) {
    PlannedAction leave =
        b.Make(ActionKind::kQueueLeave, "entry:" + std::to_string(standing.leave_entry),
               standing.leave_reason);
    leave.queue_keep_sha = standing.keep_sha;
    b.ProposeBookkeeping(std::move(leave));
  }
  if (pr.state != "open" || verdict.verdict != Verdict::kPass || reclose) return;
  // A head a command admits once more is another entry, so another action.
  const std::string detail =
      standing.admitted_by == 0
          ? facts.queue.queue
          : facts.queue.queue + "+comment:" + std::to_string(standing.admitted_by);
  PlannedAction enter =
      b.Make(ActionKind::kQueueEnter, detail,
             standing.admitted_by == 0
                 ? "verdict pass"
                 : "verdict pass; admitted by comment " + std::to_string(standing.admitted_by));
  enter.queue = facts.queue.queue;
  enter.queue_priority = standing.priority;
  enter.queue_admitted_by = standing.admitted_by;
  if (standing.enter) {
    b.Propose(std::move(enter));
  } else {
    b.Skip(std::move(enter), standing.enter_skip);
  }
}

}  // namespace

namespace {

// The verdict alone, as both the comment and a `report: verdicts` check run tell it: the head,
// the names of the rules still waiting or warning, `pointer` (may be empty), the reviews and
// every blocker with its reason.
std::string RenderVerdictOnly(const PrSnapshot& pr, const GateVerdict& v,
                              std::string_view pointer) {
  std::string out(kSummaryMarker);
  out += "\n### gatehouse: " + std::string(VerdictName(v.verdict)) + "\n\n";
  out += "On `" + pr.head_sha + "`.";
  AppendRuleNames(out, " Waiting on ", v.waiting);
  AppendRuleNames(out, " Warnings from ", v.warnings);
  out += pointer;
  out += "\n";
  out += RenderReviewsSection(pr, v);
  AppendFindings(out, "Blockers", v.blockers);
  return out;
}

}  // namespace

std::string RenderSummary(const PrSnapshot& pr, const GateVerdict& v, Report report) {
  // What changes only with the verdict: no score, no per-check state.
  if (report == Report::kVerdicts) return RenderVerdictOnly(pr, v, "");
  std::string out(kSummaryMarker);
  out += "\n### gatehouse: " + std::string(VerdictName(v.verdict)) + "\n\n";
  out += "Readiness score **" + std::to_string(v.score) + "/100** on `" + pr.head_sha + "`.\n";
  out += RenderReviewsSection(pr, v);
  AppendFindings(out, "Blockers", v.blockers);
  AppendFindings(out, "Waiting", v.waiting);
  AppendFindings(out, "Warnings", v.warnings);
  return out;
}

std::string RenderSummaryComment(const PrSnapshot& pr, const GateVerdict& v,
                                 std::string_view queue_line) {
  std::string body = RenderVerdictOnly(
      pr, v, " The `gatehouse` check run has every detail and the readiness score.");
  if (queue_line.empty()) return body;
  if (!body.ends_with('\n')) body += '\n';
  return body + "\n" + std::string(queue_line) + "\n";
}

Plan PlanActions(const Policy& policy, const PrSnapshot& pr, const GateVerdict& verdict,
                 const PlannerInput& facts, const PlannerOptions& given) {
  // A `merge` command runs this PR's merge actions whatever their autonomy.
  const PlannerOptions options = UnderQueueCommands(given, facts.queue.commands);
  PlanBuilder b(pr, options, facts.head_occurrence);
  const Time now = facts.now.value_or(pr.now);

  PlanCheckRun(pr, verdict, facts, b);
  const bool queue = policy.merge_queue.enabled;
  // A closed or merged PR gets its check run and nothing else (but for leaving the queue).
  if (pr.state != "open") {
    if (queue) {
      PlanQueue(pr, verdict, facts,
                DecideQueueStanding(policy, pr, verdict, facts.queue, facts.head_occurrence, false),
                false, b);
    }
    return b.Take();
  }

  // A PR that is about to be closed again is neither approved nor merged, whatever its verdict.
  const bool reclose = MustReclose(policy, verdict, facts);
  std::optional<QueueStanding> standing;
  if (queue) {
    standing =
        DecideQueueStanding(policy, pr, verdict, facts.queue, facts.head_occurrence, reclose);
  }
  PlanSummaryComment(pr, verdict, facts, standing, b);

  const bool pass = verdict.verdict == Verdict::kPass && !reclose;
  const bool fail = verdict.verdict == Verdict::kFail;
  const bool exempt = verdict.close_exempt;
  // A close candidate: a non-exempt, non-draft PR with a blocking failure.
  const bool close_candidate = fail && !exempt && !pr.draft;
  // A draft that dodged a pending closure keeps its label until it is closed.
  const bool draft_dodge = pr.draft && facts.drafted_while_pending_closure;
  const bool needs_human = fail && (exempt || HasBlockerFrom(verdict, "protected_paths"));

  PlanLabels(
      {
          {options.label_ready, pass, "verdict pass"},
          {options.label_changes_requested, HasOutstandingChangeRequest(pr),
           "outstanding change request"},
          {options.label_needs_human, needs_human, "blocking failure gatehouse will not close"},
          {options.label_pending_closure, close_candidate || (draft_dodge && !exempt),
           "close candidate"},
      },
      pr, b);

  if (pr.mergeable_state == "behind" && !pr.draft) {
    PlannedAction a = b.Make(ActionKind::kUpdateBranch, pr.base_sha, "branch is behind its base");
    // Bound to (head, base), not to the head's occurrence: bringing the same head up to the same
    // base again is the same action, and repeating it would ping-pong with a bot that resets the
    // branch after an update.
    a.head_occurrence = 1;
    a.expected_base_sha = pr.base_sha;
    if (queue) {
      b.Skip(std::move(a), "the merge queue brings it up to date");
    } else if (options.update_branch) {
      b.Propose(std::move(a));
    } else {
      b.Skip(std::move(a), "update-branch disabled");
    }
  }

  if (pass) {
    PlannedAction approve = b.Make(ActionKind::kApprove, "", "verdict pass");
    approve.body = "gatehouse: all merge rules pass on " + pr.head_sha + ".";
    if (HasOwnApprovalOnHead(pr, options)) {
      b.Skip(std::move(approve), "already in that state");
    } else {
      b.Propose(std::move(approve));
    }

    PlannedAction merge = b.Make(
        ActionKind::kMerge, std::string(MergeMethodName(options.merge_method)), "verdict pass");
    merge.merge_method = options.merge_method;
    if (queue) {
      b.Skip(std::move(merge), "the merge queue merges it");
    } else if (pr.mergeable == true) {
      b.Propose(std::move(merge));
    } else {
      b.Skip(std::move(merge),
             pr.mergeable.has_value() ? "not mergeable" : "mergeability not computed yet");
    }
  }

  if (standing) PlanQueue(pr, verdict, facts, *standing, reclose, b);
  PlanClose(policy, pr, verdict, facts, options, now, b);
  return b.Take();
}

Plan PlanActions(const Policy& policy, const PrSnapshot& pr, const GateVerdict& verdict,
                 const PlannerInput& facts) {
  return PlanActions(policy, pr, verdict, facts, policy.actions);
}

}  // namespace gatehouse::decide
