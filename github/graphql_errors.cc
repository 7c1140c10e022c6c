#include "github/graphql_errors.h"

#include <string>

#include "github/json_read.h"

namespace gatehouse {

std::optional<GitHubError> GraphqlAnswerError(const boost::json::value& body,
                                              std::string_view operation, Time reset) {
  using json_read::Str;
  using json_read::Sub;
  const auto* errors = Sub(body, "errors").if_array();
  if (errors == nullptr || errors->empty()) return std::nullopt;
  const boost::json::value& first = errors->front();
  const std::string type = Str(first, "type");
  std::string message = "POST /graphql (" + std::string(operation) + "): " + Str(first, "message");
  if (type == "NOT_FOUND") return GitHubError{GitHubErrorKind::kNotFound, 200, {}, message};
  if (type == "RATE_LIMITED") {
    return GitHubError{GitHubErrorKind::kRateLimited, 200, reset, message};
  }
  // GitHub's own types for a document it will not run, whatever the data.
  const bool document_type = type == "MISSING_PAGINATION_BOUNDARIES" ||
                             type == "EXCESSIVE_PAGINATION" || type == "MAX_NODE_LIMIT_EXCEEDED";
  if (document_type || (type.empty() && !Str(Sub(first, "extensions"), "code").empty())) {
    return GitHubError{GitHubErrorKind::kPermanent, 200, {}, message};
  }
  return GitHubError{GitHubErrorKind::kTransient, 200, {}, message};
}

}  // namespace gatehouse
