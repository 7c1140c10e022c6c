// Reading the admin API's documents in the CLI: a field of an object as a number or as text,
// with a default when it is missing or of another type (the documents are gatehouse's own, so
// a missing field is a version difference, not an error worth a crash).
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace gatehouse::app {

inline const boost::json::value* FieldOf(const boost::json::value& v, std::string_view name) {
  if (!v.is_object()) return nullptr;
  return v.as_object().if_contains(name);
}

inline int64_t IntOf(const boost::json::value& v, std::string_view name, int64_t fallback = 0) {
  const boost::json::value* f = FieldOf(v, name);
  if (f == nullptr) return fallback;
  if (f->is_int64()) return f->as_int64();
  if (f->is_uint64()) return static_cast<int64_t>(f->as_uint64());
  if (f->is_double()) return static_cast<int64_t>(f->as_double());
  return fallback;
}

inline bool BoolOf(const boost::json::value& v, std::string_view name) {
  const boost::json::value* f = FieldOf(v, name);
  return f != nullptr && f->is_bool() && f->as_bool();
}

// A string field's text; "" when it is missing or not a string.
inline std::string StringOf(const boost::json::value& v, std::string_view name) {
  const boost::json::value* f = FieldOf(v, name);
  return f != nullptr && f->is_string() ? std::string(f->as_string()) : std::string();
}

// Strings as they are, null and missing as `fallback`, anything else serialized.
inline std::string TextOf(const boost::json::value& v, std::string_view name,
                          std::string_view fallback = "") {
  const boost::json::value* f = FieldOf(v, name);
  if (f == nullptr || f->is_null()) return std::string(fallback);
  if (f->is_string()) return std::string(f->as_string());
  return boost::json::serialize(*f);
}

inline const boost::json::array& ArrayOf(const boost::json::value& v, std::string_view name) {
  static const boost::json::array kEmpty;
  const boost::json::value* f = FieldOf(v, name);
  return f != nullptr && f->is_array() ? f->as_array() : kEmpty;
}

}  // namespace gatehouse::app
