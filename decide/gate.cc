#include "decide/gate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "base/ascii.h"
#include "decide/glob.h"
#include "decide/labels.h"
#include "decide/reviews.h"

namespace gatehouse::decide {
namespace {

enum class Outcome { kPass, kPending, kFail };

// What one rule concluded: the reasons it fails or waits, and its score credit in [0, 1].
struct RuleResult {
  std::vector<std::string> failures;
  std::vector<std::string> pending;
  double credit = 1.0;
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

Outcome ClassifyRun(const CheckRun& run) {
  if (run.status != "completed") return Outcome::kPending;
  if (run.conclusion == "success" || run.conclusion == "neutral" || run.conclusion == "skipped") {
    return Outcome::kPass;
  }
  return Outcome::kFail;
}

Outcome ClassifyStatus(const CommitStatus& status) {
  if (status.state == "success") return Outcome::kPass;
  if (status.state == "pending") return Outcome::kPending;
  return Outcome::kFail;
}

RuleResult EvaluateChecks(const RequiredChecksRule& rule, const PrSnapshot& pr) {
  RuleResult r;
  if (rule.checks.empty()) return r;
  int passed = 0;
  for (const RequiredCheck& req : rule.checks) {
    // Latest run per name and latest status per context; older re-runs are superseded.
    std::map<std::string, const CheckRun*> runs;
    for (const CheckRun& run : pr.check_runs) {
      if (run.head_sha != pr.head_sha) continue;
      if (!req.app.empty() && run.app != req.app) continue;
      if (!GlobMatch(req.pattern, run.name, GlobMode::kName)) continue;
      const CheckRun*& slot = runs[run.name];
      if (slot == nullptr || run.id > slot->id) slot = &run;
    }
    std::map<std::string, const CommitStatus*> statuses;
    if (req.app.empty()) {
      for (const CommitStatus& st : pr.statuses) {
        if (!GlobMatch(req.pattern, st.context, GlobMode::kName)) continue;
        const CommitStatus*& slot = statuses[st.context];
        if (slot == nullptr || st.id > slot->id) slot = &st;
      }
    }

    if (runs.empty() && statuses.empty()) {
      std::optional<Time> since = pr.head_pushed_at;
      auto it = pr.required_check_first_seen.find(req.pattern);
      if (it != pr.required_check_first_seen.end()) since = it->second;
      const std::string what = "required check \"" + req.pattern + "\"";
      if (since && pr.now - *since >= rule.missing_after) {
        r.failures.push_back(what + " is missing: nothing reported in " +
                             FormatDuration(pr.now - *since) + " (missing_after " +
                             FormatDuration(rule.missing_after) + ")");
      } else {
        r.pending.push_back(what + " has not reported yet");
      }
      continue;
    }

    std::vector<std::string> failing;
    std::vector<std::string> running;
    for (const auto& [name, run] : runs) {
      switch (ClassifyRun(*run)) {
        case Outcome::kFail:
          failing.push_back(name + " (" +
                            (run->conclusion.empty() ? run->status : run->conclusion) + ")");
          break;
        case Outcome::kPending:
          running.push_back(name + " (" + run->status + ")");
          break;
        case Outcome::kPass:
          break;
      }
    }
    for (const auto& [context, st] : statuses) {
      switch (ClassifyStatus(*st)) {
        case Outcome::kFail:
          failing.push_back(context + " (" + st->state + ")");
          break;
        case Outcome::kPending:
          running.push_back(context + " (" + st->state + ")");
          break;
        case Outcome::kPass:
          break;
      }
    }
    if (!failing.empty()) {
      r.failures.push_back("required check failing: " + Join(failing));
    } else if (!running.empty()) {
      r.pending.push_back("required check pending: " + Join(running));
    } else {
      ++passed;
    }
  }
  r.credit = static_cast<double>(passed) / static_cast<double>(rule.checks.size());
  return r;
}

RuleResult EvaluateApprovals(const ApprovalsRule& rule, const PrSnapshot& pr) {
  RuleResult r;
  int approvals = 0;
  std::vector<std::string> requesters;
  for (const auto& [user, review] : LatestDecidingReviews(pr)) {
    if (review->state == "APPROVED" &&
        (!rule.require_on_head || review->commit_id == pr.head_sha)) {
      ++approvals;
    } else if (review->state == "CHANGES_REQUESTED") {
      requesters.push_back(user);
    }
  }
  if (rule.block_changes_requested && !requesters.empty()) {
    r.failures.push_back("changes requested by " + Join(requesters));
    r.credit = 0.0;
    return r;
  }
  if (approvals < rule.min) {
    r.pending.push_back("needs " + std::to_string(rule.min) + " approval" +
                        (rule.min == 1 ? "" : "s") + ", has " + std::to_string(approvals));
    r.credit = static_cast<double>(approvals) / static_cast<double>(rule.min);
  }
  return r;
}

RuleResult EvaluateMergeable(const MergeableRule& rule, const PrSnapshot& pr) {
  RuleResult r;
  const std::string state = AsciiLower(pr.mergeable_state);
  if (state == "dirty" || pr.mergeable == false) {
    r.failures.push_back("merge conflicts with the base branch");
    r.credit = 0.0;
  } else if (state == "unknown" || state.empty() || !pr.mergeable.has_value()) {
    r.pending.push_back("GitHub is still computing mergeability");
    r.credit = 0.5;
  } else if (state == "behind" && !rule.allow_behind) {
    r.pending.push_back("branch is behind its base and must be updated");
    r.credit = 0.5;
  } else if (state == "blocked" && !rule.allow_blocked) {
    r.pending.push_back("merging is blocked by branch protection");
    r.credit = 0.5;
  }
  return r;
}

RuleResult EvaluateLabels(const LabelsRule& rule, const PrSnapshot& pr) {
  RuleResult r;
  for (const std::string& label : rule.required) {
    if (!HasLabel(pr.labels, label))
      r.failures.push_back("missing required label \"" + label + "\"");
  }
  for (const std::string& label : rule.blocking) {
    if (HasLabel(pr.labels, label))
      r.failures.push_back("blocking label \"" + label + "\" is present");
  }
  if (!r.failures.empty()) r.credit = 0.0;
  return r;
}

RuleResult EvaluateSize(const SizeRule& rule, const PrSnapshot& pr) {
  RuleResult r;
  if (rule.max_files && pr.changed_files > *rule.max_files) {
    r.failures.push_back("changes " + std::to_string(pr.changed_files) + " files (max " +
                         std::to_string(*rule.max_files) + ")");
  }
  const int lines = pr.additions + pr.deletions;
  if (rule.max_lines && lines > *rule.max_lines) {
    r.failures.push_back("changes " + std::to_string(lines) + " lines (max " +
                         std::to_string(*rule.max_lines) + ")");
  }
  if (!r.failures.empty()) r.credit = 0.0;
  return r;
}

RuleResult EvaluateProtectedPaths(const ProtectedPathsRule& rule, const PrSnapshot& pr) {
  constexpr size_t kMaxListed = 5;
  RuleResult r;
  std::vector<std::string> hits;
  size_t total = 0;
  for (const std::string& path : pr.changed_paths) {
    for (const std::string& glob : rule.paths) {
      if (GlobMatch(glob, path, GlobMode::kPath)) {
        if (hits.size() < kMaxListed) hits.push_back(path + " (" + glob + ")");
        ++total;
        break;
      }
    }
  }
  if (total > 0) {
    std::string reason = "touches protected paths: " + Join(hits);
    if (total > hits.size()) reason += " and " + std::to_string(total - hits.size()) + " more";
    r.failures.push_back(std::move(reason));
    r.credit = 0.0;
  }
  return r;
}

RuleResult EvaluateDraft(const PrSnapshot& pr) {
  RuleResult r;
  if (pr.draft) {
    r.pending.push_back("pull request is a draft");
    r.credit = 0.0;
  }
  return r;
}

// "1 blocker", "2 blockers".
std::string Blockers(int n) { return std::to_string(n) + (n == 1 ? " blocker" : " blockers"); }

// What one role's review at the current head says, and why, as "role: reason".
std::pair<Outcome, std::string> ClassifyRoleReview(const RoleReview& r) {
  const std::string who = r.reviewer.empty() ? "" : " (" + r.reviewer + ")";
  const std::string why = r.reason.empty() ? "" : ": " + r.reason;
  const std::string role = r.role + ": ";
  if (r.state == "done") {
    if (!r.result) return {Outcome::kPending, role + "done, but no result is on record"};
    const int blockers = r.result->blockers();
    if (r.result->verdict == ReviewVerdict::kRequestChanges) {
      return {Outcome::kFail,
              role + "request_changes" + (blockers > 0 ? ", " + Blockers(blockers) : "")};
    }
    if (blockers > 0) {
      return {Outcome::kFail,
              role + std::string(ReviewVerdictName(r.result->verdict)) + ", " + Blockers(blockers)};
    }
    return {Outcome::kPass, role + std::string(ReviewVerdictName(r.result->verdict))};
  }
  if (r.state == "dead") return {Outcome::kFail, role + "review failed" + who + why};
  if (r.state == "missing") return {Outcome::kPending, role + "no review yet" + why};
  if (r.state == "finished")
    return {Outcome::kPending, role + "review finished" + who + ", not posted yet"};
  return {Outcome::kPending, role + "review " + r.state + who + why};
}

// The `reviews` rule: required roles wait and block (their credit is the share of required
// roles whose review passed), advisory roles only ever warn.
struct ReviewsResult {
  RuleResult required;
  bool any_required = false;
  std::vector<std::string> advisory;
};

ReviewsResult EvaluateReviews(const PrSnapshot& pr) {
  ReviewsResult out;
  int required = 0;
  int passed = 0;
  for (const RoleReview& r : pr.role_reviews) {
    auto [outcome, text] = ClassifyRoleReview(r);
    if (!r.required) {
      if (outcome != Outcome::kPass) out.advisory.push_back(std::move(text));
      continue;
    }
    ++required;
    if (outcome == Outcome::kPass) {
      ++passed;
    } else {
      (outcome == Outcome::kFail ? out.required.failures : out.required.pending)
          .push_back(std::move(text));
    }
  }
  out.any_required = required > 0;
  if (required > 0) out.required.credit = static_cast<double>(passed) / required;
  return out;
}

std::string_view RoleName(AuthorRole role) {
  switch (role) {
    case AuthorRole::kOwner:
      return "OWNER";
    case AuthorRole::kMember:
      return "MEMBER";
    case AuthorRole::kCollaborator:
      return "COLLABORATOR";
    case AuthorRole::kContributor:
      return "CONTRIBUTOR";
    case AuthorRole::kNone:
      return "NONE";
  }
  return "NONE";
}

void ApplyAuthorRule(const AuthorsRule& rule, const PrSnapshot& pr, GateVerdict& v) {
  if (rule.mode == RuleMode::kOff) return;
  if (rule.exempt_bots && pr.author_is_bot) {
    v.close_exempt = true;
    v.close_exempt_reason = "author " + pr.author + " is a bot";
    return;
  }
  if (rule.exempt_maintainers &&
      std::find(rule.maintainer_roles.begin(), rule.maintainer_roles.end(), pr.author_role) !=
          rule.maintainer_roles.end()) {
    v.close_exempt = true;
    v.close_exempt_reason =
        "author " + pr.author + " is a maintainer (" + std::string(RoleName(pr.author_role)) + ")";
  }
}

int WeightOf(std::string_view rule) {
  for (const RuleWeight& w : kRuleWeights) {
    if (w.rule == rule) return w.weight;
  }
  return 0;
}

// Accumulates rule results into the verdict lists and the score.
class Tally {
 public:
  explicit Tally(GateVerdict& v) : v_(v) {}

