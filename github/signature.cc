#include "github/signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "base/log.h"

namespace gatehouse {
namespace {

using Digest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

constexpr std::string_view kPrefix = "sha256=";

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string ToHex(const Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (unsigned char b : digest) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0x0f]);
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool FromHex(std::string_view hex, Digest* out) {
  if (hex.size() != out->size() * 2) return false;
  for (size_t i = 0; i < out->size(); ++i) {
    int hi = HexValue(hex[2 * i]);
    int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = static_cast<unsigned char>((hi << 4) | lo);
  }
  return true;
}

// OpenSSL fails here only on allocation failure or an unusable build; continuing with a
// wrong digest would accept or reject deliveries at random, so it is fatal.
[[noreturn]] void DigestFailed(const char* what) {
  Log(LogLevel::kError, "signature.openssl_failed").Field("call", what);
  std::abort();
}

Digest Sha256(std::string_view data) {
  Digest digest{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &len, EVP_sha256(), nullptr) != 1 ||
      len != digest.size()) {
    DigestFailed("EVP_Digest");
  }
  return digest;
}

Digest HmacSha256(std::string_view secret, std::string_view data) {
  // HMAC() takes the key length as an int; a secret that long is a misconfiguration.
  if (secret.size() > static_cast<size_t>(INT_MAX)) DigestFailed("HMAC key too long");
  Digest digest{};
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), Bytes(data), data.size(),
           digest.data(), &len) == nullptr ||
      len != digest.size()) {
    DigestFailed("HMAC");
  }
  return digest;
}

}  // namespace

std::string Sha256Hex(std::string_view data) { return ToHex(Sha256(data)); }

std::string HmacSha256Hex(std::string_view secret, std::string_view data) {
  return ToHex(HmacSha256(secret, data));
}

bool VerifySignature256(std::string_view header_value, std::string_view body,
                        const std::vector<std::string>& secrets) {
  if (header_value.substr(0, kPrefix.size()) != kPrefix) return false;
  Digest claimed{};
  if (!FromHex(header_value.substr(kPrefix.size()), &claimed)) return false;
  bool match = false;
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;  // an unset previous secret must not verify anything
    Digest expected = HmacSha256(secret, body);
    match |= CRYPTO_memcmp(expected.data(), claimed.data(), expected.size()) == 0;
  }
  return match;
}

}  // namespace gatehouse
