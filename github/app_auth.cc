#include "github/app_auth.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json.hpp>

#include "base/log.h"
#include "github/base64.h"
#include "github/reply_error.h"

namespace gatehouse {
namespace {

EVP_PKEY* AsKey(void* p) { return static_cast<EVP_PKEY*>(p); }

}  // namespace

Result<std::unique_ptr<AppJwtSigner>> AppJwtSigner::Create(int64_t app_id,
                                                           std::string_view private_key_pem) {
  BIO* bio = BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size()));
  if (bio == nullptr) return Internal("BIO_new_mem_buf failed");
  // Reads both PKCS#1 and PKCS#8 PEM; a null passphrase callback never prompts.
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (pkey == nullptr) return InvalidArgument("GitHub App private key: not a PEM private key");
  if (EVP_PKEY_base_id(pkey) != EVP_PKEY_RSA) {
    EVP_PKEY_free(pkey);
    return InvalidArgument("GitHub App private key: not an RSA key");
  }
  return std::unique_ptr<AppJwtSigner>(new AppJwtSigner(app_id, pkey));
}

AppJwtSigner::AppJwtSigner(int64_t app_id, void* pkey) : app_id_(app_id), pkey_(pkey) {}

AppJwtSigner::~AppJwtSigner() { EVP_PKEY_free(AsKey(pkey_)); }

Result<std::string> AppJwtSigner::Sign(Time now) const {
  int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  boost::json::object payload;
  payload["iat"] = now_s - 60;  // GitHub recommends 60 s in the past against clock drift
  payload["exp"] = now_s + int64_t{9 * 60};  // at most 10 minutes; 9 leaves room for drift
  payload["iss"] = std::to_string(app_id_);
  std::string signing_input = Base64UrlEncode(R"({"alg":"RS256","typ":"JWT"})") + "." +
                              Base64UrlEncode(boost::json::serialize(payload));

  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) return Internal("EVP_MD_CTX_new failed");
  std::string signature;
  size_t len = 0;
  bool ok = EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, AsKey(pkey_)) == 1 &&
            EVP_DigestSign(ctx, nullptr, &len,
                           reinterpret_cast<const unsigned char*>(signing_input.data()),
                           signing_input.size()) == 1;
  if (ok) {
    signature.resize(len);
    ok = EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &len,
                        reinterpret_cast<const unsigned char*>(signing_input.data()),
                        signing_input.size()) == 1;
    signature.resize(len);
  }
  EVP_MD_CTX_free(ctx);
  if (!ok) return Internal("signing the GitHub App JWT failed");
  return signing_input + "." + Base64UrlEncode(signature);
}

InstallationTokenCache::InstallationTokenCache(HttpTransport& transport, const AppJwtSigner& signer,
                                               ClockPtr clock,
                                               InstallationTokenCacheOptions options)
    : transport_(transport), signer_(signer), clock_(std::move(clock)), options_(options) {}

std::optional<std::string> InstallationTokenCache::FreshLocked(int64_t installation_id) const {
  auto it = tokens_.find(installation_id);
  if (it == tokens_.end()) return std::nullopt;
  const CachedToken& cached = it->second;
  if (cached.valid && clock_->Now() < cached.expires_at - options_.refresh_margin) {
    return cached.token;
  }
  return std::nullopt;
}

GitHubResult<std::string> InstallationTokenCache::Token(int64_t installation_id) {
  Entry* entry;
  {
    MutexLock lock(&mutex_);
    auto& slot = entries_[installation_id];
    if (!slot) slot = std::make_unique<Entry>();
    entry = slot.get();
    if (auto token = FreshLocked(installation_id)) return *token;
  }
  MutexLock exchange_lock(&entry->exchange_mutex);
  {
    // Someone else may have refreshed while we waited for the exchange lock.
    MutexLock lock(&mutex_);
    if (auto token = FreshLocked(installation_id)) return *token;
  }
  return Exchange(installation_id);
}

