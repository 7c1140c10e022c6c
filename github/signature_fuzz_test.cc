// libFuzzer target: webhook signature verification (github/signature.h).
//
// The input chooses up to two secrets, a body and a header; the header is either arbitrary
// bytes or built from a correct signature (hex digits case-flipped, or one digit changed), so
// both the accepting and the refusing paths are reached. What must hold beyond "no crash":
//  - HmacSha256Hex agrees with a reference HMAC-SHA256 written here from RFC 2104 over plain
//    SHA-256 (not OpenSSL's HMAC(), which signature.cc uses);
//  - VerifySignature256 accepts exactly when the header is "sha256=" followed by 64 hex digits
//    (either case) equal to the reference HMAC of the body under a non-empty secret.
#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "github/signature.h"

namespace {

using Digest = std::array<unsigned char, 32>;

Digest Sha256(std::string_view data) {
  Digest out{};
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr) != 1) {
    std::abort();
  }
  return out;
}

std::string Hex(const Digest& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char b : d) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 0x0f]);
  }
  return s;
}

// RFC 2104 with a 64-byte block: H((K ^ opad) || H((K ^ ipad) || m)).
std::string ReferenceHmacHex(std::string_view key, std::string_view message) {
  std::string k(key);
  if (k.size() > 64) {
    Digest hashed = Sha256(k);
    k.assign(reinterpret_cast<const char*>(hashed.data()), hashed.size());
  }
  k.resize(64, '\0');
  std::string inner, outer;
  for (char c : k) {
    inner.push_back(static_cast<char>(c ^ 0x36));
    outer.push_back(static_cast<char>(c ^ 0x5c));
  }
  inner.append(message);
  Digest inner_digest = Sha256(inner);
  outer.append(reinterpret_cast<const char*>(inner_digest.data()), inner_digest.size());
  return Hex(Sha256(outer));
}

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool IsHex(char c) { return (c >= '0' && c <= '9') || (Lower(c) >= 'a' && Lower(c) <= 'f'); }

// The contract of VerifySignature256, written out.
bool ReferenceVerify(const std::string& header, const std::string& body,
                     const std::vector<std::string>& secrets) {
  if (header.size() != 7 + 64 || header.compare(0, 7, "sha256=") != 0) return false;
  std::string digits;
  for (size_t i = 7; i < header.size(); ++i) {
    if (!IsHex(header[i])) return false;
    digits.push_back(Lower(header[i]));
  }
  for (const auto& secret : secrets) {
    if (!secret.empty() && ReferenceHmacHex(secret, body) == digits) return true;
  }
  return false;
}

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "signature_fuzz_test: invariant broken: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const uint8_t mode = in.ConsumeIntegralInRange<uint8_t>(0, 3);
  std::vector<std::string> secrets;
  const int count = in.ConsumeIntegralInRange<int>(0, 2);
  for (int i = 0; i < count; ++i) secrets.push_back(in.ConsumeRandomLengthString(200));
  std::string header;
  if (mode == 0) header = in.ConsumeRandomLengthString(100);
  const std::string body = in.ConsumeRemainingBytesAsString();

  for (const auto& secret : secrets) {
    Check(gatehouse::HmacSha256Hex(secret, body) == ReferenceHmacHex(secret, body),
          "HmacSha256Hex differs from the reference HMAC");
  }
  Check(gatehouse::Sha256Hex(body) == Hex(Sha256(body)), "Sha256Hex differs from SHA-256");
  if (mode != 0) {
    // A signature under the first secret (or under "" when there is none), then varied.
    const std::string secret = secrets.empty() ? std::string() : secrets[0];
    std::string hex = ReferenceHmacHex(secret, body);
    const size_t at = body.size() % hex.size();
    if (mode == 2) {
      for (size_t i = 0; i < hex.size(); i += 1 + at % 3) {
        if (hex[i] >= 'a') hex[i] = static_cast<char>(hex[i] - 'a' + 'A');
      }
    }
    if (mode == 3) hex[at] = hex[at] == '0' ? '1' : '0';
    header = "sha256=" + hex;
  }
  Check(gatehouse::VerifySignature256(header, body, secrets) ==
            ReferenceVerify(header, body, secrets),
        "VerifySignature256 disagrees with the reference");
  return 0;
}
