// The summary comment as gatehouse's own ledger knows it (docs/ACTIONS.md, "The summary
// comment"): a done edit's key, "summary:<id>:<digest>", names the comment and the digest of
// the body it was given, so a pass that finds one needs no read of the PR's comments to edit
// the comment again, or to see that it already says what the pass would write.
//
// Pure function; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/prior_action.h"

namespace gatehouse::decide {

// The summary comment's ledger details: its creation, and the prefix of every one of its
// actions ("summary:<id>:<digest>" for an edit).
inline constexpr std::string_view kSummaryCreation = "summary:new";
inline constexpr std::string_view kSummaryDetailPrefix = "summary:";

struct SummaryRecord {
  int64_t comment_id = 0;
  std::string digest;  // StableDigest of the body the edit wrote
};

// The latest summary-comment row of `ledger` (kind comment, detail "summary:..."; latest by
// updated_at, then id), when it is a done edit, or a done creation ("summary:new") whose
// result is SummaryCreatedResult's. nullopt when there is none, or when the latest is a
// creation that reconciliation found (its result names no digest), an open intent, a failure
// (a 404 for a comment someone deleted is one) or superseded: then the pass reads the comments.
std::optional<SummaryRecord> LastSummaryEdit(const std::vector<PriorAction>& ledger);

// The ledger result of creating the summary comment `comment_id` with a body of `digest`:
// "comment <id> body <digest>".
std::string SummaryCreatedResult(int64_t comment_id, const std::string& digest);

}  // namespace gatehouse::decide
