// Cursor pagination as GitHub's GraphQL API pages a connection: opaque base64 cursors that
// name an item's index, and the page that `first`/`last`/`after`/`before` select.
//
// Pure functions; the arguments were validated against the schema before (sim/graphql_schema.h),
// so only a cursor that is not one of ours can still be wrong.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace gatehouse::sim::graphql {

// The cursor of the item at `index`.
boost::json::string Cursor(size_t index);

// The index a cursor names; nullopt when it is not one of ours.
std::optional<size_t> CursorIndex(const boost::json::value& v);

// The items [begin, end) of a connection of `total` items that the paging arguments select,
// or, when `after` or `before` is not a cursor of ours, that argument's name in `bad_cursor`.
struct PageBounds {
  size_t begin = 0;
  size_t end = 0;
  std::string bad_cursor;
};
PageBounds PageOf(size_t total, const std::map<std::string, boost::json::value>& args);

}  // namespace gatehouse::sim::graphql
