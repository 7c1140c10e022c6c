// Generations: ledger keys for actions that set a state which may have to be set again within
// one head occurrence (docs/ACTIONS.md, "Generations").
//
// The ledger never repeats a key it holds as done. A label gatehouse put on and then took off,
// a check run that went success → in_progress (a CI re-run) → success, or a summary comment
// edited to one text, then another, then back, needs the same state written a second time on
// the same head occurrence: each such write gets its own key, `<detail>#<generation>`. The
// generation is derived from the ledger alone (decide/prior_action.h), never from what a
// (possibly lagging) read of GitHub shows, so a stale read can never produce a key that repeats
// an effect.
//
// Pure functions; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "decide/planner.h"
#include "decide/prior_action.h"

namespace gatehouse::decide {

// `detail` without its generation: "ready-to-merge#2" → "ready-to-merge". A detail without
// one is returned as is.
std::string BaseDetail(std::string_view detail);

// Gives `a` (planned on `a.head_sha`, occurrence `a.head_occurrence`, with a generation-free
// detail) the key its slot's history in `ledger` (the PR's rows, oldest first) asks for, by
// kind:
//   label / unlabel: generation 1 + the number of done (or open) opposite actions on the same
//     label in the occurrence (`label|L`, `unlabel|L#2`, `label|L#2`, `unlabel|L#3`, ...);
//   check_run, and comment edits of the summary comment: the slot is every check run (or
//     every edit of that comment) of the occurrence that is done or open, oldest first. If
//     the latest of them already writes this detail, `a` takes its key (done: skipped; open:
//     reconciled). Otherwise `a` is generation 1 + the number of earlier writes of this detail
//     in the slot;
//   anything else: unchanged (one key per occurrence).
void NumberGeneration(PlannedAction& a, const std::vector<PriorAction>& ledger);

// The detail (without generation) of the action whose Key() is `external_id`, when it is a
// gatehouse check run on `head_sha` ("" otherwise): what the head's check run currently says.
std::string CheckRunDetailOf(std::string_view external_id, std::string_view head_sha);

}  // namespace gatehouse::decide
