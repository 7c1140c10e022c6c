// See act/pass_reviews.h.
#include "act/pass_reviews.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "act/live_state.h"
#include "decide/pr_facts.h"
#include "decide/queue_commands.h"
#include "review/review_json.h"

namespace gatehouse::act {
namespace {

using decide::ActionKind;
using decide::PlannedAction;

constexpr std::string_view kCommentTrigger = "comment:";

// The decimal id right after `prefix` in `text`; 0 when there is none or it does not fit
// an int64_t (the ledger and runs are gatehouse's own writing, but a bad row must not overflow).
int64_t IdAfter(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return 0;
  text.remove_prefix(prefix.size());
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  int64_t id = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, id);
  return ec == std::errc() && ptr == text.data() + digits ? id : 0;
}

// What gatehouse already did about each comment, on any head: runs it asked for, and
// reactions and replies the ledger holds as done or open (a failed one is tried again).
void AnsweredComments(const std::vector<ReviewRun>& runs,
                      const std::vector<decide::PriorAction>& ledger, PrReviewState* state) {
  for (const ReviewRun& r : runs) {
    if (int64_t id = IdAfter(r.key.trigger, kCommentTrigger)) state->commanded.insert(id);
  }
  for (const decide::PriorAction& a : ledger) {
    if (a.state == decide::PriorAction::State::kFailed) continue;
    if (a.kind == ActionKind::kReaction) {
      if (int64_t id = IdAfter(a.detail, "comment:")) state->reacted.insert(id);
    } else if (a.kind == ActionKind::kComment) {
      if (int64_t id = IdAfter(a.detail, "reply:")) state->replied.insert(id);
    }
  }
}

}  // namespace

std::string ReplyMarker(int64_t comment_id) {
  return "<!-- gatehouse:reply " + std::to_string(comment_id) + " -->";
}

std::string ReviewRunDetail(const std::string& role, const std::string& trigger) {
  return role + ":" + trigger;
}

bool ParseReviewRunDetail(std::string_view detail, std::string* role, std::string* trigger) {
  const size_t colon = detail.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= detail.size()) return false;
  *role = std::string(detail.substr(0, colon));
  *trigger = std::string(detail.substr(colon + 1));
  return true;
}

