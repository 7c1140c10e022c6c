// Invariants over the App's effects in the effect log (docs/SIMULATOR.md, "invariants"):
// properties every history must have whatever the scenario, each checked by a scenario
// expectation of its own. The App's effects are those whose `who` starts "installation:".
//
// Pure functions over a copy of the log.
#pragma once

#include <string>
#include <vector>

#include "sim/model.h"

namespace gatehouse::sim {

// One effect as a failure line shows it: "#seq who kind repo#N sha= head= status= detail=".
std::string DescribeEffect(const Effect& e);

// 2xx App effects bound to a SHA that was no longer the PR's head when the call arrived
// (non-empty `sha` and `head` that differ), one line each.
std::vector<std::string> StaleEffects(const std::vector<Effect>& effects);

// Pairs of 2xx App effects that did the same thing twice: same kind (merge, review, close,
// update_branch), repo, number, sha and detail, one line per pair. Undoing an action in
// between makes the next one new: a successful reopen of the PR (by anyone) before a second
// close; a successful dismissal of the App's review on that PR and SHA (by anyone) before a
// second APPROVE or REQUEST_CHANGES review.
std::vector<std::string> DuplicateEffects(const std::vector<Effect>& effects);

}  // namespace gatehouse::sim
