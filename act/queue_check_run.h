// The `gatehouse/queue` check run of a merge queue entry (docs/MERGE_QUEUE.md "Visibility"):
// what it says in each state of the entry. The queue pass (act/queue_pass.h) writes it through
// the ledger, once per entry and state.
//
// A pure function.
#pragma once

#include <cstddef>
#include <optional>

#include "base/clock.h"
#include "base/subject.h"
#include "decide/planner.h"
#include "decide/queue_policy.h"
#include "store/merge_queue.h"

namespace gatehouse::act {

// Where the entry stands, as the queue pass sees it.
struct QueueCheckRunSetting {
  const QueueKey& queue;
  decide::QueueMethod method;  // kUpdateBranch: the serial method tests the PR's own new head
  size_t position = 0;         // the entry's place among the queue's open entries, from 0
  size_t entries = 0;          // how many open entries the queue has
  std::optional<Time> eta;     // store/queue_pace.h EtaOf at `position`, when the pace is known
};

// The check run action for entry `e`: on the head the PR has in the entry's state (the serial
// method's tested SHA once it is tested), its detail naming the state, the entry and the tested
// SHA, so that the ledger writes it once per state. Queued and testing runs are in progress
// (position and ETA, or the SHA under test and its deadline); merged ends in success and
// dropped in neutral, with the entry's reason. nullopt for the moments (updating, merging) not
// worth a write.
std::optional<decide::PlannedAction> QueueCheckRunOf(const QueueEntry& e,
                                                     const QueueCheckRunSetting& setting);

}  // namespace gatehouse::act
