// Scenario expectations (docs/SIMULATOR.md, "expect"): each is on the effect log (counts of
// matching effects), an invariant (sim/invariants.h), or on one pull request's state at the
// end (`"pull": "owner/name#N"`: state, labels, counts, the summary comment's text, a check
// run's outcome). Validation is strict, so that a typo is a malformed scenario rather than an
// expectation that silently holds.
//
// Pure functions; the model is only read.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "sim/model.h"

namespace gatehouse::sim {

// InvalidArgument, quoting the expectation, for an unknown field or a malformed value.
Status ValidateExpectation(const boost::json::value& expectation);

// What one (validated) expectation found.
struct ExpectationResult {
  std::string failure;  // "" when it holds, else "expected {...}, got ..."
  // An invariant's offences, one line each (sim/invariants.h), met or not (then empty).
  std::vector<std::string> offences;
  bool met() const { return failure.empty(); }
};

// One result per expectation, in order.
std::vector<ExpectationResult> EvaluateExpectations(const boost::json::array& expectations,
                                                    const Model& model);

// One failure line per (validated) expectation that does not hold now, saying what was found:
// "expected {...}, got ...".
std::vector<std::string> UnmetExpectations(const boost::json::array& expectations,
                                           const Model& model);

}  // namespace gatehouse::sim
