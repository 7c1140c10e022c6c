#include "admin/admin_auth.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <array>

#include "base/ascii.h"
#include "http/query.h"
#include "http/server.h"

namespace gatehouse::admin {
namespace {

std::array<unsigned char, SHA256_DIGEST_LENGTH> Digest(std::string_view s) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> out{};
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), out.data());
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool TokenEquals(std::string_view expected, std::string_view given) {
  if (expected.empty()) return false;
  const auto a = Digest(expected);
  const auto b = Digest(given);
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string RequestToken(const HttpRequest& request) {
  const std::string auth = request.Header("Authorization");
  std::string_view v = Trim(auth);
  if (v.size() > 7 && EqualsIgnoreCase(v.substr(0, 7), "bearer ")) {
    return std::string(Trim(v.substr(7)));
  }
  // Cookie: a=b; gatehouse_admin=TOKEN; c=d
  const std::string cookies = request.Header("Cookie");
  std::string_view rest = cookies;
  while (!rest.empty()) {
    const size_t semi = rest.find(';');
    std::string_view pair = Trim(rest.substr(0, semi));
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == kAdminCookie) {
      return PercentDecode(pair.substr(eq + 1));  // the login form percent-encodes it
    }
    if (semi == std::string_view::npos) break;
    rest.remove_prefix(semi + 1);
  }
  return std::string();
}

Result<std::string> GenerateToken() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return Internal("no randomness for an admin token (RAND_bytes failed)");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool IsLoopbackHost(std::string_view host) { return host == "::1" || host.starts_with("127."); }

Status CheckAdminListen(std::string_view listen, bool have_token) {
  GH_ASSIGN_OR_RETURN(ListenAddress address, ParseListenAddress(listen));
  if (have_token || IsLoopbackHost(address.host)) return Status::Ok();
  return InvalidArgument("the admin listener may only listen on " + std::string(listen) +
                         " with a token: set GATEHOUSE_ADMIN_TOKEN or GATEHOUSE_ADMIN_TOKEN_FILE, "
                         "or listen on a loopback address (127.0.0.1:8081)");
}

}  // namespace gatehouse::admin
