// Typed errors of the GitHub REST client, and how the engine should treat each of them.
//
//  kind            from                                        engine (ToPassOutcome in
//                                                              act/github_outcome.h)
//  kNotFound       404                                         Permanent
//  kUnauthorized   401, 403 that is not a rate limit           Permanent (the client already
//                                                              refreshed the token once)
//  kHeadModified   409 (merge: the head moved past `sha`)      superseded, see below
//  kNotMergeable   405 (merge refused: conflicts, checks)      superseded
//  kUnprocessable  422 (e.g. stale `expected_head_sha`)        superseded
//  kRateLimited    403/429 with Retry-After or an exhausted    RateLimited(until): a wait
//                  primary limit; also refused locally while   that consumes no attempt
//                  a limit is known to be exhausted or a
//                  background call would eat the reserve
//  kTransient      5xx, connection errors, timeouts, resets    Transient
//  kPermanent      anything else (400, 410, bad JSON, ...)     Permanent
//
// "Superseded" (DESIGN.md §3): every mutating call is bound to the head SHA it was decided
// on, so GitHub answering 409/405/422 means the facts the plan was built on are gone. The
// action ledger records the action as `superseded` (not `failed`) and the pass ends normally:
// the push that moved the head has its own webhook and so its own pass. IsSuperseded() says
// which kinds qualify; ToPassOutcome() maps them to Permanent only for callers that have no
// ledger (a read that returns 409/422 is a real error).
//
// Value types; not synchronized.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse {

enum class GitHubErrorKind {
  kNotFound,
  kUnauthorized,
  kHeadModified,
  kNotMergeable,
  kUnprocessable,
  kRateLimited,
  kTransient,
  kPermanent,
};
std::string_view GitHubErrorKindName(GitHubErrorKind kind);

struct GitHubError {
  GitHubErrorKind kind = GitHubErrorKind::kPermanent;
  int http_status = 0;  // 0 when no response was received (or the call was refused locally)
  Time until;           // kRateLimited only: when the limit resets
  std::string message;  // what was being done, plus GitHub's "message" when there is one

  // "RateLimited (403): GET /repos/a/b/pulls/1: API rate limit exceeded".
  std::string ToString() const;
  // A Status for code that only speaks Status (kNotFound → NotFound, kTransient and
  // kRateLimited → Unavailable, kHeadModified/kNotMergeable/kUnprocessable →
  // FailedPrecondition, the rest → InvalidArgument/Internal). `until` is lost.
  Status ToStatus() const;
};

// The kind for a non-2xx HTTP status that is not a rate limit (the client detects rate
// limits from headers before it calls this).
GitHubErrorKind KindFromHttpStatus(int http_status);

// 409, 405 and 422 on a SHA-bound mutation: record `superseded`, do not fail the pass.
bool IsSuperseded(const GitHubError& error);

// Either a T or a GitHubError: Result<T>'s shape, keeping the typed error (and `until`).
template <typename T>
class [[nodiscard]] GitHubResult : public ValueOrError<T, GitHubError> {
 public:
  using ValueOrError<T, GitHubError>::ValueOrError;
  Status status() const { return this->ok() ? Status::Ok() : this->error().ToStatus(); }
};

// For calls whose only result is success.
struct GitHubOk {};

}  // namespace gatehouse
