// The REST reads a GraphQL query stands for, so the simulator's aimed faults (sim/rest.h) match
// a query however the client reads: a rule that fails every read of a pull request fails its
// GraphQL read too.
//
// Pure over a validated document (sim/graphql_schema.h).
#pragma once

#include <string>
#include <vector>

#include "sim/graphql_document.h"

namespace gatehouse::sim::graphql {

// As GET paths: "/repos/{owner}/{name}" for each top-level `repository(owner:, name:)`,
// "/repos/{owner}/{name}/pulls/{number}" for each `pullRequest(number:)` inside it, and
// ".../commits/{oid}/check-runs" and ".../commits/{oid}/status" for each `object(oid:)`.
std::vector<std::string> RestReadsOf(const Document& doc);

}  // namespace gatehouse::sim::graphql
