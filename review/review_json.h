// The JSON of a review request and of a review result (docs/REVIEWERS.md, "Request and result
// JSON"): what the command executor writes to stdin, the http executor POSTs and the openai
// executor asks the model to answer with; and how an answer is validated.
//
// Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"
#include "decide/review_types.h"

namespace gatehouse::review {

// The most findings one review result may carry (ParseReviewResult refuses more).
inline constexpr size_t kMaxFindings = 200;

// {"repo","number","role","head_sha","base_sha","title","body","author",
//  "files":[{"path","status","additions","deletions","patch"}],
//  "prior_findings":[{"path","line","severity","message"}],"prior_head_sha"}
std::string EncodeReviewRequest(const decide::ReviewRequest& request);

// {"verdict":"approve|comment|request_changes","summary":"...",
//  "findings":[{"path":"...","line":12,"severity":"info|warning|blocking","message":"..."}]}
std::string EncodeReviewResult(const decide::ReviewResult& result);

// Validates strictly: an object with a known verdict, a string summary (may be empty),
// findings (optional, an array) each with a non-empty path, a line >= 0 (optional, 0), a known
// severity (optional, info) and a non-empty message; at most 200 findings, messages clipped to
// 4 KiB. InvalidArgument naming the first problem ("findings[2].severity: expected one of info,
// warning, blocking, got \"high\"").
// Keys not named here are ignored (a reviewer may add its own); the text must be one JSON value
// and nothing else ("not JSON: ..." otherwise).
Result<decide::ReviewResult> ParseReviewResult(std::string_view json);

}  // namespace gatehouse::review
