// Reading a webhook payload for the router. See engine/route_payload.h.
#include "engine/route_payload.h"

#include <boost/json.hpp>

#include "base/ascii.h"

namespace gatehouse::routing {
namespace {

namespace json = boost::json;

constexpr size_t kMaxEchoed = 64;

std::string_view KindName(json::kind k) {
  switch (k) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "bool";
    case json::kind::int64:
    case json::kind::uint64:
      return "integer";
    case json::kind::double_:
      return "number";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "unknown";
}

std::string Kind(const json::value& v) { return std::string(KindName(v.kind())); }

}  // namespace

std::string Clip(std::string_view s) {
  if (s.size() <= kMaxEchoed) return std::string(s);
  return std::string(s.substr(0, kMaxEchoed)) + "...";
}

bool IsSha(std::string_view s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s) {
    const char l = AsciiLower(c);
    if (!((l >= '0' && l <= '9') || (l >= 'a' && l <= 'f'))) return false;
  }
  return true;
}

const json::value* PayloadReader::Find(std::string_view path) const {
  const json::object* obj = &root_;
  const json::value* v = nullptr;
  while (true) {
    const size_t dot = path.find('.');
    v = obj->if_contains(path.substr(0, dot));
    if (v == nullptr || v->is_null()) return nullptr;
    if (dot == std::string_view::npos) return v;
    obj = v->if_object();
    if (obj == nullptr) return nullptr;
    path.remove_prefix(dot + 1);
  }
}

std::optional<std::string_view> PayloadReader::String(std::string_view path) {
  const json::value* v = Find(path);
  if (v == nullptr) return Fail(path, "is missing");
  const json::string* s = v->if_string();
  if (s == nullptr) return Fail(path, "is not a string (got " + Kind(*v) + ")");
  return std::string_view(*s);
}

std::optional<int64_t> PayloadReader::PositiveInt(std::string_view path) {
  const json::value* v = Find(path);
  if (v == nullptr) return Fail(path, "is missing");
  if (v->is_uint64()) return Fail(path, "is out of range");
  const int64_t* i = v->if_int64();
  if (i == nullptr) return Fail(path, "is not an integer (got " + Kind(*v) + ")");
  if (*i <= 0) return Fail(path, "is not a positive integer");
  return *i;
}

std::optional<std::string_view> PayloadReader::RepoFullName() {
  auto name = String("repository.full_name");
  if (!name) return std::nullopt;
  if (!IsRepoFullName(*name)) return Fail("repository.full_name", "is not owner/repo");
  return name;
}

std::optional<std::string> PayloadReader::Sha(std::string_view path) {
  auto s = String(path);
  if (!s) return std::nullopt;
  if (!IsSha(*s)) return Fail(path, "is not a commit SHA");
  return AsciiLower(*s);
}

std::nullopt_t PayloadReader::Fail(std::string_view path, const std::string& what) {
  why_ = std::string(path) + " " + what;
  return std::nullopt;
}

std::optional<std::string_view> NonEmptyString(const PayloadReader& in, std::string_view path) {
  const json::value* v = in.Find(path);
  const json::string* s = v != nullptr ? v->if_string() : nullptr;
  if (s == nullptr || s->empty()) return std::nullopt;
  return std::string_view(*s);
}

}  // namespace gatehouse::routing
