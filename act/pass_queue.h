// The merge queue's side of a PR's pass (docs/MERGE_QUEUE.md, "Who moves an entry"): when the
// repository's policy enables the queue, the pass reads its PR's entries, and the planner
// (decide/queue_standing.h) plans queue_enter for a head that passes and queue_leave for an
// entry the PR no longer deserves, in place of a merge.
//
// Free functions; safe to call concurrently for different PRs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "act/pass_outcome.h"
#include "base/clock.h"
#include "decide/queue_standing.h"
#include "store/store.h"

namespace gatehouse::act {

// The queue of `base` in `repo` ("owner/repo"), the entries PR `subject` has had in any queue,
// and, when one is open in that queue, its place there (position, batch, and the wait at the
// queue's recent pace from `now`: one more read, of the queue), into `facts`. nullopt on
// success; else Transient (the store failed).
std::optional<PassOutcome> ReadQueueFacts(Store& store, const std::string& subject,
                                          const std::string& repo, const std::string& base,
                                          Time now, decide::QueueFacts* facts);

// What the PR's queue, merge and dequeue comments say (every `command:<id>` fact, handled or
// not; decide::FoldQueueCommands).
decide::QueueCommandStanding QueueCommandsOf(const std::vector<PrFact>& facts,
                                             std::string_view app_login);

// A `refresh` command not acknowledged yet (in `unhandled`) by someone with write access wakes
// the queue of the PR's open entry, if it has one: its pass runs now too. Waking twice is
// harmless, so a pass that fails after it may wake again. nullopt on success; else Transient.
std::optional<PassOutcome> WakeQueueOnRefresh(Store& store, Time now,
                                              const decide::QueueFacts& queue,
                                              const std::vector<decide::CommandComment>& unhandled,
                                              std::string_view app_login);

// An entry as decide/ sees it.
decide::QueueEntryFact QueueEntryFactOf(const QueueEntry& entry);

}  // namespace gatehouse::act
