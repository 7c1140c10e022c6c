#include "http/webhook_handler.h"

#include <cctype>
#include <cstdint>
#include <exception>
#include <optional>
#include <utility>

#include "base/log.h"
#include "github/signature.h"
#include "http/webhook_payload.h"

namespace gatehouse {

namespace {

// The request headers a delivery keeps (Delivery::headers): GitHub's own (X-GitHub-*, the
// signature) and the two that say who sent what; at most 16, each value cut at 256 bytes.
std::vector<std::pair<std::string, std::string>> KeptHeaders(const HttpRequest& request) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : request.headers) {
    if (out.size() >= 16) break;
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.rfind("x-github-", 0) == 0 || lower == "x-hub-signature-256" ||
        lower == "user-agent" || lower == "content-type") {
      out.emplace_back(name, value.substr(0, 256));
    }
  }
  return out;
}

}  // namespace
namespace {

constexpr std::string_view kHealthPath = "/healthz";
constexpr std::string_view kReadyPath = "/readyz";
// GitHub's delivery ids are UUIDs and event names short words; anything far outside that is
// not GitHub, and these values end up as database keys and in logs.
constexpr size_t kMaxHeaderToken = 128;

bool IsToken(std::string_view value) {
  if (value.empty() || value.size() > kMaxHeaderToken) return false;
  for (char c : value) {
    if (c < 0x21 || c > 0x7e) return false;  // printable ASCII, no spaces
  }
  return true;
}

HttpResponse MethodNotAllowed(std::string_view allow) {
  HttpResponse response = JsonError(405, "method not allowed");
  response.headers.emplace_back("Allow", std::string(allow));
  return response;
}

std::string AcceptedBody(std::string_view delivery_id) {
  std::string body = R"({"status":"accepted","delivery":)";
  AppendJsonString(body, delivery_id);
  body += '}';
  return body;
}

}  // namespace

Status ValidateWebhookOptions(const WebhookOptions& options) {
  if (options.path.empty() || options.path.front() != '/') {
    return InvalidArgument("webhook path must start with '/': " + options.path);
  }
  if (options.path == kHealthPath || options.path == kReadyPath) {
    return InvalidArgument("webhook path collides with a probe: " + options.path);
  }
  if (options.insecure_no_signature) return Status::Ok();
  for (const std::string& secret : options.secrets) {
    if (!secret.empty()) return Status::Ok();
  }
  return InvalidArgument("no webhook secret configured");
}

WebhookHandler::WebhookHandler(WebhookOptions options, DeliverySink& sink, const Clock& clock,
                               WebhookMetrics* metrics)
    : options_(std::move(options)), sink_(sink), clock_(clock), metrics_(metrics) {
  if (options_.insecure_no_signature) {
    Log(LogLevel::kWarn, "webhook.insecure")
        .Field("message",
               "webhook signatures are NOT verified: anyone who can reach this port can inject "
               "deliveries");
  }
}

void WebhookHandler::Handle(HttpRequest request, Responder respond) {
  std::string_view path = request.Path();
  if (path == options_.path) {
    if (request.method != "POST") {
      sink_.CountRejected("method");
      if (metrics_) metrics_->CountRejected(WebhookMetrics::kUnverified, "method");
      respond(MethodNotAllowed("POST"));
      return;
    }
    HandleWebhook(std::move(request), respond);
    return;
  }
  if (path == kHealthPath || path == kReadyPath) {
    if (request.method != "GET") {
      respond(MethodNotAllowed("GET"));
      return;
    }
    if (path == kHealthPath) {
      respond(JsonResponse(200, R"({"status":"ok"})"));
      return;
    }
    Status writable = sink_.CheckWritable();
    if (writable.ok()) {
      respond(JsonResponse(200, R"({"status":"ok"})"));
    } else {
      Log(LogLevel::kWarn, "webhook.not_ready").Field("error", writable.ToString());
      respond(JsonError(503, writable.message()));
    }
    return;
  }
  respond(JsonError(404, "not found"));
}

void WebhookHandler::OnBodyTooLarge() {
  sink_.CountRejected("too_large");
  if (metrics_) metrics_->CountRejected(WebhookMetrics::kUnverified, "too_large");
}

