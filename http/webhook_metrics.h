// The webhook endpoint's requests as a Prometheus family (docs/METRICS.md), this process's:
//   gatehouse_webhook_requests_total{event, outcome}
// outcome: accepted | duplicate | conflict | unavailable (the store could not take it; GitHub
// gets a 5xx and the delivery is recovered later) | rejected_signature | rejected_headers |
// rejected_json | rejected_method | rejected_too_large. `event` is X-GitHub-Event once the
// signature is verified: one of the events gatehouse subscribes to (and ping), "other" for
// any other, and "unverified" before the signature is checked — so a stranger cannot grow
// the label set. Every series exists from the start; a count is one atomic add with no lookup
// allocation.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>

#include "base/metrics.h"

namespace gatehouse {

class WebhookMetrics {
 public:
  enum class Outcome {
    kAccepted,
    kDuplicate,
    kConflict,
    kUnavailable,
    kRejectedSignature,
    kRejectedHeaders,
    kRejectedJson,
    kRejectedMethod,
    kRejectedTooLarge,
  };
  static constexpr size_t kOutcomes = 9;
  // The event label for requests refused before their signature was checked.
  static constexpr std::string_view kUnverified = "unverified";

  // Registers the family on `registry`, which must outlive this object.
  explicit WebhookMetrics(metrics::Registry& registry);
  void Count(std::string_view event, Outcome outcome);
  // For a rejection by reason, as DeliverySink::CountRejected names them.
  void CountRejected(std::string_view event, std::string_view reason);

 private:
  std::map<std::string, std::array<metrics::Counter*, kOutcomes>, std::less<>> series_;
};

}  // namespace gatehouse
