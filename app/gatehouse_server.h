// GatehouseServer: `gatehouse serve` as one object — the webhook endpoint (http/), the inbox
// writer, the router, the worker pool running the per-PR pass (act/pr_pass.h), the delivery
// resolver and the sweeper (engine/), on one store and, when credentials are given, one GitHub
// client. This is where those concrete classes are wired together (DESIGN.md §5); app/cmd_serve.cc
// only turns flags and the environment into ServerOptions, and tests start the same object
// in-process.
//
// Without GitHub credentials the server still accepts, stores and routes every webhook, but
// its passes cannot read a PR: each one only logs the work it would do.
//
// Lifecycle: Create (wires, starts nothing) → Start → Stop (or the destructor). Not
// thread-safe: one controlling thread calls these; the server's own threads do the rest.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "act/pr_pass.h"
#include "act/queue_pass.h"
#include "act/review_pass.h"
#include "admin/admin_listener.h"
#include "base/clock.h"
#include "base/metrics.h"
#include "base/status.h"
#include "engine/worker_pool.h"
#include "github/auth_config.h"
#include "github/metered_transport.h"
#include "http/server.h"
#include "http/webhook_handler.h"
#include "store/store.h"

namespace gatehouse {
class GitHubClient;
class AppJwtSigner;
class AppClient;
class DeliveryRecovery;
class DeliveryResolver;
class InboxRouter;
class InboxWriter;
class PassMetrics;
class Sweeper;
}  // namespace gatehouse

namespace gatehouse::app {

struct ServerOptions {
  // listen (port 0 picks one), body_limit, threads; on_body_too_large is wired by the server.
  HttpServerOptions http;
  WebhookOptions webhook;  // the path, the secrets; must pass ValidateWebhookOptions
  EngineOptions engine;
  Duration debounce = std::chrono::seconds(1);  // a routed or swept signal waits for company
  // nullopt: record-only (no GitHub calls; passes only log).
  std::optional<GitHubAuthConfig> github;
  // The pass. Its app_mode and discover_login are set from `github` and `discover_login`.
  act::PassConfig pass;
  // Ask GitHub for gatehouse's login (GET /app in App mode, GET /user with a personal token)
  // instead of trusting pass.executor.app_login (then only the fallback).
  bool discover_login = true;
  Duration sweep_interval = std::chrono::minutes(10);  // zero: no sweeper
  int sweep_full_every = 6;                            // SweepOptions::full_every
  // Between the resolver's rounds (unresolved deliveries looked up on GitHub); positive.
  Duration resolve_interval = std::chrono::seconds(30);
  // Between rounds of recovering deliveries GitHub failed to deliver (engine/delivery_recovery.h;
  // the first round runs at start-up). Zero: none. App mode only: the deliveries API needs an
  // App JWT.
  Duration recover_interval = std::chrono::seconds(60);
  // Ingest first (docs/INGRESS.md): while the webhook door is saturated, routing waits up to
  // this long, so that acceptance gets the machine; zero: route at once.
  Duration route_defer = std::chrono::seconds(30);
  // A pass reads a PR with one GraphQL query (GitHubClientOptions::graphql_reads); false: REST.
  bool graphql_reads = true;
  ClockPtr clock;  // null: the real clock
  // The reviewers file (`--reviewers`, docs/REVIEWERS.md) and one executor per reviewer; no
  // reviewers: no review runs are requested. pass.served_roles is set from it.
  decide::ReviewersConfig reviewers;
  std::map<std::string, std::shared_ptr<review::ReviewExecutor>> review_executors;
  // The admin listener (docs/ADMIN_API.md): the JSON API, /metrics and the dashboard behind
  // the admin token. nullopt: none.
  std::optional<admin::AdminListenerOptions> admin;
  // Fault injection (crash tests): see act::ReviewPassConfig::after_review.
  std::function<void(int64_t run_id)> after_review;
};

class GatehouseServer {
 public:
  // Wires everything on `store` without starting a thread. InvalidArgument, saying why, when
  // the GitHub configuration cannot be wired (the API URL, the App's key).
  static Result<std::unique_ptr<GatehouseServer>> Create(ServerOptions options, StorePtr store);

  // Starts the worker pool, the router, the inbox writer, the resolver and the sweeper, then
  // the HTTP server and the admin listener, then delivery recovery (its first round at once). On
  // failure (the pool's options, the listen address) everything started is stopped again and the
  // error returned. Call once.
  Status Start();

  // The port the HTTP server listens on (after Start).
  uint16_t port() const;
  // The admin listener's port (after Start); 0 without one.
  uint16_t admin_port() const;
  // The process's metrics (/metrics on the admin listener), for the parts that count.
  metrics::Registry& registry() { return registry_; }

  // Front to back: stops taking requests (answering those in flight for up to 10 s), stores
  // what was accepted, routes it, then lets running passes finish and be recorded. True when
  // they have within `grace`. False when passes still run (a hung pass cannot be
  // interrupted): the caller should exit, and their leases will run out so that another
  // process takes the items over; destroying the server instead waits for them. Idempotent.
  bool Stop(Duration grace);

  // Stop()s, waiting as long as running passes take.
  ~GatehouseServer();
  GatehouseServer(const GatehouseServer&) = delete;
  GatehouseServer& operator=(const GatehouseServer&) = delete;

 private:
  GatehouseServer(ServerOptions options, StorePtr store);
  Status WireGitHub();
  void RegisterRateLimitMetrics(const GitHubClient& github);
  // Stops the front (HTTP, inbox, router) and starts stopping the engine on stopper_.
  void BeginStop();

  ServerOptions options_;
  StorePtr store_;
  ClockPtr clock_;
  metrics::Registry registry_;
  // GitHub, when configured: the client the passes, the resolver and the sweeper share.
  std::unique_ptr<CurlTransport> transport_;
  std::unique_ptr<MeteredTransport> metered_;  // over transport_: every GitHub call, counted
  std::unique_ptr<TokenSource> tokens_;
  std::unique_ptr<GitHubClient> github_;
  std::shared_ptr<AppJwtSigner> app_signer_;  // App mode
  std::unique_ptr<AppClient> app_client_;     // App mode: deliveries, installations
  std::unique_ptr<act::PrPass> pr_pass_;
  std::unique_ptr<act::ReviewPass> review_pass_;
  std::unique_ptr<act::QueuePass> queue_pass_;
  // The engine and the front door, in the order they start.
  std::unique_ptr<PassMetrics> pass_metrics_;  // before pool_, whose observer uses it
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<InboxRouter> router_;
  std::unique_ptr<InboxWriter> inbox_;
  std::unique_ptr<DeliveryResolver> resolver_;       // with GitHub
  std::unique_ptr<Sweeper> sweeper_;                 // with GitHub and a sweep interval
  std::unique_ptr<DeliveryRecovery> recovery_;       // App mode and a recover interval
  std::unique_ptr<WebhookMetrics> webhook_metrics_;  // before handler_, which counts into it
  std::unique_ptr<WebhookHandler> handler_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<admin::AdminListener> admin_;  // after http_, stopped before it

  bool started_ = false;
  bool stopping_ = false;  // or nothing is left to stop
  std::thread stopper_;  // stops the sweeper, the resolver and the pool (which may wait for passes)
  std::future<void> engine_stopped_;  // ready once stopper_ is done
};

}  // namespace gatehouse::app
