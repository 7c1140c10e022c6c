#include "sim/request_tally.h"

#include "github/metered_transport.h"

namespace gatehouse::sim {
namespace {

void Add(RequestCounts& c, int status, bool costing) {
  ++c.requests;
  if (costing) ++c.costing;
  if (status == 304) ++c.not_modified;
  if (status >= 400 || status == 0) ++c.errors;
}

boost::json::object RenderCounts(const RequestCounts& c) {
  return boost::json::object{{"requests", c.requests},
                             {"costing", c.costing},
                             {"not_modified", c.not_modified},
                             {"errors", c.errors}};
}

}  // namespace

void RequestTally::Record(const std::string& window, std::string_view method,
                          std::string_view target, int status, bool costing) {
  std::string endpoint = EndpointTemplate(target);
  MutexLock lock(&mu_);
  Add(total_, status, costing);
  Add(windows_[window], status, costing);
  Add(endpoints_[{std::string(method), std::move(endpoint)}], status, costing);
}

boost::json::object RequestTally::Render() const {
  MutexLock lock(&mu_);
  return RenderLocked();
}

boost::json::object RequestTally::RenderLocked() const {
  boost::json::object windows;
  for (const auto& [name, c] : windows_) windows[name] = RenderCounts(c);
  boost::json::array endpoints;
  for (const auto& [key, c] : endpoints_) {
    boost::json::object e = RenderCounts(c);
    e["method"] = key.first;
    e["endpoint"] = key.second;
    endpoints.push_back(std::move(e));
  }
  return boost::json::object{{"total", RenderCounts(total_)},
                             {"windows", std::move(windows)},
                             {"endpoints", std::move(endpoints)}};
}

boost::json::object RequestTally::RenderAndReset() {
  MutexLock lock(&mu_);
  boost::json::object counted = RenderLocked();
  total_ = {};
  windows_.clear();
  endpoints_.clear();
  return counted;
}

}  // namespace gatehouse::sim