void WebhookHandler::Reject(std::string_view reason, const HttpRequest& request, int status,
                            std::string_view message, const Responder& respond) {
  sink_.CountRejected(reason);
  if (metrics_) {
    const std::string event = request.Header("X-GitHub-Event");
    metrics_->CountRejected(reason == "signature" ? WebhookMetrics::kUnverified : event, reason);
  }
  Log log(LogLevel::kInfo, "webhook.rejected");
  log.Field("reason", reason).Field("status", status).Field("peer", request.peer);
  if (std::string id = request.Header("X-GitHub-Delivery"); IsToken(id)) log.Field("delivery", id);
  respond(JsonError(status, message));
}

void WebhookHandler::HandleWebhook(HttpRequest request, const Responder& respond) {
  if (!options_.insecure_no_signature) {
    std::string signature = request.Header("X-Hub-Signature-256");
    if (signature.empty()) {
      Reject("signature", request, 401, "missing X-Hub-Signature-256", respond);
      return;
    }
    if (!VerifySignature256(signature, request.body, options_.secrets)) {
      Reject("signature", request, 401, "X-Hub-Signature-256 does not match", respond);
      return;
    }
  }

  std::string event = request.Header("X-GitHub-Event");
  std::string delivery_id = request.Header("X-GitHub-Delivery");
  if (event.empty() || delivery_id.empty()) {
    Reject("headers", request, 400, "missing X-GitHub-Event or X-GitHub-Delivery", respond);
    return;
  }
  if (!IsToken(delivery_id) || !IsToken(event)) {
    Reject("headers", request, 400, "malformed X-GitHub-Event or X-GitHub-Delivery", respond);
    return;
  }

  std::optional<WebhookPayload> payload;
  try {
    payload = ParseWebhookPayload(request.body);
  } catch (const std::exception& e) {  // allocation failure: not the sender's fault
    Log(LogLevel::kError, "webhook.parse_failed")
        .Field("delivery", delivery_id)
        .Field("what", e.what());
    if (metrics_) metrics_->Count(event, WebhookMetrics::Outcome::kUnavailable);
    respond(JsonError(503, "cannot parse the payload now"));
    return;
  }
  if (!payload) {
    Reject("json", request, 400,
           "body is not a JSON object (the webhook's content type must be application/json)",
           respond);
    return;
  }

  Delivery delivery;
  delivery.delivery_id = delivery_id;
  delivery.event = event;
  delivery.action = std::move(payload->action);
  delivery.installation_id = payload->installation_id;
  delivery.body_sha256 = Sha256Hex(request.body);
  delivery.body = std::move(request.body);
  delivery.received_at = clock_.Now();
  delivery.headers = KeptHeaders(request);

  sink_.Accept(std::move(delivery), [respond, metrics = metrics_,
                                     delivery_id = std::move(delivery_id),
                                     event = std::move(event)](Result<AcceptOutcome> outcome) {
    using O = WebhookMetrics::Outcome;
    if (metrics) {
      metrics->Count(event, !outcome.ok()                           ? O::kUnavailable
                            : *outcome == AcceptOutcome::kAccepted  ? O::kAccepted
                            : *outcome == AcceptOutcome::kDuplicate ? O::kDuplicate
                                                                    : O::kConflict);
    }
    if (!outcome.ok()) {
      Log(LogLevel::kWarn, "webhook.accept_failed")
          .Field("delivery", delivery_id)
          .Field("github_event", event)
          .Field("error", outcome.status().ToString());
      respond(JsonError(503, outcome.status().message()));
      return;
    }
    switch (*outcome) {
      case AcceptOutcome::kAccepted:
        Log(LogLevel::kDebug, "webhook.accepted")
            .Field("delivery", delivery_id)
            .Field("github_event", event);
        // GitHub's ping (sent when a webhook is configured) is stored like any delivery but
        // answered 200: there is nothing to process later.
        respond(JsonResponse(event == "ping" ? 200 : 202, AcceptedBody(delivery_id)));
        return;
      case AcceptOutcome::kDuplicate:
        Log(LogLevel::kInfo, "webhook.duplicate")
            .Field("delivery", delivery_id)
            .Field("github_event", event);
        respond(JsonResponse(200, R"({"status":"duplicate"})"));
        return;
      case AcceptOutcome::kConflict:
        Log(LogLevel::kWarn, "webhook.conflict")
            .Field("delivery", delivery_id)
            .Field("github_event", event);
        respond(JsonError(409, "delivery id reused with a different body"));
        return;
    }
    Log(LogLevel::kError, "webhook.unknown_outcome").Field("delivery", delivery_id);
    respond(JsonError(500, "internal error"));
  });
}

}  // namespace gatehouse
