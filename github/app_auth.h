// GitHub App authentication (DESIGN.md §5, github/).
//
// An App proves who it is with a short-lived RS256 JWT signed by its private key, and trades
// that JWT for an installation access token per installation
// (POST /app/installations/{id}/access_tokens). The token is what every REST call carries.
//
//   AppJwtSigner            signs the JWT: iat = now - 60 s (clock skew), exp = now + 9 min
//                           (GitHub refuses more than 10), iss = the app id.
//   TokenSource             what the client asks for "the token for installation N".
//   InstallationTokenCache  the App mode: caches one token per installation and exchanges a
//                           new one when the cached one is within `refresh_margin` (5 min)
//                           of its `expires_at`.
//   PersonalTokenSource     a fixed personal access token for local use; the installation
//                           id is ignored.
//
// Tokens are opaque: nothing here assumes their length or format, and nothing logs them.
// Thread-safety: all classes are safe for concurrent use.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"
#include "github/errors.h"
#include "github/transport.h"

namespace gatehouse {

class AppJwtSigner {
 public:
  // Parses the App's PEM private key (PKCS#1 "RSA PRIVATE KEY", as GitHub hands it out, or
  // PKCS#8). InvalidArgument when it is not an RSA private key; the key text is not echoed.
  static Result<std::unique_ptr<AppJwtSigner>> Create(int64_t app_id,
                                                      std::string_view private_key_pem);
  ~AppJwtSigner();
  AppJwtSigner(const AppJwtSigner&) = delete;
  AppJwtSigner& operator=(const AppJwtSigner&) = delete;

  // header.payload.signature, each base64url without padding.
  Result<std::string> Sign(Time now) const;
  int64_t app_id() const { return app_id_; }

 private:
  AppJwtSigner(int64_t app_id, void* pkey);
  const int64_t app_id_;
  void* pkey_;  // EVP_PKEY*, owned; EVP signing with a shared key is thread-safe
};

class TokenSource {
 public:
  virtual ~TokenSource() = default;
  // The bearer token for `installation_id`. Errors are typed like any GitHub call (a
  // rate-limited or failing exchange is RateLimited/Transient).
  virtual GitHubResult<std::string> Token(int64_t installation_id) = 0;
  // Forget a token GitHub refused with 401, so that the next Token() fetches a new one.
  virtual void Invalidate(int64_t installation_id) = 0;
};

class PersonalTokenSource final : public TokenSource {
 public:
  explicit PersonalTokenSource(std::string token) : token_(std::move(token)) {}
  GitHubResult<std::string> Token(int64_t) override { return token_; }
  void Invalidate(int64_t) override {}

 private:
  const std::string token_;
};

// The App's login as GitHub shows it on its reviews and comments: "<slug>[bot]", from
// `GET /app` authenticated with an App JWT. gatehouse needs it to recognise its own summary
// comment and approvals.
GitHubResult<std::string> FetchAppLogin(HttpTransport& transport, const AppJwtSigner& signer,
                                        Time now);

struct InstallationTokenCacheOptions {
  Duration refresh_margin = std::chrono::minutes(5);
};

class InstallationTokenCache final : public TokenSource {
 public:
  // `transport` and `signer` must outlive the cache.
  InstallationTokenCache(HttpTransport& transport, const AppJwtSigner& signer, ClockPtr clock,
                         InstallationTokenCacheOptions options = {});

  // Returns the cached token while now < expires_at - refresh_margin; otherwise exchanges a
  // fresh JWT for a new one. Exchanges for one installation are serialized (concurrent
  // callers wait for the one exchange instead of each making their own).
  GitHubResult<std::string> Token(int64_t installation_id) override;
  void Invalidate(int64_t installation_id) override;

  // How many exchanges were made (for metrics and tests).
  int64_t exchanges() const;

 private:
  // One per installation, never erased.
  struct Entry {
    Mutex exchange_mutex;  // held across one exchange for this installation
  };
  struct CachedToken {
    std::string token;
    Time expires_at;
    bool valid = false;
  };
  // The cached token while it is fresh enough.
  std::optional<std::string> FreshLocked(int64_t installation_id) const REQUIRES(mutex_);
  // Exchanges a JWT for a new token and caches it. The caller holds the installation's
  // exchange_mutex.
  GitHubResult<std::string> Exchange(int64_t installation_id);

  HttpTransport& transport_;
  const AppJwtSigner& signer_;
  const ClockPtr clock_;
  const InstallationTokenCacheOptions options_;
  mutable Mutex mutex_;
  std::map<int64_t, std::unique_ptr<Entry>> entries_ GUARDED_BY(mutex_);
  std::map<int64_t, CachedToken> tokens_ GUARDED_BY(mutex_);
  int64_t exchanges_ GUARDED_BY(mutex_) = 0;
};

}  // namespace gatehouse
