// Runs a valid GraphQL document (sim/graphql_schema.h) over the simulator's Model, as GitHub's
// GraphQL API answers it: the selected fields only, under their aliases, with GitHub's
// upper-case enums, the App shown as a `Bot` whose login is its slug (GraphQL drops REST's
// "[bot]"), cursor pagination, and a repository or pull request that the caller cannot see
// or that does not exist answered as null with a NOT_FOUND error beside the data.
//
// What each field means follows the REST API the simulator serves, so both tell one story:
// a commit's `status` is the combined status (the latest status per context), its
// `statusCheckRollup.contexts` are its check runs (every run on the SHA, as GET
// /commits/{sha}/check-runs lists them) followed by those statuses, and a PR's `reviews`
// are the submitted ones in submission order.
//
// Pure over a Model snapshot; safe to call concurrently (Model reads are).
#pragma once

#include <boost/json.hpp>
#include <cstdint>

#include "sim/graphql_document.h"
#include "sim/model.h"

namespace gatehouse::sim::graphql {

// What `rateLimit` shows: the window after this query's cost was spent.
struct RateLimitView {
  int64_t cost = 1;
  int64_t limit = 5000;
  int64_t remaining = 5000;
  int64_t reset_epoch_s = 0;
};

// {"data": {...}} and, when something was not found, "errors": [...]. `installation_id` 0 sees
// every repository (the simulator's any-token mode); otherwise only its own.
boost::json::object Execute(const Document& doc, const Model& model, int64_t installation_id,
                            const RateLimitView& rate);

}  // namespace gatehouse::sim::graphql
