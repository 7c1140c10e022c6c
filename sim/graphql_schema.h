// The part of GitHub's GraphQL schema the simulator serves (docs/SIMULATOR.md "GraphQL"):
// a repository's pull request (or its pull requests, paged, by state; or a file of its default
// branch as a Blob, `object(expression: "HEAD:path")`) with its labels, reviews, commits, the
// commits' combined status and check rollup (check runs and status contexts, with each run's suite
// and App), and `rateLimit`. Types, fields and arguments carry GitHub's names; enums are GitHub's
// upper-case values.
//
// Validate checks a parsed document against it before anything runs, as GitHub does: an
// unknown field, an argument a field does not take, a missing required one, a selection on a
// scalar or none on an object, a fragment on a type that cannot apply, and a connection
// without `first`/`last` or asking for more than 100 records are each an error (and nothing
// executes). QueryCost is GitHub's rate-limit cost of a valid document.
//
// Pure functions; the schema is a constant.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/graphql_document.h"

namespace gatehouse::sim::graphql {

// The errors of `doc` against the schema, each {"message", "locations": [{"line","column"}]},
// in document order; empty when the document is valid.
boost::json::array Validate(const Document& doc);

// GitHub's cost of a valid document: for each connection, the number of requests it needs when
// every enclosing connection returns its full `first`/`last` (1 for a top-level one), summed,
// divided by 100 and rounded to the nearest whole number; at least 1.
int64_t QueryCost(const Document& doc);

// Whether runtime type `type` matches a fragment's type condition `on` ("" always matches):
// the type itself, or an interface or union it belongs to.
bool FragmentApplies(std::string_view on, std::string_view type);

// The largest page a connection serves (GitHub's limit for `first` and `last`).
inline constexpr int64_t kMaxPage = 100;

}  // namespace gatehouse::sim::graphql
