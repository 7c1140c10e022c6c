// How review results show on GitHub (docs/REVIEWERS.md): the body of the PR review a finished run
// posts, its hidden marker (which is how a posted review is recognised as a run's, e.g. by
// reconciliation after a lost answer), the review event a verdict maps to, and the reviews
// section of the summary comment.
//
// Reviewer output is untrusted text: it is rendered so that it can never forge a marker ("<!--"
// is escaped) and a finding stays on its list line. Bodies are deterministic (no time), so the
// same result always gives the same body. Pure; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/gate.h"
#include "decide/review_types.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// Every review body ends with `<!-- gatehouse:review role=<role> head=<sha> run=<id> -->`.
inline constexpr std::string_view kReviewMarkerPrefix = "<!-- gatehouse:review ";

struct ReviewMarker {
  std::string role;
  std::string head_sha;
  int64_t run_id = 0;
  bool operator==(const ReviewMarker&) const = default;
};

// The marker line for a run's review.
std::string ReviewMarkerText(std::string_view role, std::string_view head_sha, int64_t run_id);

// The marker of a review body: the last kReviewMarkerPrefix in `body`, parsed strictly
// (a valid role name, a non-empty alphanumeric head, a run id > 0); nullopt when there is none
// or it is malformed.
std::optional<ReviewMarker> ParseReviewMarker(std::string_view body);

// GitHub's review event for a verdict: APPROVE, COMMENT or REQUEST_CHANGES.
std::string_view ReviewEventFor(ReviewVerdict verdict);

// The findings of `prior` that `current` no longer reports (same path and message; the line may
// move), in `prior`'s order, without duplicates.
std::vector<ReviewFinding> ResolvedFindings(const std::vector<ReviewFinding>& prior,
                                            const std::vector<ReviewFinding>& current);

// The PR review body of run `run_id` of `role` at `head_sha`: a headline with the verdict, the
// reviewer's summary, the findings as a list (path:line, severity, message; at most
// kMaxListedFindings, then "and N more"), "Resolved since <short prior head>" with
// ResolvedFindings(prior_findings, result.findings) when `prior_head_sha` is set and differs
// from `head_sha`, and the marker as the last line.
inline constexpr size_t kMaxListedFindings = 50;
std::string RenderReviewBody(std::string_view role, std::string_view head_sha, int64_t run_id,
                             const ReviewResult& result,
                             const std::vector<ReviewFinding>& prior_findings,
                             std::string_view prior_head_sha);

// The reviews section of the summary comment ("" when pr.role_reviews is empty): a headline
// "N AI reviewer(s) · M blocker(s) · readiness S/100" (N counts the roles with a verdict,
// M sums their blocking findings) and one line per role with its reviewer, state or verdict,
// and blockers.
std::string RenderReviewsSection(const PrSnapshot& pr, const GateVerdict& verdict);

}  // namespace gatehouse::decide
