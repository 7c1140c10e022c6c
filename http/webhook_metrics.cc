#include "http/webhook_metrics.h"

namespace gatehouse {
namespace {

constexpr std::string_view kOutcomeNames[WebhookMetrics::kOutcomes] = {
    "accepted",      "duplicate",          "conflict",
    "unavailable",   "rejected_signature", "rejected_headers",
    "rejected_json", "rejected_method",    "rejected_too_large"};

// The events gatehouse's App subscribes to (docs/SETUP.md), the ones its router reads, ping.
constexpr std::string_view kEvents[] = {"pull_request",
                                        "pull_request_review",
                                        "pull_request_review_comment",
                                        "check_run",
                                        "check_suite",
                                        "status",
                                        "workflow_run",
                                        "issue_comment",
                                        "issues",
                                        "push",
                                        "installation",
                                        "installation_repositories",
                                        "repository",
                                        "ping",
                                        "merge_group",
                                        "other",
                                        WebhookMetrics::kUnverified};

}  // namespace

WebhookMetrics::WebhookMetrics(metrics::Registry& registry) {
  auto& family = registry.AddCounter(
      "gatehouse_webhook_requests_total",
      "Webhook requests this process answered, by event (\"unverified\" before the signature "
      "check) and outcome.",
      {"event", "outcome"});
  for (std::string_view event : kEvents) {
    auto& row = series_[std::string(event)];
    for (size_t i = 0; i < kOutcomes; ++i) {
      row[i] = &family.With({std::string(event), std::string(kOutcomeNames[i])});
    }
  }
}

void WebhookMetrics::Count(std::string_view event, Outcome outcome) {
  auto it = series_.find(event);
  if (it == series_.end()) it = series_.find(std::string_view("other"));
  it->second[static_cast<size_t>(outcome)]->Inc();
}

void WebhookMetrics::CountRejected(std::string_view event, std::string_view reason) {
  Outcome o = Outcome::kRejectedHeaders;
  if (reason == "signature") o = Outcome::kRejectedSignature;
  if (reason == "json") o = Outcome::kRejectedJson;
  if (reason == "method") o = Outcome::kRejectedMethod;
  if (reason == "too_large") o = Outcome::kRejectedTooLarge;
  Count(event, o);
}

}  // namespace gatehouse
