// Test helpers for webhook deliveries: a handler that collects what is POSTed to it, and the
// GitHub payload fixtures (../shared/fixtures/github-webhooks/, SIM_FIXTURES).
#pragma once

#include <boost/json.hpp>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "http/handler.h"

namespace gatehouse::sim_testing {

// Collects deliveries posted to it and lets a test wait for the n-th one. Thread-safe.
class WebhookSink final : public HttpHandler {
 public:
  void Handle(HttpRequest request, Responder respond) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      received_.push_back(std::move(request));
    }
    cv_.notify_all();
    respond(JsonResponse(202, "{}"));
  }
  // Blocks until n deliveries have arrived; returns the n-th (1-based).
  HttpRequest WaitFor(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return received_.size() >= n; });
    return received_[n - 1];
  }
  std::vector<HttpRequest> Received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<HttpRequest> received_;
};

// The fixture payload for `event`/`action` (e.g. pull_request/opened).
inline boost::json::object Fixture(const std::string& event, const std::string& action) {
  std::ifstream in(std::string(SIM_FIXTURES) + "/" + event + "/" + action + ".payload.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str()).as_object();
}

}  // namespace gatehouse::sim_testing
