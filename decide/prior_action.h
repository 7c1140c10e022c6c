// PriorAction: one row of gatehouse's action ledger (DESIGN.md §3) as decide/ sees it — what
// gatehouse did, or set out to do, on this PR before. The generations of ledger keys
// (decide/generations.h) and the closure history (decide/closure_history.h) are derived from
// these rows alone. act/ converts the store's rows (act/prior_actions.h); decide/ never reads
// the store.
//
// Plain value type; not synchronized.
#pragma once

#include <cstdint>
#include <string>

#include "base/clock.h"
#include "decide/planner.h"

namespace gatehouse::decide {

struct PriorAction {
  enum class State {
    kIntent,      // recorded before the call; no outcome yet (the call may have happened)
    kDone,        // GitHub accepted it, or reconciliation found its effect
    kFailed,      // GitHub refused it, or it was not called; a later pass may try again
    kSuperseded,  // refused because the head moved: final for its head occurrence
  };
  int64_t id = 0;  // the ledger's row id: a later row has a larger one
  ActionKind kind = ActionKind::kCheckRun;
  std::string head_sha;
  int64_t head_occurrence = 1;
  std::string detail;  // as in the key, its generation included ("pending-closure#2")
  State state = State::kIntent;
  std::string result;  // the ledger's result text ("comment 12 body <digest>", an error, ...)
  Time created_at{};  // the first intent of this key (a retry of a failed row keeps it)
  Time updated_at{};  // the latest change: the intent of this attempt, or its outcome
};

}  // namespace gatehouse::decide
