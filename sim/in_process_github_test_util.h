// InProcessGitHub: the real simulator (sim/) served in-process on our HttpServer at
// 127.0.0.1:0, and a GitHubClient that reaches it over loopback as the App (a fresh RSA key,
// RS256 JWTs the simulator verifies, installation tokens that expire) — all on one SimClock,
// so tests reach expiry and rate-limit resets by advancing it. For tests of code above the
// `GitHub` interface (the executor, the sweeper); github/client_sim_test.cc tests the client
// itself through the same fixture with an observing transport.
//
// Not thread-safe to set up; the client and the simulator are safe for concurrent use.
#pragma once

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <functional>
#include <memory>
#include <string>

#include "github/app_auth.h"
#include "github/client.h"
#include "github/fake_github_test_util.h"
#include "github/transport.h"
#include "http/server.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim_testing {

inline constexpr int64_t kAppId = 4242;

inline std::string PublicKeyPem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(bio, key);
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);  // NOLINT: OpenSSL's type
  std::string pem(data, static_cast<size_t>(len));
  BIO_free(bio);
  return pem;
}

class InProcessGitHub {
 public:
  // `front`, when set, wraps the simulator's handler (e.g. to inject a fault at a chosen
  // request); the server then serves the wrapper.
  using Front = std::function<std::unique_ptr<HttpHandler>(sim::SimHandler&)>;
  // `wrap`, when set, wraps the client's transport (e.g. to count what crosses the wire); the
  // token exchange and the client then use the wrapper.
  using Wrap = std::function<std::unique_ptr<HttpTransport>(HttpTransport&)>;

  explicit InProcessGitHub(std::shared_ptr<SimClock> clock) : clock_(std::move(clock)) {}
  ~InProcessGitHub() {
    if (server_) server_->Stop(std::chrono::seconds(1));
  }

  // Before Start: the webhook sender whose attempts /app/hook/deliveries serves (not owned;
  // must outlive this). Without one the simulator has no deliveries to show.
  void set_webhooks(sim::WebhookSender* webhooks) { webhooks_ = webhooks; }

  // Call with ASSERT_NO_FATAL_FAILURE(github.Start()).
  void Start(Front front = nullptr, Wrap wrap = nullptr) {
    const auto& key = github_testing::GetTestRsaKey();
    model_ = std::make_unique<sim::Model>(
        clock_,
        sim::ModelOptions{.mergeable_delay = Duration::zero(), .token_ttl = std::chrono::hours(1)});
    sim::SimHandlerOptions hopts;
    hopts.clock = clock_;
    hopts.app_id = std::to_string(kAppId);
    hopts.app_public_key_pem = PublicKeyPem(key.pkey);
    hopts.webhooks = webhooks_;
    handler_ = std::make_unique<sim::SimHandler>(*model_, hopts);
    if (front) front_ = front(*handler_);
    HttpServerOptions sopts;
    sopts.listen = "127.0.0.1:0";
    sopts.threads = 1;
    auto server = HttpServer::Start(sopts, front_ ? *front_ : *handler_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();

    CurlTransportOptions topts;
    topts.base_url = "http://127.0.0.1:" + std::to_string(server_->port());
    auto curl = CurlTransport::Create(topts);
    ASSERT_TRUE(curl.ok()) << curl.status().ToString();
    curl_ = std::move(curl).value();
    auto signer = AppJwtSigner::Create(kAppId, key.private_pem);
    ASSERT_TRUE(signer.ok()) << signer.status().ToString();
    signer_ = std::move(signer).value();
    if (wrap) wrapped_ = wrap(*curl_);
    HttpTransport& transport = wrapped_ ? *wrapped_ : *curl_;
    tokens_ = std::make_unique<InstallationTokenCache>(transport, *signer_, clock_);
    client_ = std::make_unique<GitHubClient>(transport, *tokens_, clock_);
  }

  sim::Model& model() { return *model_; }
  sim::SimHandler& handler() { return *handler_; }
  GitHubClient& client() { return *client_; }
  CurlTransport& transport() { return *curl_; }
  InstallationTokenCache& tokens() { return *tokens_; }
  const AppJwtSigner& signer() { return *signer_; }
  // The transport the client uses (the wrapper when Start was given one).
  HttpTransport& client_transport() { return wrapped_ ? *wrapped_ : *curl_; }
  const std::string base_url() const {
    return "http://127.0.0.1:" + std::to_string(server_->port());
  }

 private:
  std::shared_ptr<SimClock> clock_;
  sim::WebhookSender* webhooks_ = nullptr;
  std::unique_ptr<sim::Model> model_;
  std::unique_ptr<sim::SimHandler> handler_;
  std::unique_ptr<HttpHandler> front_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<CurlTransport> curl_;
  std::unique_ptr<HttpTransport> wrapped_;
  std::unique_ptr<AppJwtSigner> signer_;
  std::unique_ptr<InstallationTokenCache> tokens_;
  std::unique_ptr<GitHubClient> client_;
};

}  // namespace gatehouse::sim_testing
