// How a review run's reviewer is chosen among its candidates, shared by every backend so that
// they choose alike (store/review_runs.h, AssignAndClaimSlot). Pure: the backend loads each
// candidate's state inside its assignment transaction and hands it here.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "store/review_runs.h"

namespace gatehouse {

// What the assignment knows about one candidate. A work item holds at most one slot of a
// reviewer: while it holds one for another run, it has none free for this one.
struct ReviewerCandidate {
  const ReviewerSlotSpec* spec = nullptr;
  bool paused = false;
  int busy = 0;
  bool held_here = false;
  int Free() const { return held_here ? 0 : spec->concurrency - busy; }
};

// Affinity first (waited for when busy), else the most free slots, file order breaking ties.
// nullptr when every candidate is paused.
const ReviewerCandidate* ChooseReviewer(const std::vector<ReviewerCandidate>& candidates,
                                        std::string_view affinity, bool* by_affinity);

// kInvalidArgument for no candidates, a nameless one, or a concurrency below 1.
Status ValidateReviewerCandidates(std::span<const ReviewerSlotSpec> candidates);

}  // namespace gatehouse
