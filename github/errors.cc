#include "github/errors.h"

namespace gatehouse {

std::string_view GitHubErrorKindName(GitHubErrorKind kind) {
  switch (kind) {
    case GitHubErrorKind::kNotFound:
      return "NotFound";
    case GitHubErrorKind::kUnauthorized:
      return "Unauthorized";
    case GitHubErrorKind::kHeadModified:
      return "HeadModified";
    case GitHubErrorKind::kNotMergeable:
      return "NotMergeable";
    case GitHubErrorKind::kUnprocessable:
      return "Unprocessable";
    case GitHubErrorKind::kRateLimited:
      return "RateLimited";
    case GitHubErrorKind::kTransient:
      return "Transient";
    case GitHubErrorKind::kPermanent:
      return "Permanent";
  }
  return "Unknown";
}

std::string GitHubError::ToString() const {
  std::string out(GitHubErrorKindName(kind));
  if (http_status != 0) out += " (" + std::to_string(http_status) + ")";
  if (kind == GitHubErrorKind::kRateLimited) out += " until " + FormatTime(until);
  if (!message.empty()) out += ": " + message;
  return out;
}

Status GitHubError::ToStatus() const {
  switch (kind) {
    case GitHubErrorKind::kNotFound:
      return NotFound(ToString());
    case GitHubErrorKind::kRateLimited:
    case GitHubErrorKind::kTransient:
      return Unavailable(ToString());
    case GitHubErrorKind::kHeadModified:
    case GitHubErrorKind::kNotMergeable:
    case GitHubErrorKind::kUnprocessable:
      return FailedPrecondition(ToString());
    case GitHubErrorKind::kUnauthorized:
      return InvalidArgument(ToString());
    case GitHubErrorKind::kPermanent:
      return Internal(ToString());
  }
  return Internal(ToString());
}

GitHubErrorKind KindFromHttpStatus(int http_status) {
  switch (http_status) {
    case 401:
    case 403:
      return GitHubErrorKind::kUnauthorized;
    case 404:
      return GitHubErrorKind::kNotFound;
    case 405:
      return GitHubErrorKind::kNotMergeable;
    case 409:
      return GitHubErrorKind::kHeadModified;
    case 422:
      return GitHubErrorKind::kUnprocessable;
    case 429:
      return GitHubErrorKind::kRateLimited;
    case 408:  // request timeout: the request may be retried as is
      return GitHubErrorKind::kTransient;
    default:
      return http_status >= 500 ? GitHubErrorKind::kTransient : GitHubErrorKind::kPermanent;
  }
}

bool IsSuperseded(const GitHubError& error) {
  return error.kind == GitHubErrorKind::kHeadModified ||
         error.kind == GitHubErrorKind::kNotMergeable ||
         error.kind == GitHubErrorKind::kUnprocessable;
}

}  // namespace gatehouse