std::optional<PassOutcome> ReadPrReviews(Store& store, const std::string& subject,
                                         const std::vector<PrFact>& facts,
                                         const std::vector<decide::PriorAction>& ledger,
                                         const std::string& app_login, PrReviewState* state) {
  auto runs = store.reviews().ListRuns(subject);
  if (!runs.ok()) return PassOutcome::Transient("listing review runs: " + runs.status().ToString());
  state->runs = std::move(runs).value();
  state->commanded.clear();
  state->reacted.clear();
  state->replied.clear();
  AnsweredComments(state->runs, ledger, state);
  state->commands.clear();
  for (const PrFact& f : facts) {
    auto command = decide::ParseCommandFact(f.name, f.value);
    if (!command) continue;
    // Done with a comment: acknowledged, and either answered by a run or by a reply; a queue
    // command's reply, when it has one, comes before its reaction (PlanReviewActions).
    const bool reacted = state->reacted.count(command->comment_id) > 0;
    const bool queue_command =
        decide::IsQueueCommand(decide::ParseCommand(command->line, app_login).kind);
    if (reacted && (queue_command || state->commanded.count(command->comment_id) > 0 ||
                    state->replied.count(command->comment_id) > 0)) {
      continue;
    }
    state->commands.push_back(decide::CommandComment{command->comment_id, command->login,
                                                     RoleOf(command->association), command->line});
  }
  std::sort(state->commands.begin(), state->commands.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return std::nullopt;
}

std::vector<decide::KnownRun> KnownRuns(const std::vector<ReviewRun>& runs) {
  std::vector<decide::KnownRun> known;
  known.reserve(runs.size());
  for (const ReviewRun& r : runs) {
    decide::KnownRun k;
    k.role = r.key.role;
    k.head_sha = r.key.head_sha;
    k.trigger = r.key.trigger;
    k.state = std::string(RunStateName(r.state));
    if (!r.result_json.empty()) {
      auto parsed = review::ParseReviewResult(r.result_json);
      if (parsed.ok()) k.result = std::move(parsed).value();
    }
    k.reviewer = r.reviewer;
    k.reason = r.reason;
    known.push_back(std::move(k));
  }
  return known;
}

std::vector<decide::RoleReview> RoleReviewsAt(const decide::ReviewsPolicy& policy,
                                              const decide::PrSnapshot& pr,
                                              const std::vector<ReviewRun>& runs,
                                              const std::set<std::string>& served_roles) {
  std::vector<decide::RoleReview> out;
  if (pr.state != "open" || pr.draft) return out;
  for (const decide::ReviewRoleRule& rule : policy.roles) {
    if (!decide::RoleApplies(rule, pr)) continue;
    decide::RoleReview rr;
    rr.role = rule.role;
    rr.required = rule.required;
    rr.state = "missing";
    const ReviewRun* latest = nullptr;
    for (const ReviewRun& r : runs) {
      if (r.key.role != rule.role || r.key.head_sha != pr.head_sha) continue;
      if (r.state == RunState::kCancelled || r.state == RunState::kSuperseded) continue;
      if (latest == nullptr || r.id > latest->id) latest = &r;
    }
    if (latest != nullptr) {
      rr.state = std::string(RunStateName(latest->state));
      rr.reviewer = latest->reviewer;
      rr.reason = latest->reason;
      if (!latest->result_json.empty()) {
        auto parsed = review::ParseReviewResult(latest->result_json);
        if (parsed.ok()) rr.result = std::move(parsed).value();
      }
    } else if (served_roles.count(rule.role) == 0) {
      rr.state = "dead";
      rr.reason = "no reviewer serves role " + rule.role;
    }
    out.push_back(std::move(rr));
  }
  return out;
}

std::vector<PlannedAction> PlanReviewActions(
    const decide::ReviewsPolicy& policy, const decide::PrSnapshot& pr, const PrReviewState& state,
    const std::vector<std::string>& reasons, const std::string& app_login,
    const std::set<std::string>& served_roles, int64_t head_occurrence,
    const QueueCommandContext& queue) {
  std::vector<PlannedAction> actions;
  auto make = [&](ActionKind kind, std::string detail, std::string why) {
    PlannedAction a;
    a.kind = kind;
    a.head_sha = pr.head_sha;
    a.head_occurrence = head_occurrence;
    a.detail = std::move(detail);
    a.why = std::move(why);
    return a;
  };
  const decide::ReviewPlan plan = decide::PlanReviews(policy, pr, KnownRuns(state.runs), reasons,
                                                      state.commands, app_login, served_roles);
  for (const decide::RunToRequest& r : plan.runs) {
    PlannedAction a = make(ActionKind::kReviewRun, ReviewRunDetail(r.role, r.trigger), r.why);
    a.role = r.role;
    a.trigger = r.trigger;
    actions.push_back(std::move(a));
  }
  auto acknowledge = [&](const decide::CommandDecision& d, std::string_view what,
                         bool reply_first) {
    const std::string id = std::to_string(d.comment_id);
    const bool accepted = d.kind != decide::CommandDecision::Kind::kRejected;
    std::vector<PlannedAction> acks;
    if (state.reacted.count(d.comment_id) == 0) {
      PlannedAction react = make(ActionKind::kReaction, "comment:" + id,
                                 accepted ? std::string(what) : "rejected command");
      react.comment_id = d.comment_id;
      react.reaction = accepted ? "+1" : "confused";
      react.body = react.reaction;
      acks.push_back(std::move(react));
    }
    if (!accepted && state.replied.count(d.comment_id) == 0) {
      PlannedAction reply = make(ActionKind::kComment, "reply:" + id, "reply to comment " + id);
      reply.body = d.reply + "\n\n" + ReplyMarker(d.comment_id);
      acks.insert(reply_first ? acks.begin() : acks.end(), std::move(reply));
    }
    for (auto& a : acks) actions.push_back(std::move(a));
  };
  for (const decide::CommandDecision& d : plan.commands) {
    if (d.kind != decide::CommandDecision::Kind::kReview &&
        d.kind != decide::CommandDecision::Kind::kRejected) {
      continue;  // not a command for gatehouse, or not from someone with write access
    }
    acknowledge(d, "review command", false);
  }
  // The merge queue's commands: the reply (if any) before the reaction, so a reacted comment is
  // a handled one (ReadPrReviews).
  for (const decide::CommandComment& c : state.commands) {
    const decide::CommandDecision d =
        decide::DecideQueueCommand(c, pr.state == "open", queue.base_ref, app_login,
                                   queue.enabled, queue.merge_level);
    if (d.kind != decide::CommandDecision::Kind::kAccepted &&
        d.kind != decide::CommandDecision::Kind::kRejected) {
      continue;
    }
    acknowledge(d, "queue command", true);
  }
  return actions;
}

std::optional<PassOutcome> CancelStaleRuns(Store& store, const std::string& subject, int64_t fence,
                                           const PullRequest& pr,
                                           const std::vector<ReviewRun>& runs, Time now,
                                           std::vector<std::string>* cancelled_keys) {
  const bool over = pr.state != "open" || pr.draft;
  bool any = false;
  for (const ReviewRun& r : runs) {
    if (IsTerminal(r.state)) continue;  // a dead run at a gone head ends too
    if (over || r.key.head_sha != pr.head_sha) any = true;
  }
  if (!any) return std::nullopt;
  const std::string why = pr.merged                    ? "the pull request was merged"
                          : over && pr.state != "open" ? "the pull request was closed"
                          : pr.draft                   ? "the pull request was converted to draft"
                                     : "the head moved to " + pr.head_sha.substr(0, 12);
  auto keys =
      store.reviews().CancelRuns(subject, over ? "" : pr.head_sha, why, subject, fence, now);
  if (!keys.ok())
    return PassOutcome::Transient("cancelling review runs: " + keys.status().ToString());
  *cancelled_keys = std::move(keys).value();
  return std::nullopt;
}

}  // namespace gatehouse::act
