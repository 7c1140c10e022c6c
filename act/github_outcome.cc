#include "act/github_outcome.h"

#include <string>

namespace gatehouse {

PassOutcome ToPassOutcome(const GitHubError& error) {
  switch (error.kind) {
    case GitHubErrorKind::kRateLimited:
      return PassOutcome::RateLimited(error.until, error.ToString());
    case GitHubErrorKind::kTransient:
      return PassOutcome::Transient(error.ToString());
    default:
      return PassOutcome::Permanent(error.ToString());
  }
}

PassOutcome ReadFailureOutcome(std::string_view what, const GitHubError& error) {
  if (error.kind == GitHubErrorKind::kRateLimited) return ToPassOutcome(error);
  return PassOutcome::Transient(std::string(what) + ": " + error.ToString());
}

}  // namespace gatehouse