GitHubResult<std::string> FetchAppLogin(HttpTransport& transport, const AppJwtSigner& signer,
                                        Time now) {
  const std::string what = "GET /app";
  auto jwt = signer.Sign(now);
  if (!jwt.ok()) return GitHubError{GitHubErrorKind::kPermanent, 0, {}, jwt.status().message()};
  HttpCall call;
  call.method = "GET";
  call.target = "/app";
  call.headers.emplace_back("Authorization", "Bearer " + *jwt);
  auto reply = transport.Send(call);
  if (!reply.ok()) return ErrorFromTransport(reply.status(), what);
  if (reply->status != 200) return ErrorFromReply(*reply, now, what);
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(reply->body, ec);
  const boost::json::object* obj = ec ? nullptr : v.if_object();
  const boost::json::value* slug = obj ? obj->if_contains("slug") : nullptr;
  if (slug == nullptr || !slug->is_string() || slug->get_string().empty()) {
    return GitHubError{GitHubErrorKind::kPermanent, reply->status, {}, what + ": no slug"};
  }
  return std::string(slug->get_string()) + "[bot]";
}

GitHubResult<std::string> InstallationTokenCache::Exchange(int64_t installation_id) {
  const std::string what =
      "POST /app/installations/" + std::to_string(installation_id) + "/access_tokens";
  auto jwt = signer_.Sign(clock_->Now());
  if (!jwt.ok()) return GitHubError{GitHubErrorKind::kPermanent, 0, {}, jwt.status().message()};
  HttpCall call;
  call.method = "POST";
  call.target = "/app/installations/" + std::to_string(installation_id) + "/access_tokens";
  call.headers.emplace_back("Authorization", "Bearer " + *jwt);
  auto reply = transport_.Send(call);
  if (!reply.ok()) return ErrorFromTransport(reply.status(), what);
  if (reply->status == 404) {
    // Not the 404 of the call the token was wanted for: reported as kNotFound it would read
    // as "the pull request is gone" or "the label is already absent". The App cannot act
    // there at all, which is an authorization failure.
    return GitHubError{GitHubErrorKind::kUnauthorized, 404, {},
                       "installation " + std::to_string(installation_id) +
                           " is not known to GitHub (the App is not installed there, or was "
                           "uninstalled): " + what + " answered 404"};
  }
  if (reply->status != 201 && reply->status != 200) {
    return ErrorFromReply(*reply, clock_->Now(), what);
  }
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(reply->body, ec);
  const boost::json::object* obj = ec ? nullptr : v.if_object();
  const boost::json::value* token = obj ? obj->if_contains("token") : nullptr;
  const boost::json::value* expires = obj ? obj->if_contains("expires_at") : nullptr;
  std::optional<Time> expires_at;
  if (expires != nullptr && expires->is_string()) {
    expires_at = ParseTime(std::string_view(expires->get_string()));
  }
  if (token == nullptr || !token->is_string() || token->get_string().empty() || !expires_at) {
    return GitHubError{GitHubErrorKind::kPermanent,
                       reply->status,
                       {},
                       what + ": response lacks token or expires_at"};
  }
  std::string value(token->get_string());
  {
    MutexLock lock(&mutex_);
    tokens_[installation_id] = CachedToken{value, *expires_at, true};
    ++exchanges_;
  }
  // The token itself is never logged.
  Log(LogLevel::kDebug, "github.token_exchanged")
      .Field("installation", installation_id)
      .Field("expires_at", FormatTime(*expires_at));
  return value;
}

void InstallationTokenCache::Invalidate(int64_t installation_id) {
  MutexLock lock(&mutex_);
  auto it = tokens_.find(installation_id);
  if (it != tokens_.end()) it->second.valid = false;
}

int64_t InstallationTokenCache::exchanges() const {
  MutexLock lock(&mutex_);
  return exchanges_;
}

}  // namespace gatehouse
