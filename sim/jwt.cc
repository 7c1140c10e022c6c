#include "sim/jwt.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json.hpp>
#include <memory>

#include "github/base64.h"

namespace gatehouse::sim {

Result<AppJwtClaims> VerifyAppJwt(std::string_view jwt, const std::string& public_key_pem,
                                  Time now) {
  size_t dot1 = jwt.find('.');
  size_t dot2 = dot1 == std::string_view::npos ? dot1 : jwt.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return InvalidArgument("JWT: not three parts");
  const auto header_part = Base64Decode(jwt.substr(0, dot1));
  const auto payload_part = Base64Decode(jwt.substr(dot1 + 1, dot2 - dot1 - 1));
  const auto signature_part = Base64Decode(jwt.substr(dot2 + 1));
  if (!header_part || !payload_part || !signature_part) {
    return InvalidArgument("JWT: bad base64url");
  }
  const std::string& header = *header_part;
  const std::string& payload = *payload_part;
  const std::string& signature = *signature_part;
  boost::system::error_code ec;
  boost::json::value h = boost::json::parse(header, ec);
  if (ec || !h.is_object()) return InvalidArgument("JWT: header is not JSON");
  const auto* alg = h.as_object().if_contains("alg");
  if (alg == nullptr || !alg->is_string() || alg->as_string() != "RS256") {
    return FailedPrecondition("JWT: alg must be RS256");
  }
  boost::json::value p = boost::json::parse(payload, ec);
  if (ec || !p.is_object()) return InvalidArgument("JWT: payload is not JSON");
  AppJwtClaims claims;
  const auto& obj = p.as_object();
  if (const auto* iss = obj.if_contains("iss")) {
    if (iss->is_string()) claims.iss = std::string(iss->as_string());
    if (iss->is_int64()) claims.iss = std::to_string(iss->as_int64());
  }
  const auto* iat = obj.if_contains("iat");
  const auto* exp = obj.if_contains("exp");
  if (iat == nullptr || exp == nullptr || !iat->is_int64() || !exp->is_int64()) {
    return InvalidArgument("JWT: iat and exp must be integers");
  }
  claims.iat = iat->as_int64();
  claims.exp = exp->as_int64();

  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(public_key_pem.data(), static_cast<int>(public_key_pem.size())), BIO_free);
  if (!bio) return Internal("JWT: BIO_new_mem_buf failed");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  if (!key) return InvalidArgument("JWT: the configured public key is not a PEM public key");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  std::string_view signed_part = jwt.substr(0, dot2);
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) {
    return Internal("JWT: EVP_DigestVerifyInit failed");
  }
  int verified = EVP_DigestVerify(
      ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
      reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size());
  if (verified != 1) return FailedPrecondition("JWT: signature does not verify");

  int64_t now_s = ToMicros(now) / 1'000'000;
  if (claims.iat > now_s + 60) return FailedPrecondition("JWT: iat is in the future");
  if (claims.exp <= now_s) return FailedPrecondition("JWT: expired");
  if (claims.exp - claims.iat > 600) {
    return FailedPrecondition("JWT: exp is too far in the future (max 10 minutes)");
  }
  return claims;
}

}  // namespace gatehouse::sim
