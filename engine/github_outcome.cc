#include "engine/github_outcome.h"

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

}  // namespace gatehouse
