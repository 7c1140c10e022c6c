// AppClient: the calls gatehouse makes as the App itself — AppWebhookDeliveries
// (github/hook_deliveries.h) and AppInstallations (github/app_installations.h) — over the REST
// API, authenticated with a fresh App JWT per call (AppJwtSigner, github/app_auth.h).
//
// Rate limits are the App's own (not an installation's): X-RateLimit-Remaining/Reset are
// tracked, and while the limit is known to be exhausted, or after a 403/429 with Retry-After,
// calls are refused locally as RateLimited{until} without touching the network. Every call is
// background work, so calls are also refused once `remaining` is at `background_reserve`,
// keeping the last requests for the token exchanges every installation needs.
//
// Thread-safety: safe for concurrent use; no lock is held while a request is in flight.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/app_auth.h"
#include "github/app_installations.h"
#include "github/hook_deliveries.h"
#include "github/transport.h"

namespace gatehouse {

struct AppClientOptions {
  int64_t background_reserve = 100;
};

class AppClient final : public AppWebhookDeliveries, public AppInstallations {
 public:
  // `transport` and `signer` must outlive the client.
  AppClient(HttpTransport& transport, const AppJwtSigner& signer, ClockPtr clock,
            AppClientOptions options = {});

  GitHubResult<HookDeliveryPage> ListDeliveries(int per_page, const std::string& cursor) override;
  GitHubResult<HookDeliveryDetail> GetDelivery(int64_t id) override;
  GitHubResult<GitHubOk> Redeliver(int64_t id) override;
  GitHubResult<std::vector<int64_t>> ListInstallationIds() override;

 private:
  // Sends one App-JWT call; a non-`expect` status becomes a typed error (and rate limits are
  // remembered).
  GitHubResult<HttpReply> Send(const std::string& method, const std::string& target, int expect);
  std::optional<GitHubError> RefuseLocally(const std::string& what) const;
  void Remember(const HttpReply& reply, const std::optional<GitHubError>& error);

  HttpTransport& transport_;
  const AppJwtSigner& signer_;
  const ClockPtr clock_;
  const AppClientOptions options_;

  mutable Mutex mu_;
  std::optional<int64_t> remaining_ GUARDED_BY(mu_);
  Time reset_ GUARDED_BY(mu_);
  Time blocked_until_ GUARDED_BY(mu_);
};

// The value of the `cursor` query parameter of the rel="next" URL in a Link header, "" when
// there is no next page (or its URL has no cursor).
std::string NextCursorFromLink(std::string_view link_header);

}  // namespace gatehouse
