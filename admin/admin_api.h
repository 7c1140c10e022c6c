// AdminApi: the JSON API of the admin listener (docs/ADMIN_API.md), over one Store. Reads are
// the documents of admin/views.h; the operator's actions — re-arm a dead item (or every dead
// item matching a prefix), replay a delivery, pause or resume a reviewer — go through the same
// store operations as the CLI. A re-arm leaves an "operator" line in the PR's audit log; every
// action leaves an admin.* log line.
//
// Serve blocks on the store: the admin handler calls it on its own threads, never on the HTTP
// server's I/O threads. Authentication is the handler's (admin/admin_handler.h); this class
// trusts its caller. Thread-safe: it holds no state of its own besides the store.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "admin/views.h"
#include "base/clock.h"
#include "http/handler.h"
#include "store/store.h"

namespace gatehouse::admin {

class AdminApi {
 public:
  // `store` must outlive the API; a null clock is the real one.
  AdminApi(Store& store, ClockPtr clock, std::vector<ReviewerConfig> reviewers = {});

  // True when `path` is the API's (starts with /api/).
  static bool Owns(std::string_view path);

  // Answers one request under /api/v1/. Errors are {"error": "..."} with 400 (bad input),
  // 404 (unknown path or thing), 405 (wrong method), 409 (not in a state that allows it),
  // 503 (the store is unavailable) or 500.
  HttpResponse Serve(const HttpRequest& request);

  // The largest page a list returns (the `limit` query parameter's ceiling).
  static constexpr size_t kMaxPage = 500;

 private:
  HttpResponse Get(const std::vector<std::string>& parts,
                   const std::map<std::string, std::string>& query);
  HttpResponse Post(const std::vector<std::string>& parts,
                    const std::map<std::string, std::string>& query);
  HttpResponse RearmOne(const std::string& key);
  HttpResponse RearmMatching(const std::string& prefix);
  HttpResponse Replay(const std::string& delivery_id);
  HttpResponse SetPaused(const std::string& reviewer, bool paused);
  void AuditOperator(const std::string& subject, const std::string& summary, Time now);

  Store& store_;
  ClockPtr clock_;
  std::vector<ReviewerConfig> reviewers_;  // this process's reviewers file, for ReviewersView
};

}  // namespace gatehouse::admin
