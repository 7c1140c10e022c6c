// The review decisions of a PR pass (docs/REVIEWERS.md): which review runs to request, and
// what to do with the comments that may hold a command. act/ records the runs through the
// ReviewRuns store (store/review_runs.h), whose unique key makes a request idempotent.
//
// Everything is decided from state, never from timing: a pass that sees the same PR, the same
// known runs and the same comments asks for the same runs, so a sweep repairs a lost trigger
// and a replay never asks twice (and if it did, the store's key would refuse it).
//
// Pure; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "decide/commands.h"
#include "decide/review_policy.h"
#include "decide/review_types.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// A run the store already has for this PR, as the plan sees it.
struct KnownRun {
  std::string role;
  std::string head_sha;
  std::string trigger;  // "auto" or "comment:<id>"
  std::string state;    // RunStateName: queued, running, finished, done, cancelled, ...
  std::optional<ReviewResult> result;
  std::string reviewer;
  std::string reason;
};

// A comment that may hold a command (recorded by the router from issue_comment.created).
struct CommandComment {
  int64_t id = 0;
  std::string author;
  AuthorRole author_role = AuthorRole::kNone;
  std::string body;
};

// The trigger of a run a comment asked for: "comment:<id>".
std::string CommentTrigger(int64_t comment_id);

struct RunToRequest {
  std::string role;
  std::string trigger;  // "auto" or "comment:<id>"
  std::string why;      // opened, synchronize, ready_for_review, or "comment <id> by <login>"
  bool operator==(const RunToRequest&) const = default;
};

// What a pass does with one unhandled comment.
struct CommandDecision {
  enum class Kind {
    kIgnored,     // not a command for gatehouse, or gatehouse's own comment: nothing at all
    kNotAllowed,  // a command by an author not in `commanders`: nothing (no reply, no reaction)
    kReview,      // a review command gatehouse accepts: react; `roles` are requested (may be
                  // empty when they were asked for already, or the PR is closed)
    kRejected,    // an unknown command or role: react and post `reply`
    kAccepted,    // a merge-queue command gatehouse accepts (decide/queue_commands.h): react
  };
  int64_t comment_id = 0;
  Kind kind = Kind::kIgnored;
  std::vector<std::string> roles;  // kReview
  std::string reply;               // kRejected
};

struct ReviewPlan {
  std::vector<RunToRequest> runs;         // auto runs in policy order, then command runs
  std::vector<CommandDecision> commands;  // one per unhandled comment, in the order given
};

// Auto runs: for each role rule that RoleApplies to an open, non-draft PR, whose role is in
// `served_roles` and with no run of that role at pr.head_sha yet (any trigger: a commanded
// review of the head covers the automatic one; an automatic run a draft or a close cancelled
// does not, and the next one is "auto:<n>"): request trigger "auto" if the trigger fits —
// no run of the role on this PR yet needs `opened` (or `ready_for_review` when `reasons` hold
// kReasonReadyForReview); runs at other heads need `synchronize` (or `ready_for_review` with
// that reason).
// Commands: each kReview command from an author whose role is in `commanders` and who is not
// `app_login` requests trigger "comment:<id>" at the current head of an open PR for the named
// role, or, when none is named, for every role with `command` in `on` that RoleApplies; a role
// it already has a run for with that trigger (any head) is not requested again. A named role that
// is not configured, lacks `command` in `on`, or that no reviewer serves is rejected with a reply.
ReviewPlan PlanReviews(const ReviewsPolicy& policy, const PrSnapshot& pr,
                       const std::vector<KnownRun>& known, const std::vector<std::string>& reasons,
                       const std::vector<CommandComment>& unhandled, std::string_view app_login,
                       const std::set<std::string>& served_roles);

// PlanReviews(...).runs.
std::vector<RunToRequest> PlanReviewRuns(const ReviewsPolicy& policy, const PrSnapshot& pr,
                                         const std::vector<KnownRun>& known,
                                         const std::vector<std::string>& reasons,
                                         const std::vector<CommandComment>& unhandled,
                                         std::string_view app_login,
                                         const std::set<std::string>& served_roles);

// The short reply to an unknown command word (lists the valid commands and roles).
std::string UnknownCommandReply(std::string_view word, const ReviewsPolicy& policy);

}  // namespace gatehouse::decide
