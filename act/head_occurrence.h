// Head occurrences: which time a pull request's head became its SHA (docs/ACTIONS.md, "Head
// occurrences"). Every action a pass plans is bound to the occurrence it decided on, so a head
// that moved away and came back (a force-push back, a revert of a revert, a reset branch) is
// decided afresh: a merge superseded on the first occurrence never blocks the second.
//
// Occurrences are learned from gatehouse's own reads of the PR, never started by a webhook: a
// pass (or the executor's re-read of a PR that refused a call) that reads a head other than the
// latest occurrence's starts a new one — with or without a `synchronize` webhook. A head equal
// to the latest occurrence's is still a new occurrence when GitHub reported a push after that
// occurrence started (the "pushed" PR fact, stamped with GitHub's own time by the router): the
// head went away and came back while no pass looked. A late webhook about an older push carries
// an older time, so it never starts one.
//
// Thread-safety: free functions; the Store is thread-safe, and only the holder of the PR's
// fence can start an occurrence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

// The PR fact the router records for a `synchronize` webhook: value = the new head, at =
// GitHub's time of the push (the payload's pull_request.updated_at).
inline constexpr char kPushedFact[] = "pushed";

// GitHub's time of the latest push reported by webhooks, from the subject's PR facts.
std::optional<Time> LastPushAt(const std::vector<PrFact>& facts);

// The occurrence of `pr.head_sha` that a pass holding `fence` on `subject` is on: the latest
// recorded one, or a new one (recorded, fenced) when the latest is of another SHA, or none is
// recorded, or `last_push_at` is later than the latest one started. kFenceLost when another
// worker holds the PR.
Result<HeadOccurrence> ObserveHead(Store& store, const std::string& subject, int64_t fence,
                                   const PullRequest& pr, std::optional<Time> last_push_at,
                                   Time now);

}  // namespace gatehouse::act
