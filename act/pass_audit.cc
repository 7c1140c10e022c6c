#include "act/pass_audit.h"

#include <boost/json.hpp>
#include <sstream>
#include <utility>

#include "act/github_outcome.h"
#include "base/log.h"

namespace gatehouse::act {
namespace {

namespace json = boost::json;

json::array FindingsJson(const std::vector<decide::Finding>& findings) {
  json::array out;
  for (const auto& f : findings) {
    out.push_back(json::object{{"rule", f.rule}, {"reason", f.reason}});
  }
  return out;
}

// "label ready-to-merge", "check_run success", "merge squash", ...
std::string ActionText(const decide::PlannedAction& a) {
  std::string text(decide::ActionKindName(a.kind));
  if (!a.label.empty()) {
    text += " " + a.label;
  } else if (a.kind == decide::ActionKind::kCheckRun) {
    text += " " + (a.check_conclusion.empty() ? a.check_status : a.check_conclusion);
  } else if (a.kind == decide::ActionKind::kMerge) {
    text += " " + std::string(decide::MergeMethodName(a.merge_method));
  }
  return text;
}

std::string_view EntryKind(ActionReport::Result result) {
  switch (result) {
    case ActionReport::Result::kDone:
      return "executed";
    case ActionReport::Result::kReconciled:
      return "reconciled";
    case ActionReport::Result::kSuperseded:
      return "superseded";
    case ActionReport::Result::kFailed:
    case ActionReport::Result::kRateLimited:
    case ActionReport::Result::kUnknown:
      return "failed";
    case ActionReport::Result::kAlreadyDone:
    case ActionReport::Result::kNotRun:
      return "skipped";
  }
  return "failed";
}

}  // namespace

PassAudit::PassAudit(Store& store, const Clock& clock, std::string subject, int64_t fence)
    : store_(store), clock_(clock), subject_(std::move(subject)), fence_(fence) {}

void PassAudit::Add(std::string kind, std::string head, std::string summary, std::string detail) {
  AuditEntry e;
  e.subject = subject_;
  e.at = clock_.Now();
  e.fence = fence_;
  e.head_sha = std::move(head);
  e.kind = std::move(kind);
  e.summary = std::move(summary);
  e.detail = std::move(detail);
  entries_.push_back(std::move(e));
}

void PassAudit::Decision(const PassDecision& d, const LiveState& live,
                         const std::vector<std::string>& reasons) {
  const decide::GateVerdict& v = d.verdict;
  const PullRequest& pr = live.pr;
  json::object verdict_json{
      {"verdict", decide::VerdictName(v.verdict)},  {"score", v.score},
      {"blockers", FindingsJson(v.blockers)},       {"waiting", FindingsJson(v.waiting)},
      {"warnings", FindingsJson(v.warnings)},       {"policy", live.policy.source},
      {"head_occurrence", d.facts.head_occurrence}, {"reasons", JoinReasons(reasons)},
      {"state", pr.merged ? "merged" : pr.state},   {"draft", pr.draft},
      {"mergeable_state", pr.mergeable_state},      {"reviews", live.reviews.size()},
      {"check_runs", d.snapshot.check_runs.size()}, {"statuses", d.snapshot.statuses.size()},
  };
  std::ostringstream line;
  line << decide::VerdictName(v.verdict) << " (score " << v.score << "; blockers "
       << v.blockers.size() << ", waiting " << v.waiting.size() << ", warnings "
       << v.warnings.size() << "; policy " << live.policy.source << ")";
  Add("verdict", pr.head_sha, line.str(), json::serialize(verdict_json));
  if (!d.plan.actions.empty()) {
    std::string planned;
    json::array keys;
    for (const auto& a : d.plan.actions) {
      planned += (planned.empty() ? "" : ", ") + ActionText(a);
      keys.push_back(json::string(a.Key()));
    }
    Add("planned", pr.head_sha, planned, json::serialize(json::object{{"keys", keys}}));
  }
  for (const auto& s : d.plan.skipped) {
    Add("skipped", s.action.head_sha, ActionText(s.action) + ": " + s.reason,
        json::serialize(json::object{{"key", s.action.Key()}, {"why", s.action.why}}));
  }
}

void PassAudit::Settled(const ExecResult& settled) {
  for (const ActionReport& r : settled.actions) {
    Add(r.result == ActionReport::Result::kReconciled ? "reconciled" : "failed", r.action.head_sha,
        ActionText(r.action) + " (open intent): " + std::string(ActionResultName(r.result)) +
            (r.detail.empty() ? "" : " (" + r.detail + ")"));
  }
}

void PassAudit::Executed(const ExecResult& result) {
  for (const ActionReport& r : result.actions) {
    std::string summary = ActionText(r.action) + ": " + std::string(ActionResultName(r.result));
    if (!r.detail.empty()) summary += " (" + r.detail + ")";
    Add(std::string(EntryKind(r.result)), r.action.head_sha, summary,
        json::serialize(json::object{
            {"key", r.action.Key()}, {"why", r.action.why}, {"ledger_id", r.ledger_id}}));
  }
}

void PassAudit::PassDone(const std::string& head, Time started, bool superseded) {
  Add("pass", head,
      "pass done in " + std::to_string(ToMicros(clock_.Now()) / 1000 - ToMicros(started) / 1000) +
          " ms" + (superseded ? "; superseded, a fresh pass follows" : ""));
}

PassOutcome PassAudit::EndWithError(std::string summary, PassOutcome outcome) {
  Add("error", "", std::move(summary));
  Flush();
  return outcome;
}

PassOutcome PassAudit::ReadFailed(std::string_view what, const GitHubError& error) {
  return EndWithError(std::string(what) + ": " + error.ToStatus().ToString(),
                      ReadFailureOutcome(what, error));
}

void PassAudit::Flush() {
  if (entries_.empty()) return;
  if (Status s = store_.audit().AppendAudit(entries_, Durability::kRecoverable); !s.ok()) {
    Log(LogLevel::kWarn, "pass.audit").Field("subject", subject_).Field("error", s.ToString());
  }
  entries_.clear();
}

}  // namespace gatehouse::act
