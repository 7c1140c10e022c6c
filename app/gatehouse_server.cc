// gatehouse serve's wiring. See app/gatehouse_server.h.
#include "app/gatehouse_server.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "act/policy_source.h"
#include "admin/store_metrics.h"
#include "base/ascii.h"
#include "base/log.h"
#include "base/process_metrics.h"
#include "base/subject.h"
#include "decide/reasons.h"
#include "engine/delivery_recovery.h"
#include "engine/delivery_resolver.h"
#include "engine/inbox_router.h"
#include "engine/inbox_writer.h"
#include "engine/pass_metrics.h"
#include "engine/sweeper.h"
#include "github/app_auth.h"
#include "github/app_client.h"
#include "github/client.h"
#include "github/transport.h"

namespace gatehouse::app {
namespace {

// The pass without GitHub: it logs what it would have looked at.
PassOutcome LogOnlyPass(PassContext& ctx) {
  const Lease& l = ctx.lease();
  Log(LogLevel::kInfo, "pass.run")
      .Field("subject", l.key)
      .Field("fence", l.fence)
      .Field("gen", l.claimed_gen)
      .Field("reasons", JoinReasons(l.reasons))
      .Field("note", "no GitHub credentials: nothing read, nothing done");
  return PassOutcome::Done();
}

}  // namespace

GatehouseServer::GatehouseServer(ServerOptions options, StorePtr store)
    : options_(std::move(options)),
      store_(std::move(store)),
      clock_(options_.clock ? options_.clock : std::make_shared<RealClock>()) {
  admin::RegisterStoreMetrics(registry_, *store_, clock_);
  store_->RegisterMetrics(registry_);
  metrics::AddProcessCollectors(registry_);
}

Result<std::unique_ptr<GatehouseServer>> GatehouseServer::Create(ServerOptions options,
                                                                 StorePtr store) {
  std::unique_ptr<GatehouseServer> server(
      new GatehouseServer(std::move(options), std::move(store)));
  GatehouseServer& s = *server;
  Store& st = *s.store_;
  PassFn pass = LogOnlyPass;
  if (s.options_.github) {
    GH_RETURN_IF_ERROR(s.WireGitHub());
    // The engine's PassContext adapted to the passes' engine-free entry points: a review work
    // item ("owner/repo#12/review/role") runs the review pass, a merge queue
    // ("owner/repo@main/queue") the queue's, every other one the PR's.
    pass = [pr_pass = s.pr_pass_.get(), review_pass = s.review_pass_.get(),
            queue_pass = s.queue_pass_.get()](PassContext& ctx) {
      const act::LeaseLostProbe lost = [&ctx] { return ctx.lease_lost(); };
      std::string subject, role;
      if (ParseReviewWorkKey(ctx.lease().key, &subject, &role)) {
        return review_pass->Run(ctx.lease(), lost);
      }
      if (QueueKey::Parse(ctx.lease().key)) return queue_pass->Run(ctx.lease(), lost);
      return pr_pass->Run(ctx.lease(), lost);
    };
  } else {
    Log(LogLevel::kWarn, "serve.no_github")
        .Field("note",
               "no GitHub credentials configured: webhooks are stored and routed, but passes "
               "only log (set GATEHOUSE_GITHUB_APP_ID + GATEHOUSE_GITHUB_PRIVATE_KEY_FILE or "
               "GATEHOUSE_GITHUB_TOKEN)");
  }
  // A reviewer may work for its whole timeout inside one pass: the pass must not be cut first.
  // Reviews share the workers with PR passes (docs/REVIEWERS.md, "Decisions").
  size_t review_slots = 0;
  for (const decide::ReviewerSpec& r : s.options_.reviewers.reviewers) {
    s.options_.engine.max_pass =
        std::max(s.options_.engine.max_pass, r.timeout + std::chrono::minutes(2));
    review_slots += static_cast<size_t>(r.concurrency);
  }
  if (review_slots > 0 && review_slots >= s.options_.engine.workers) {
    Log(LogLevel::kWarn, "serve.review_slots")
        .Field("workers", static_cast<int64_t>(s.options_.engine.workers))
        .Field("review_slots", static_cast<int64_t>(review_slots))
        .Field("note",
               "reviewers may occupy every worker while they review; PR passes then wait. "
               "Raise --workers above the sum of the reviewers' concurrency");
  }
  // A review run that dies tells its PR, whose gate shows the role as dead (a blocker when it
  // is required) instead of waiting for it.
  s.pass_metrics_ = std::make_unique<PassMetrics>(s.registry_);
  if (pass) {
    pass = [inner = std::move(pass), metrics = s.pass_metrics_.get()](PassContext& ctx) {
      metrics->Started(ctx.lease());
      return inner(ctx);
    };
  }
  PassObserver observer = [store = &st, clock = s.clock_,
                           metrics = s.pass_metrics_.get()](const PassReport& report) {
    metrics->Observe(report);
    std::string subject, role;
    if (report.finish.kind != PassFinish::Kind::kDead || !report.recorded.ok() ||
        !ParseReviewWorkKey(report.lease.key, &subject, &role)) {
      return;
    }
    Signal signal{subject, std::string(decide::kReasonReviewFinished), Duration::zero()};
    Status told = store->work().Enqueue({&signal, 1}, clock->Now(), Durability::kRecoverable);
    if (!told.ok()) {
      Log(LogLevel::kWarn, "review.dead_signal_failed").Field("error", told.ToString());
    }
  };
  s.pool_ = std::make_unique<WorkerPool>(st, s.clock_, std::move(pass), s.options_.engine,
                                         std::move(observer));
  WorkerPool* pool = s.pool_.get();
  RouterOptions router;
  router.debounce = s.options_.debounce;
  if (act::PrPass* pr_pass = s.pr_pass_.get()) {
    router.own_login = [pr_pass] { return pr_pass->KnownLogin(); };
  }
  router.routing_lag = &s.registry_
                            .AddHistogram("gatehouse_routing_lag_seconds",
                                          "From a delivery's acceptance (stored, answered 2xx) "
                                          "to the transaction that routed, ignored or refused it.",
                                          {}, metrics::LatencyBounds())
                            .With({});
  auto pressure = std::make_shared<IngestPressure>();  // the writer records, the router reads
  router.ingest = pressure;
  router.defer_while_saturated = s.options_.route_defer;
  router.held = &s.registry_
                     .AddGauge("gatehouse_routing_held",
                               "1 while routing is held back because the webhook door is "
                               "saturated (--route-defer-seconds), else 0.",
                               {})
                     .With({});
  router.holds = &s.registry_
                      .AddCounter("gatehouse_routing_holds_total",
                                  "Times routing was held back for a saturated webhook door.", {})
                      .With({});
  s.router_ = std::make_unique<InboxRouter>(st, s.clock_, router, [pool] { pool->Wake(); });
  InboxRouter* routed = s.router_.get();
  s.inbox_ = std::make_unique<InboxWriter>(
      st, s.clock_, [routed] { routed->Wake(); }, 512, std::move(pressure));
  if (s.github_) {
    ResolverOptions resolve;
    resolve.interval = s.options_.resolve_interval;
    resolve.debounce = s.options_.debounce;
    resolve.app_mode = s.options_.github->app_mode();
    s.resolver_ = std::make_unique<DeliveryResolver>(st, *s.github_, s.clock_, resolve,
                                                     [pool] { pool->Wake(); });
    if (s.options_.sweep_interval > Duration::zero()) {
      SweepOptions sweep;
      sweep.interval = s.options_.sweep_interval;
      sweep.debounce = s.options_.debounce;
      sweep.app_mode = s.options_.github->app_mode();
      sweep.full_every = s.options_.sweep_full_every;
      sweep.installations = s.app_client_.get();
      sweep.policy_path = s.options_.pass.policy_path;
      if (!s.options_.pass.override_dir.empty()) {
        // The pass reads the override by its subject's repository, which is lower-case.
        sweep.local_policy = [dir = s.options_.pass.override_dir](const RepoRef& repo) {
          return act::ReadOverridePolicy(dir,
                                         RepoRef{AsciiLower(repo.owner), AsciiLower(repo.name)})
              .value_or("");
        };
      }
      s.sweeper_ =
          std::make_unique<Sweeper>(st, *s.github_, s.clock_, sweep, [pool] { pool->Wake(); });
      s.sweeper_->RegisterMetrics(s.registry_);
    }
    if (s.app_client_ && s.options_.recover_interval > Duration::zero()) {
      DeliveryRecoveryOptions recover;
      recover.interval = s.options_.recover_interval;
      // Recovered deliveries wake the router through the store's kDeliveries wake-up.
      s.recovery_ =
          std::make_unique<DeliveryRecovery>(st.inbox(), *s.app_client_, s.clock_, recover);
    }
  }
  s.webhook_metrics_ = std::make_unique<WebhookMetrics>(s.registry_);
  s.handler_ = std::make_unique<WebhookHandler>(s.options_.webhook, *s.inbox_, *s.clock_,
                                                s.webhook_metrics_.get());
  WebhookHandler* handler = s.handler_.get();
  s.options_.http.on_body_too_large = [handler] { handler->OnBodyTooLarge(); };
  return server;
}

// What the client knows of each installation's primary limit, and how often it refused a call
// locally to wait for one (docs/METRICS.md).
void GatehouseServer::RegisterRateLimitMetrics(const GitHubClient& github) {
  const GitHubClient* client = &github;
  ClockPtr clock = clock_;
  registry_.AddCollector(
      "gatehouse_github_rate_limit_remaining",
      "Requests left in the installation's primary rate limit, as GitHub's last answer said",
      "gauge", {"installation"}, [client] {
        std::vector<metrics::Sample> out;
        for (const auto& [id, state] : client->RateLimits()) {
          if (state.remaining) {
            out.push_back({{std::to_string(id)}, static_cast<double>(*state.remaining)});
          }
        }
        return out;
      });
  registry_.AddCollector("gatehouse_github_rate_limit_reset_seconds",
                         "Seconds until the installation's primary rate limit resets (0 when past)",
                         "gauge", {"installation"}, [client, clock] {
                           std::vector<metrics::Sample> out;
                           const Time now = clock->Now();
                           for (const auto& [id, state] : client->RateLimits()) {
                             if (!state.remaining) continue;
                             const double left =
                                 std::chrono::duration<double>(state.reset - now).count();
                             out.push_back({{std::to_string(id)}, left > 0 ? left : 0.0});
                           }
                           return out;
                         });
  registry_.AddCollector(
      "gatehouse_github_rate_limit_waits_total",
      "Calls refused locally to wait for a rate limit (exhausted, Retry-After, or only the "
      "reserve left for a background call)",
      "counter", {"installation"}, [client] {
        std::vector<metrics::Sample> out;
        for (const auto& [id, n] : client->RateLimitRefusals()) {
          out.push_back({{std::to_string(id)}, static_cast<double>(n)});
        }
        return out;
      });
}

// The GitHub client the passes, the resolver and the sweeper share, and the pass itself. Every
// failure is the configuration's.
Status GatehouseServer::WireGitHub() {
  const GitHubAuthConfig& config = *options_.github;
  CurlTransportOptions curl;
  curl.base_url = config.api_url;
  auto transport = CurlTransport::Create(curl);
  if (!transport.ok()) return InvalidArgument(transport.status().message());
  transport_ = std::move(transport).value();
  metered_ = std::make_unique<MeteredTransport>(*transport_, config.api_url, registry_);
  auto tokens = MakeTokenSource(config, *metered_, clock_);
  if (!tokens.ok()) return InvalidArgument(tokens.status().message());
  tokens_ = std::move(tokens).value();
  GitHubClientOptions client;
  client.graphql_reads = options_.graphql_reads;
  client.graphql_target = GraphqlTargetFor(config.api_url);
  github_ = std::make_unique<GitHubClient>(*metered_, *tokens_, clock_, client);
  RegisterRateLimitMetrics(*github_);

  if (config.app_mode()) {
    auto signer = AppJwtSigner::Create(config.app_id, config.private_key_pem);
    if (!signer.ok()) return InvalidArgument(signer.status().message());
    app_signer_ = std::shared_ptr<AppJwtSigner>(std::move(signer).value());
    // The App's own calls: the sweeper's installation listing, and recovery's deliveries.
    app_client_ = std::make_unique<AppClient>(*metered_, *app_signer_, clock_);
  } else if (options_.recover_interval > Duration::zero()) {
    Log(LogLevel::kWarn, "serve.no_recovery")
        .Field("note",
               "a personal token cannot read the App's webhook deliveries: deliveries GitHub "
               "fails to make while gatehouse is down are not recovered (the sweep remains)");
  }

  act::PassConfig pass = options_.pass;
  pass.app_mode = config.app_mode();
  if (options_.discover_login) {
    // gatehouse's login as GitHub shows it, asked once by the first pass that needs it: the
    // App's "<slug>[bot]" (GET /app with an App JWT), or the personal token's user.
    if (config.app_mode()) {
      pass.discover_login = [signer = app_signer_, transport = metered_.get(), clock = clock_] {
        return FetchAppLogin(*transport, *signer, clock->Now());
      };
    } else {
      pass.discover_login = [github = github_.get()] {
        return github->GetAuthenticatedUserLogin(CallContext{0, false});
      };
    }
  }
  act::ReviewPassConfig review;
  review.reviewers = options_.reviewers;
  review.executors = options_.review_executors;
  review.app_mode = pass.app_mode;
  review.app_login = pass.executor.app_login;
  review.discover_login = pass.discover_login;
  review.after_review = options_.after_review;
  for (const decide::ReviewerSpec& r : options_.reviewers.reviewers) {
    if (options_.review_executors.count(r.name) == 0) {
      return InvalidArgument("reviewer " + r.name + " has no executor");
    }
    pass.served_roles.insert(r.roles.begin(), r.roles.end());
  }
  act::QueuePassConfig queue;
  queue.defaults = pass.defaults;
  queue.policy_path = pass.policy_path;
  queue.override_dir = pass.override_dir;
  queue.dry_run = pass.dry_run;
  queue.app_mode = pass.app_mode;
  queue.executor = pass.executor;
  queue_pass_ = std::make_unique<act::QueuePass>(*store_, *github_, clock_, std::move(queue));
  pr_pass_ = std::make_unique<act::PrPass>(*store_, *github_, clock_, std::move(pass));
  review_pass_ = std::make_unique<act::ReviewPass>(*store_, *github_, clock_, std::move(review));
  return Status::Ok();
}

Status GatehouseServer::Start() {
  if (started_) return FailedPrecondition("gatehouse server already started");
  // Reviewers the store has not seen start as the file says; an operator's pause stands.
  std::vector<std::pair<std::string, bool>> reviewers;
  for (const decide::ReviewerSpec& r : options_.reviewers.reviewers) {
    reviewers.emplace_back(r.name, r.paused);
  }
  if (!reviewers.empty()) {
    GH_RETURN_IF_ERROR(store_->reviews().EnsureReviewers(reviewers, clock_->Now()));
  }
  started_ = true;
  if (Status pool = pool_->Start(); !pool.ok()) {
    stopping_ = true;  // nothing else started
    return pool;
  }
  router_->Start();
  inbox_->Start();
  if (resolver_) resolver_->Start();
  if (sweeper_) sweeper_->Start();
  auto fail = [this](Status why) {
    stopping_ = true;
    if (http_) http_->Stop(std::chrono::seconds(0));
    if (sweeper_) sweeper_->Stop();
    if (resolver_) resolver_->Stop();
    inbox_->Stop();
    router_->Stop();
    pool_->Stop();
    return why;
  };
  auto http = HttpServer::Start(options_.http, *handler_);
  if (!http.ok()) return fail(http.status());
  http_ = std::move(http).value();
  if (options_.admin) {
    admin::AdminListenerOptions admin_options = *options_.admin;
    for (const decide::ReviewerSpec& r : options_.reviewers.reviewers) {
      admin_options.reviewers.push_back(admin::ReviewerConfig{r.name, r.roles, r.concurrency});
    }
    auto admin = admin::AdminListener::Start(admin_options, *store_, registry_, clock_);
    if (!admin.ok()) return fail(admin.status());
    admin_ = std::move(admin).value();
  }
  // After the front door: deliveries arriving now are taken live while the first round runs.
  if (recovery_) recovery_->Start();
  return Status::Ok();
}

uint16_t GatehouseServer::port() const { return http_ ? http_->port() : 0; }

uint16_t GatehouseServer::admin_port() const { return admin_ ? admin_->port() : 0; }

void GatehouseServer::BeginStop() {
  if (!started_ || stopping_) return;
  stopping_ = true;
  if (admin_) admin_->Stop(std::chrono::seconds(1));
  http_->Stop(std::chrono::seconds(10));
  inbox_->Stop();
  router_->Stop();
  // Running passes finish and are recorded on a thread of their own, so that waiting for
  // them can end: a hung pass cannot be interrupted.
  std::promise<void> stopped;
  engine_stopped_ = stopped.get_future();
  stopper_ = std::thread([this, stopped = std::move(stopped)]() mutable {
    // Each may wait for one GitHub call.
    if (recovery_) recovery_->Stop();
    if (sweeper_) sweeper_->Stop();
    if (resolver_) resolver_->Stop();
    pool_->Stop();
    stopped.set_value();
  });
}

bool GatehouseServer::Stop(Duration grace) {
  BeginStop();
  if (!engine_stopped_.valid()) return true;  // never started, or Start failed
  if (engine_stopped_.wait_for(grace) != std::future_status::ready) return false;
  if (stopper_.joinable()) stopper_.join();
  return true;
}

GatehouseServer::~GatehouseServer() {
  BeginStop();
  if (stopper_.joinable()) stopper_.join();
}

}  // namespace gatehouse::app
