// The review decisions of a PR pass. See decide/review_plan.h.
#include "decide/review_plan.h"

#include <algorithm>
#include <utility>

#include "base/ascii.h"
#include "decide/commands.h"
#include "decide/reasons.h"

namespace gatehouse::decide {
namespace {

std::vector<std::string> CommandRoles(const ReviewsPolicy& policy) {
  std::vector<std::string> roles;
  for (const ReviewRoleRule& r : policy.roles) {
    if (r.on.count(ReviewTrigger::kCommand)) roles.push_back(r.role);
  }
  return roles;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "`" : ", `") + s + "`";
  return out;
}

// The list of valid commands every reply ends with.
std::string CommandHelp(const ReviewsPolicy& policy) {
  const std::vector<std::string> roles = CommandRoles(policy);
  if (roles.empty()) return "No review role of this repository reviews on command.";
  return "Commands: `/gatehouse review` (every role that applies) or `/gatehouse review "
         "<role>`, with `@` and gatehouse's login in place of `/gatehouse` too. Roles: " +
         Join(roles) + ".";
}

bool HasReason(const std::vector<std::string>& reasons, std::string_view reason) {
  return std::find(reasons.begin(), reasons.end(), reason) != reasons.end();
}

bool HasRun(const std::vector<KnownRun>& known, std::string_view role, std::string_view trigger) {
  return std::any_of(known.begin(), known.end(),
                     [&](const KnownRun& k) { return k.role == role && k.trigger == trigger; });
}

// The roles a review command asks for, or the reply that rejects it ("" when accepted).
std::string RolesFor(const ParsedCommand& cmd, const ReviewsPolicy& policy, const PrSnapshot& pr,
                     const std::set<std::string>& served, std::vector<std::string>& roles) {
  if (cmd.role.empty()) {
    for (const ReviewRoleRule& r : policy.roles) {
      if (r.on.count(ReviewTrigger::kCommand) && served.count(r.role) && RoleApplies(r, pr)) {
        roles.push_back(r.role);
      }
    }
    if (roles.empty()) return "No review role applies to this pull request. " + CommandHelp(policy);
    return "";
  }
  const std::string role = "`" + Echo(cmd.role) + "`";
  const ReviewRoleRule* rule = policy.Find(cmd.role);
  if (rule == nullptr) return "gatehouse has no review role " + role + ". " + CommandHelp(policy);
  if (!rule->on.count(ReviewTrigger::kCommand)) {
    return "The review role " + role + " does not review on command. " + CommandHelp(policy);
  }
  if (!served.count(cmd.role)) return "No reviewer serves the role " + role + " right now.";
  roles.push_back(cmd.role);
  return "";
}

// Decides one comment; its accepted runs are appended to `runs`.
CommandDecision DecideComment(const CommandComment& c, const ReviewsPolicy& policy,
                              const PrSnapshot& pr, const std::vector<KnownRun>& known,
                              std::string_view app_login, const std::set<std::string>& served,
                              std::vector<RunToRequest>& runs) {
  CommandDecision d;
  d.comment_id = c.id;
  const ParsedCommand cmd = ParseCommand(c.body, app_login);
  // The merge queue's commands are decided by decide/queue_commands.h.
  if (cmd.kind == ParsedCommand::Kind::kNone || IsQueueCommand(cmd.kind) ||
      IsSelf(c.author, app_login)) {
    return d;
  }
  const auto& who = policy.commanders;
  if (std::find(who.begin(), who.end(), c.author_role) == who.end()) {
    d.kind = CommandDecision::Kind::kNotAllowed;
    return d;
  }
  if (cmd.kind == ParsedCommand::Kind::kUnknown) {
    d.kind = CommandDecision::Kind::kRejected;
    d.reply = UnknownCommandReply(cmd.word, policy);
    return d;
  }
  std::vector<std::string> roles;
  d.reply = RolesFor(cmd, policy, pr, served, roles);
  if (!d.reply.empty()) {
    d.kind = CommandDecision::Kind::kRejected;
    return d;
  }
  d.kind = CommandDecision::Kind::kReview;
  if (pr.state != "open") return d;
  const std::string trigger = CommentTrigger(c.id);
  for (const std::string& role : roles) {
    if (HasRun(known, role, trigger)) continue;
    runs.push_back({role, trigger, "comment " + std::to_string(c.id) + " by " + c.author});
    d.roles.push_back(role);
  }
  return d;
}

// The automatic trigger that asks for a run of `rule` at the head now, and the run's trigger
// key: "auto", or "auto:<n>" for the n-th automatic run of a head whose earlier ones were
// cancelled (the PR turned draft, or was closed, and is back); nullopt when none is due.
struct AutoRequest {
  ReviewTrigger trigger = ReviewTrigger::kOpened;
  std::string key = "auto";
};
std::optional<AutoRequest> AutoTrigger(const ReviewRoleRule& rule, const PrSnapshot& pr,
                                       const std::vector<KnownRun>& known,
                                       const std::vector<std::string>& reasons) {
  bool elsewhere = false;
  bool ended_here = false;  // a run of this head ended without a review: not reviewed
  int auto_here = 0;        // automatic runs of this head so far (they number the next key)
  for (const KnownRun& k : known) {
    if (k.role != rule.role) continue;
    if (k.head_sha != pr.head_sha) {
      elsewhere = true;
      continue;
    }
    if (k.trigger.rfind("auto", 0) == 0) ++auto_here;
    if (k.state == "cancelled" || k.state == "superseded") {
      ended_here = true;  // a draft, a close or a lagging read ended it; the head still waits
    } else {
      return std::nullopt;  // this head is reviewed (or asked for)
    }
  }
  AutoRequest r;
  if (auto_here > 0) r.key = "auto:" + std::to_string(auto_here + 1);
  const ReviewTrigger first =
      elsewhere || ended_here ? ReviewTrigger::kSynchronize : ReviewTrigger::kOpened;
  if (rule.on.count(ReviewTrigger::kReadyForReview) &&
      (HasReason(reasons, kReasonReadyForReview) || ended_here)) {
    r.trigger = ReviewTrigger::kReadyForReview;
    return r;
  }
  if (rule.on.count(first)) {
    r.trigger = first;
    return r;
  }
  return std::nullopt;
}

}  // namespace

