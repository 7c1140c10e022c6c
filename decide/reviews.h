// Reviews as the gate reads them: the latest deciding review per reviewer wins. One definition
// for the approvals rule (decide/gate.cc) and the planner's `changes-requested` label
// (decide/planner.cc), so the label can never disagree with the gate.
//
// Pure; safe from any thread.
#pragma once

#include <map>
#include <string>

#include "decide/snapshot.h"

namespace gatehouse::decide {

// Each reviewer's latest deciding review of `pr`, keyed (and so ordered) by login: APPROVED,
// CHANGES_REQUESTED and DISMISSED decide; COMMENTED and PENDING decide nothing (a comment does
// not withdraw a change request). The PR's author's own reviews are left out. Later
// `submitted_at` wins; on a tie the later entry of `pr.reviews` wins. The pointers point into
// `pr.reviews` and live as long as it does.
std::map<std::string, const Review*> LatestDecidingReviews(const PrSnapshot& pr);

}  // namespace gatehouse::decide
