#include "sim/graphql_cursor.h"

#include <algorithm>
#include <string_view>

#include "github/base64.h"

namespace gatehouse::sim::graphql {
namespace json = boost::json;

namespace {
constexpr std::string_view kCursorPrefix = "cursor:v2:";
}  // namespace

json::string Cursor(size_t index) {
  return json::string(Base64Encode(std::string(kCursorPrefix) + std::to_string(index)));
}

std::optional<size_t> CursorIndex(const json::value& v) {
  if (!v.is_string()) return std::nullopt;
  auto decoded = Base64Decode(std::string(v.as_string()));
  if (!decoded || !decoded->starts_with(kCursorPrefix) || decoded->size() == kCursorPrefix.size() ||
      decoded->size() > kCursorPrefix.size() + 9) {
    return std::nullopt;
  }
  size_t index = 0;
  for (char c : decoded->substr(kCursorPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return index;
}

PageBounds PageOf(size_t total, const std::map<std::string, json::value>& args) {
  PageBounds page{.begin = 0, .end = total, .bad_cursor = {}};
  for (const char* name : {"after", "before"}) {
    auto it = args.find(name);
    if (it == args.end() || it->second.is_null()) continue;
    auto index = CursorIndex(it->second);
    if (!index) {
      page.bad_cursor = name;
      return page;
    }
    if (std::string_view(name) == "after") {
      page.begin = std::min(page.end, *index + 1);
    } else {
      page.end = std::min(page.end, *index);
    }
  }
  page.begin = std::min(page.begin, page.end);
  if (auto it = args.find("first"); it != args.end() && it->second.is_int64()) {
    page.end = std::min(page.end, page.begin + static_cast<size_t>(it->second.as_int64()));
  }
  if (auto it = args.find("last"); it != args.end() && it->second.is_int64()) {
    const auto last = static_cast<size_t>(it->second.as_int64());
    if (page.end - page.begin > last) page.begin = page.end - last;
  }
  return page;
}

}  // namespace gatehouse::sim::graphql
