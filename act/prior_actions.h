// The action ledger as decide/ sees it: the store's rows (store/store.h ActionRecord) turned
// into decide::PriorAction (decide/prior_action.h), from which decide/ numbers generations of
// ledger keys and reads the closure history. decide/ never reads the store; this is the one
// place that translates.
//
// Pure function; safe from any thread.
#pragma once

#include <vector>

#include "decide/prior_action.h"
#include "store/store.h"

namespace gatehouse::act {

// `ledger` (one subject's rows, oldest first) in the same order. A row whose kind this
// gatehouse does not know (decide::ParseActionKind) is left out: no decision of this version
// is about it.
std::vector<decide::PriorAction> PriorActions(const std::vector<ActionRecord>& ledger);

}  // namespace gatehouse::act
