// Pagination of list responses. See sim/paged.h.
#include "sim/paged.h"

#include <algorithm>

namespace gatehouse::sim {
namespace json = boost::json;

json::array Paged(json::array items, const std::map<std::string, std::string>& query,
                  const std::string& path, HttpResponse* response) {
  int64_t per_page = 30;
  int64_t page = 1;
  if (auto it = query.find("per_page"); it != query.end() && ToNumber(it->second) > 0)
    per_page = std::min<int64_t>(ToNumber(it->second), 100);
  if (auto it = query.find("page"); it != query.end() && ToNumber(it->second) > 0)
    page = ToNumber(it->second);
  int64_t total = static_cast<int64_t>(items.size());
  int64_t last = std::max<int64_t>(1, (total + per_page - 1) / per_page);
  json::array out;
  for (int64_t i = (page - 1) * per_page; i < std::min(total, page * per_page); ++i)
    out.push_back(items[static_cast<size_t>(i)]);
  std::string base = "https://api.github.com" + path + "?";
  for (const auto& [k, v] : query)
    if (k != "page" && k != "per_page") base += k + "=" + v + "&";
  base += "per_page=" + std::to_string(per_page) + "&page=";
  std::string link;
  auto add = [&](int64_t p, const char* rel) {
    if (!link.empty()) link += ", ";
    link += "<" + base + std::to_string(p) + ">; rel=\"" + rel + "\"";
  };
  if (page < last) {
    add(page + 1, "next");
    add(last, "last");
  }
  if (page > 1) {
    add(page - 1, "prev");
    add(1, "first");
  }
  if (!link.empty()) response->headers.emplace_back("Link", link);
  return out;
}

}  // namespace gatehouse::sim
