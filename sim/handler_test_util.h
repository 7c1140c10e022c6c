// Test helpers for calling the simulator's REST handler in process: a request as the App's
// installation (any bearer token; the handler is built with insecure_any_token) or, for
// /_sim/ paths, as the control API, and a response header by name.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/rest.h"

namespace gatehouse::sim_testing {

// Serves one request on `handler`: /_sim/ paths go without credentials, every other path
// carries "Authorization: Bearer any".
inline HttpResponse CallSim(sim::SimHandler& handler, const std::string& method,
                            const std::string& target, const std::string& body = "") {
  std::vector<std::pair<std::string, std::string>> headers;
  if (target.rfind("/_sim/", 0) != 0) headers.emplace_back("Authorization", "Bearer any");
  return handler.Serve(HttpRequest{
      .method = method, .target = target, .headers = headers, .body = body, .peer = "test"});
}

// The value of the first header named `name` (exact case), or "" when there is none.
inline std::string HeaderOf(const HttpResponse& response, const std::string& name) {
  for (const auto& [key, value] : response.headers)
    if (key == name) return value;
  return "";
}

}  // namespace gatehouse::sim_testing
