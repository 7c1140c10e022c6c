// Why a pass runs: the reasons that signals carry into a PR's work item (DESIGN.md §2), as far
// as decisions depend on them. Webhooks add their own reasons (pushed, ci-completed, ...; see
// engine/router.h); these are the ones gatehouse gives itself.
//
// Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gatehouse::decide {

inline constexpr std::string_view kReasonSwept = "swept";  // the periodic sweep
// The only thing the gate waits for is GitHub computing mergeability (decide/recheck.h).
inline constexpr std::string_view kReasonMergeableUnknown = "mergeable-unknown";
// A time-based decision is due: the close after the grace period, a missing required check.
inline constexpr std::string_view kReasonTimer = "timer";
// GitHub refused a mutation because the head moved: decide again on the new head.
inline constexpr std::string_view kReasonSuperseded = "superseded";
// The pass read a PR older than what an earlier read showed (a lagging replica).
inline constexpr std::string_view kReasonLaggingRead = "lagging-read";

// Whether a pass that covers `reasons` is background work: true when every reason is the
// sweep, a mergeability recheck or a timer (and there is at least one). Such a pass's GitHub
// calls stay out of the rate-limit reserve kept for passes that webhooks asked for; one reason
// from a webhook (or a supersession, a lagging read) makes the whole pass foreground.
bool IsBackgroundPass(const std::vector<std::string>& reasons);

}  // namespace gatehouse::decide
