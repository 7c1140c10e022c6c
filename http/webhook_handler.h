// WebhookHandler: turns GitHub's webhook POSTs into Deliveries for the inbox (DESIGN.md §4),
// and answers the health probes.
//
//   GET  /healthz  → 200 {"status":"ok"} while the process serves HTTP
//   GET  /readyz   → 200 when the sink's store accepts writes, else 503 with the reason
//   POST <path>    → the webhook, checked in this order:
//        signature (X-Hub-Signature-256 over the raw body)   missing/wrong → 401
//        X-GitHub-Event and X-GitHub-Delivery present, sane   else → 400
//        the body is a JSON object                            else → 400
//      then the Delivery goes to DeliverySink::Accept, and the answer waits for its outcome:
//        accepted (durable) → 202, duplicate → 200, conflict → 409, store error → 503.
//   Other paths → 404; other methods on a known path → 405.
// Each refusal before the sink is counted with DeliverySink::CountRejected. Every error body
// is {"error":"..."}. Bodies and secrets are never logged.
//
// Thread-safe: Handle runs concurrently on the server's threads and never blocks on the
// store; the response is sent from whichever thread the sink completes on.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "engine/inbox.h"
#include "http/handler.h"
#include "http/webhook_metrics.h"

namespace gatehouse {

struct WebhookOptions {
  std::string path = "/webhook";
  // The current secret and, during rotation, the previous one. Empty entries are ignored.
  std::vector<std::string> secrets;
  // Accept unsigned deliveries. For local experiments only; the handler logs a warning when
  // it is constructed with it.
  bool insecure_no_signature = false;
};

// OK when the options can serve: the path starts with '/' and is not a probe path, and
// there is a non-empty secret unless insecure_no_signature is set (then the server must not
// start: every delivery would be refused with 401).
Status ValidateWebhookOptions(const WebhookOptions& options);

class WebhookHandler final : public HttpHandler {
 public:
  // `sink`, `clock` and `metrics` (null: not counted) must outlive the handler.
  WebhookHandler(WebhookOptions options, DeliverySink& sink, const Clock& clock,
                 WebhookMetrics* metrics = nullptr);

  void Handle(HttpRequest request, Responder respond) override;

  // Counts a request the server refused with 413 before the handler saw it; wire it to
  // HttpServerOptions::on_body_too_large.
  void OnBodyTooLarge();

 private:
  void HandleWebhook(HttpRequest request, const Responder& respond);
  void Reject(std::string_view reason, const HttpRequest& request, int status,
              std::string_view message, const Responder& respond);

  const WebhookOptions options_;
  DeliverySink& sink_;
  const Clock& clock_;
  WebhookMetrics* const metrics_;
};

}  // namespace gatehouse
