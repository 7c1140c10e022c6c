// Why a pass runs: the vocabulary of reasons that signals carry into a PR's work item
// (DESIGN.md §2). Reasons are stored as text in work items, the audit log and the CLI's
// output, so each has one spelling, here: the webhook reasons the router maps GitHub's
// events and actions to (engine/router.cc), and the ones gatehouse gives itself (the sweep,
// timers, rechecks, supersession, a signal by hand). A reason is [a-z0-9_.:-]+.
//
// Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gatehouse::decide {

// From webhooks: pull_request actions (opened, reopened, synchronize, ...).
inline constexpr std::string_view kReasonOpened = "opened";
inline constexpr std::string_view kReasonReopened = "reopened";
inline constexpr std::string_view kReasonPushed = "pushed";  // synchronize
inline constexpr std::string_view kReasonEdited = "edited";
inline constexpr std::string_view kReasonReadyForReview = "ready-for-review";
inline constexpr std::string_view kReasonConvertedToDraft = "converted-to-draft";
inline constexpr std::string_view kReasonClosed = "closed";
inline constexpr std::string_view kReasonLabeled = "labeled";
inline constexpr std::string_view kReasonUnlabeled = "unlabeled";
inline constexpr std::string_view kReasonReviewRequested = "review-requested";
// From webhooks: reviews, CI and commands.
inline constexpr std::string_view kReasonReviewed = "reviewed";  // a review was submitted
inline constexpr std::string_view kReasonReviewDismissed = "review-dismissed";
inline constexpr std::string_view kReasonCiCompleted = "ci-completed";  // check run/suite
inline constexpr std::string_view kReasonStatus = "status";             // a commit status
inline constexpr std::string_view kReasonCommand = "command";           // "/gatehouse ..." comment

// gatehouse's own.
inline constexpr std::string_view kReasonSwept = "swept";    // the periodic sweep
inline constexpr std::string_view kReasonManual = "manual";  // `gatehouse work signal`
// The only thing the gate waits for is GitHub computing mergeability (decide/recheck.h).
inline constexpr std::string_view kReasonMergeableUnknown = "mergeable-unknown";
// A time-based decision is due: the close after the grace period, a missing required check.
inline constexpr std::string_view kReasonTimer = "timer";
// GitHub refused a mutation because the head moved: decide again on the new head.
inline constexpr std::string_view kReasonSuperseded = "superseded";
// The pass read a PR older than what an earlier read showed (a lagging replica).
inline constexpr std::string_view kReasonLaggingRead = "lagging-read";
// Reviewer dispatch (docs/REVIEWERS.md): a review run was requested (the run's own work item),
// a run ended (the PR's work item: its gate reads the verdict), a reviewer was resumed or a
// slot freed (waiting runs).
inline constexpr std::string_view kReasonReviewRun = "review-run";
inline constexpr std::string_view kReasonReviewFinished = "review-finished";
// The merge queue (docs/MERGE_QUEUE.md): an entry entered or left (the queue's own work item,
// signalled by the store), and the queue dropped or merged a PR's entry (the PR's work item:
// its summary says so).
inline constexpr std::string_view kReasonQueueEnter = "queue-enter";
inline constexpr std::string_view kReasonQueueLeave = "queue-leave";
inline constexpr std::string_view kReasonQueueMoved = "queue-moved";

// Whether a pass that covers `reasons` is background work: true when every reason is the
// sweep, a mergeability recheck or a timer (and there is at least one). Such a pass's GitHub
// calls stay out of the rate-limit reserve kept for passes that webhooks asked for; one reason
// from a webhook (or a supersession, a lagging read) makes the whole pass foreground.
bool IsBackgroundPass(const std::vector<std::string>& reasons);

}  // namespace gatehouse::decide
