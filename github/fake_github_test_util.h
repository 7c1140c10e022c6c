// A fake GitHub for tests: our own HttpServer on 127.0.0.1:0 whose answers each test
// programs with a route function, recording every request it receives. The client under
// test reaches it through the real CurlTransport, over loopback.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "http/handler.h"
#include "http/server.h"

namespace gatehouse::github_testing {

class FakeGitHub final : public HttpHandler {
 public:
  using Route = std::function<HttpResponse(const HttpRequest&)>;

  // Starts listening; aborts the test binary if it cannot (a broken environment).
  FakeGitHub() {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.threads = 1;
    auto server = HttpServer::Start(options, *this);
    if (!server.ok()) std::abort();
    server_ = std::move(server).value();
  }
  ~FakeGitHub() override { server_->Stop(std::chrono::seconds(1)); }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  void SetRoute(Route route) {
    std::lock_guard<std::mutex> lock(mutex_);
    route_ = std::move(route);
  }

  std::vector<HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_.size();
  }
  HttpRequest last() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_.empty() ? HttpRequest{} : requests_.back();
  }
  void ClearRequests() {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.clear();
  }

  void Handle(HttpRequest request, Responder respond) override {
    Route route;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(request);
      route = route_;
    }
    respond(route ? route(request) : JsonError(404, "Not Found"));
  }

 private:
  mutable std::mutex mutex_;
  Route route_;
  std::vector<HttpRequest> requests_;
  std::unique_ptr<HttpServer> server_;
};

// A fresh 2048-bit RSA key, generated once per test binary (no key files in the repo).
struct TestRsaKey {
  std::string private_pem;
  EVP_PKEY* pkey = nullptr;  // for verification; lives for the whole binary
};

inline const TestRsaKey& GetTestRsaKey() {
  static const TestRsaKey key = [] {
    TestRsaKey k;
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nullptr);
    if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 ||
        EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) != 1 || EVP_PKEY_keygen(ctx, &k.pkey) != 1) {
      std::abort();
    }
    EVP_PKEY_CTX_free(ctx);
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, k.pkey, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);  // NOLINT: OpenSSL's type
    k.private_pem.assign(data, static_cast<size_t>(len));
    BIO_free(bio);
    return k;
  }();
  return key;
}

}  // namespace gatehouse::github_testing