std::string CommentTrigger(int64_t comment_id) { return "comment:" + std::to_string(comment_id); }

ReviewPlan PlanReviews(const ReviewsPolicy& policy, const PrSnapshot& pr,
                       const std::vector<KnownRun>& known, const std::vector<std::string>& reasons,
                       const std::vector<CommandComment>& unhandled, std::string_view app_login,
                       const std::set<std::string>& served_roles) {
  ReviewPlan plan;
  std::vector<RunToRequest> commanded;
  for (const CommandComment& c : unhandled) {
    plan.commands.push_back(
        DecideComment(c, policy, pr, known, app_login, served_roles, commanded));
  }
  if (pr.state == "open" && !pr.draft) {
    for (const ReviewRoleRule& rule : policy.roles) {
      if (!served_roles.count(rule.role) || !RoleApplies(rule, pr)) continue;
      // A review this pass asks for by command covers the head too.
      if (std::any_of(commanded.begin(), commanded.end(),
                      [&](const RunToRequest& r) { return r.role == rule.role; })) {
        continue;
      }
      if (auto t = AutoTrigger(rule, pr, known, reasons)) {
        plan.runs.push_back({rule.role, t->key, std::string(ReviewTriggerName(t->trigger))});
      }
    }
  }
  plan.runs.insert(plan.runs.end(), commanded.begin(), commanded.end());
  return plan;
}

std::vector<RunToRequest> PlanReviewRuns(const ReviewsPolicy& policy, const PrSnapshot& pr,
                                         const std::vector<KnownRun>& known,
                                         const std::vector<std::string>& reasons,
                                         const std::vector<CommandComment>& unhandled,
                                         std::string_view app_login,
                                         const std::set<std::string>& served_roles) {
  return PlanReviews(policy, pr, known, reasons, unhandled, app_login, served_roles).runs;
}

std::string UnknownCommandReply(std::string_view word, const ReviewsPolicy& policy) {
  static const std::string kQueueHelp =
      " Merge commands: `queue`, `dequeue`, `merge`, `refresh` (docs/MERGE_QUEUE.md).";
  if (word.empty()) return "gatehouse needs a command. " + CommandHelp(policy) + kQueueHelp;
  return "gatehouse does not know the command `" + Echo(word) + "`. " + CommandHelp(policy) +
         kQueueHelp;
}

}  // namespace gatehouse::decide
