// The merge queue's side of a PR's pass (docs/MERGE_QUEUE.md, "Who moves an entry"): when the
// repository's policy enables the queue, the pass reads its PR's entries, and the planner
// (decide/queue_standing.h) plans queue_enter for a head that passes and queue_leave for an
// entry the PR no longer deserves, in place of a merge.
//
// Free functions; safe to call concurrently for different PRs.
#pragma once

#include <optional>
#include <string>

#include "act/pass_outcome.h"
#include "decide/queue_standing.h"
#include "store/store.h"

namespace gatehouse::act {

// The queue of `base` in `repo` ("owner/repo") and the entries PR `subject` has had in any
// queue, into `facts`. nullopt on success; else Transient (the store failed).
std::optional<PassOutcome> ReadQueueFacts(Store& store, const std::string& subject,
                                          const std::string& repo, const std::string& base,
                                          decide::QueueFacts* facts);

// An entry as decide/ sees it.
decide::QueueEntryFact QueueEntryFactOf(const QueueEntry& entry);

}  // namespace gatehouse::act