  void Add(std::string_view rule, RuleMode mode, const RuleResult& r) {
    if (mode == RuleMode::kOff) return;
    const double w = WeightOf(rule);
    total_ += w;
    earned_ += w * std::clamp(r.credit, 0.0, 1.0);
    const bool block = mode == RuleMode::kBlock;
    for (const std::string& reason : r.failures) {
      (block ? v_.blockers : v_.warnings).push_back({std::string(rule), reason});
    }
    for (const std::string& reason : r.pending) {
      (block ? v_.waiting : v_.warnings).push_back({std::string(rule), reason});
    }
  }

  // Warnings that carry no score (advisory reviews).
  void Warn(std::string_view rule, const std::vector<std::string>& reasons) {
    for (const std::string& reason : reasons) v_.warnings.push_back({std::string(rule), reason});
  }

  int Score() const {
    if (total_ <= 0) return 100;
    return static_cast<int>(std::floor(100.0 * earned_ / total_ + 1e-9));
  }

 private:
  GateVerdict& v_;
  double total_ = 0;
  double earned_ = 0;
};

}  // namespace

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kPending:
      return "pending";
    case Verdict::kNeutral:
      return "neutral";
  }
  return "unknown";
}

GateVerdict Evaluate(const Policy& policy, const PrSnapshot& pr) {
  GateVerdict v;
  ApplyAuthorRule(policy.authors, pr, v);
  if (pr.state == "closed") {
    v.verdict = Verdict::kNeutral;
    return v;
  }

  Tally tally(v);
  tally.Add("required_checks", policy.required_checks.mode,
            EvaluateChecks(policy.required_checks, pr));
  tally.Add("approvals", policy.approvals.mode, EvaluateApprovals(policy.approvals, pr));
  // With a merge queue, a branch behind its base is the queue's to update (docs/MERGE_QUEUE.md).
  MergeableRule mergeable = policy.mergeable;
  mergeable.allow_behind = mergeable.allow_behind || policy.merge_queue.enabled;
  tally.Add("mergeable", policy.mergeable.mode, EvaluateMergeable(mergeable, pr));
  tally.Add("labels", policy.labels.mode, EvaluateLabels(policy.labels, pr));
  tally.Add("protected_paths", policy.protected_paths.mode,
            EvaluateProtectedPaths(policy.protected_paths, pr));
  tally.Add("size", policy.size.mode, EvaluateSize(policy.size, pr));
  tally.Add("draft", policy.draft.mode, EvaluateDraft(pr));
  const ReviewsResult reviews = EvaluateReviews(pr);
  if (reviews.any_required) tally.Add("reviews", RuleMode::kBlock, reviews.required);
  tally.Warn("reviews", reviews.advisory);
  v.score = tally.Score();

  if (pr.draft && policy.draft.mode == RuleMode::kBlock) {
    v.verdict =
        policy.draft.verdict == DraftVerdict::kNeutral ? Verdict::kNeutral : Verdict::kPending;
  } else if (!v.blockers.empty()) {
    v.verdict = Verdict::kFail;
  } else if (!v.waiting.empty()) {
    v.verdict = Verdict::kPending;
  } else {
    v.verdict = Verdict::kPass;
  }
  return v;
}

}  // namespace gatehouse::decide
