// GitHub's GraphQL `errors` answer as a GitHubError, one mapping for every gatehouse query
// (docs/GITHUB.md "One query per pass"). GitHub answers a query it ran, or refused, with
// HTTP 200 and an `errors` array; the first entry decides:
//   type NOT_FOUND     kNotFound: the repository or PR is gone or not visible, as REST's 404;
//   type RATE_LIMITED  kRateLimited until `reset` (the X-RateLimit-Reset the answer carried);
//   no type, with `extensions.code` (undefinedField, argumentLiteralsIncompatible, ...), or
//   type MISSING_PAGINATION_BOUNDARIES, EXCESSIVE_PAGINATION or MAX_NODE_LIMIT_EXCEEDED: an
//                      error about the document itself, kPermanent. The query is gatehouse's
//                      own, so GitHub refusing it is a schema change or a bug that no retry
//                      mends: the caller turns GraphQL off and reads over REST;
//   anything else      (FORBIDDEN by an organisation's IP allow list, INTERNAL, a timeout,
//                      no type at all): an error of this one execution, kTransient.
// The message is GitHub's, after "POST /graphql (<operation>): ".
//
// Pure function.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string_view>

#include "base/clock.h"
#include "github/errors.h"

namespace gatehouse {

// The error `body` (a 200's JSON) carries, or nullopt when it carries none.
std::optional<GitHubError> GraphqlAnswerError(const boost::json::value& body,
                                              std::string_view operation, Time reset);

}  // namespace gatehouse
