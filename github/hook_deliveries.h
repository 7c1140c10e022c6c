// AppWebhookDeliveries: what GitHub keeps of the App's webhook delivery attempts, as the REST
// API serves them ("Webhooks for a GitHub App": GET /app/hook/deliveries, GET
// /app/hook/deliveries/{id}, POST /app/hook/deliveries/{id}/attempts). gatehouse reads them to
// recover deliveries that never got a 2xx while it was down (engine/delivery_recovery.h).
//
// An *attempt* has its own `id`; the delivery it belongs to is its `guid` (the
// X-GitHub-Delivery value), the same for every attempt of one delivery, redeliveries included.
// GitHub keeps attempts for a few days (docs/INGRESS.md, "Recovering missed deliveries").
//
// Every call is made as the App (an App JWT, github/app_auth.h), not as an installation, and
// returns GitHubResult: RateLimited{until} when the App's limit is exhausted or GitHub asks to
// wait, Transient for 5xx and connection failures, NotFound for an unknown id.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "github/errors.h"

namespace gatehouse {

// One attempt as the list shows it.
struct HookDelivery {
  int64_t id = 0;                      // the attempt
  std::string guid;                    // the delivery (X-GitHub-Delivery)
  std::string delivered_at;            // GitHub's ISO 8601 text
  std::optional<Time> delivered_time;  // parsed; nullopt when GitHub's text does not parse
  bool redelivery = false;
  double duration = 0;  // seconds
  std::string status;   // GitHub's text: "OK", "failed to connect", "Invalid HTTP Response: 503"
  int status_code = 0;  // 0 when there was no HTTP answer
  std::string event;
  std::string action;  // "" for GitHub's null
  std::optional<int64_t> installation_id;
  std::optional<int64_t> repository_id;

  bool Succeeded() const { return status_code >= 200 && status_code < 300; }
};

// One attempt in full: what was sent.
struct HookDeliveryDetail {
  HookDelivery delivery;
  std::vector<std::pair<std::string, std::string>> request_headers;  // as GitHub lists them
  // request.payload re-serialized as JSON text: GitHub gives the payload parsed, so these are
  // not the bytes it signed (their hash differs from X-Hub-Signature-256's body).
  std::string payload;
  std::string url;
};

// One page of the list, newest first.
struct HookDeliveryPage {
  std::vector<HookDelivery> deliveries;
  std::string next_cursor;  // "" on the last page
};

class AppWebhookDeliveries {
 public:
  virtual ~AppWebhookDeliveries() = default;

  // GET /app/hook/deliveries?per_page=N[&cursor=C]: `per_page` must be 1..100 (else Permanent,
  // nothing sent); `cursor` "" for the newest page, else a page's next_cursor.
  virtual GitHubResult<HookDeliveryPage> ListDeliveries(int per_page,
                                                        const std::string& cursor) = 0;
  // GET /app/hook/deliveries/{id}; NotFound when GitHub no longer has it.
  virtual GitHubResult<HookDeliveryDetail> GetDelivery(int64_t id) = 0;
  // POST /app/hook/deliveries/{id}/attempts: GitHub sends the delivery again (a new attempt,
  // same guid). 202 is success.
  virtual GitHubResult<GitHubOk> Redeliver(int64_t id) = 0;
};

using AppWebhookDeliveriesPtr = std::unique_ptr<AppWebhookDeliveries>;

}  // namespace gatehouse
