// Paged: one page of a list response as GitHub serves it — `per_page` (default 30, at most
// 100) and `page` (from 1) from the query, and a Link header with rel="next"/"last" and
// "prev"/"first" naming api.github.com (SimHandler rewrites it to the simulator's own address).
#pragma once

#include <boost/json.hpp>
#include <map>
#include <string>

#include "sim/rest.h"

namespace gatehouse::sim {

// The page of `items` the query asks for; the Link header is added to `response`.
boost::json::array Paged(boost::json::array items, const std::map<std::string, std::string>& query,
                         const std::string& path, HttpResponse* response);

}  // namespace gatehouse::sim
