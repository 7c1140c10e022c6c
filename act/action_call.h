// The one call that carries out a planned action (act/executor.h runs the ledger protocol
// around it): a GitHub request, bound to the action's head SHA where GitHub takes one, or
// gatehouse's own record for the kinds that are not GitHub calls (a review run, a merge queue
// entry entered or left), fenced by the pass.
#pragma once

#include <cstdint>
#include <string>

#include "act/executor.h"
#include "base/clock.h"
#include "decide/planner.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

// Makes `action`'s call for `target` under fence `fence`. The value is what the ledger keeps as
// the result of a success. A store failure is kTransient, like a lost answer: the intent stays
// open and the next holder asks again (every store call here is idempotent). A kind the call
// cannot carry out (a queue it cannot parse, a reaction without a comment) is kPermanent.
GitHubResult<std::string> CallAction(Store& store, GitHub& github, const Clock& clock,
                                     const Target& target, int64_t fence,
                                     const decide::PlannedAction& action);

}  // namespace gatehouse::act
