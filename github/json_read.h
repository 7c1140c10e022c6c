// Reading fields out of GitHub's JSON answers (REST and GraphQL): missing or mistyped fields
// read as empty, since GitHub adds fields freely, omits some and sends null for others.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gatehouse::json_read {

// `key`'s value of object `v`; a null value when `v` is not an object or has no `key`.
inline const boost::json::value& Sub(const boost::json::value& v, std::string_view key) {
  static const boost::json::value kNull;
  const auto* obj = v.if_object();
  const auto* field = obj ? obj->if_contains(key) : nullptr;
  return field ? *field : kNull;
}

inline std::string Str(const boost::json::value& v, std::string_view key) {
  const auto* s = Sub(v, key).if_string();
  return s ? std::string(*s) : std::string();
}

inline int64_t Int(const boost::json::value& v, std::string_view key) {
  const boost::json::value& field = Sub(v, key);
  if (const auto* i = field.if_int64()) return *i;
  if (const auto* u = field.if_uint64()) return static_cast<int64_t>(*u);
  return 0;
}

inline std::optional<bool> OptBool(const boost::json::value& v, std::string_view key) {
  const auto* b = Sub(v, key).if_bool();
  return b ? std::optional<bool>(*b) : std::nullopt;
}

// ASCII lower case: GraphQL's SUCCESS → REST's "success".
inline std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// A GraphQL connection's `nodes`, or null when the answer has none.
inline const boost::json::array* Nodes(const boost::json::value& connection) {
  return Sub(connection, "nodes").if_array();
}

// Whether a GraphQL connection says more follows its page.
inline bool HasNextPage(const boost::json::value& connection) {
  const auto* more = Sub(Sub(connection, "pageInfo"), "hasNextPage").if_bool();
  return more != nullptr && *more;
}

}  // namespace gatehouse::json_read
