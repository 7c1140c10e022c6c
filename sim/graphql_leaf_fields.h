// The simulator's GraphQL fields that resolve to a scalar without descending further, and the
// spellings every resolver shares (GitHub's upper-case enums, node ids, nullable times). The
// executor (sim/graphql_execute.cc) dispatches to these for the leaf types: User and Bot, App,
// Blob, PullRequestChangedFile and PageInfo. Each takes the field's name as validated against
// sim/graphql_schema.cc; a name the schema does not give the type cannot reach them, and the
// last field of each type is its fallthrough (noted where it is returned).
//
// Pure functions; safe from any thread.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace gatehouse::sim::graphql {

// ASCII upper case: REST's "open" → GraphQL's OPEN.
std::string Upper(std::string_view s);
// GitHub's time text, or null when there is none.
boost::json::value OptTimeValue(const std::optional<Time>& t);
// A node id: "<prefix>_<base64 of id>".
boost::json::string NodeId(std::string_view prefix, int64_t id);
inline boost::json::string Str(std::string_view s) { return boost::json::string(s); }

// A User or Bot (`type`) for the model login `raw`: a Bot's login without REST's "[bot]".
boost::json::value ActorField(std::string_view type, const std::string& raw,
                              std::string_view field);
// A changed file from its REST rendering: GraphQL's path, line counts and changeType.
boost::json::value FileField(const boost::json::object& file, std::string_view field);
// The App behind `creator` (a model login), by its slug.
boost::json::value AppField(const std::string& creator, std::string_view field);
// A file's content as a Blob: its oid is git's form (a SHA-256 prefix of the blob's header and
// content: it changes with the content, as SHA-1 would).
boost::json::value BlobField(const std::string& content, std::string_view field);
// A connection's pageInfo for the page [begin, end) of `total` items.
boost::json::value PageInfoField(size_t begin, size_t end, size_t total, std::string_view field);

}  // namespace gatehouse::sim::graphql
