// gatehouse serve: the webhook server, the inbox, the router and the work-item engine on one
// SQLite file, until SIGINT/SIGTERM.
//
// Until the decision layer lands, the pass run for each PR only records what it would decide
// on (the key, the generation and the reasons) in the log; everything around it (durable
// acceptance, routing, claims, leases, heartbeats, fences, retries) is the real one.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "app/commands.h"
#include "app/common.h"
#include "app/webhook_secrets.h"
#include "base/clock.h"
#include "base/log.h"
#include "engine/inbox_router.h"
#include "engine/inbox_writer.h"
#include "engine/worker_pool.h"
#include "http/server.h"
#include "http/webhook_handler.h"

namespace gatehouse::app {
namespace {

constexpr const char kServeUsage[] = R"(Usage: gatehouse serve [options]

Receives GitHub webhooks on --listen, stores each one durably before answering 2xx, routes
it into its pull request's work item, and runs the per-PR engine, all on one SQLite file,
until SIGINT or SIGTERM. Then it stops accepting, answers what is in flight, lets running
passes finish and records them.

Options:
  --db PATH              SQLite database file (default ./gatehouse.db; created if absent)
  --listen ADDR          HOST:PORT to listen on (default 127.0.0.1:8080; port 0 picks one;
                         the address is printed on stdout)
  --webhook-path PATH    where GitHub POSTs (default /webhook); GET /healthz, GET /readyz
  --body-limit-mb N      larger webhook bodies are refused with 413 (default 25)
  --http-threads N       HTTP I/O threads (default 2)
  --debounce-ms MS       a routed signal waits this long for company (default 1000)
  --workers N            passes run in parallel (default 4)
  --lease-seconds S      lease length; renewed at half-life while a pass runs (default 60)
  --max-attempts N       failed attempts (transient errors, expired leases) before an item
                         is dead (default 8)
  --shutdown-grace-seconds S
                         on SIGINT/SIGTERM, wait this long for running passes to finish
                         and be recorded, then exit 1 anyway (default 30)
  --insecure-no-signature
                         accept unsigned webhooks (local experiments only; logged loudly)
  --log-level L          debug|info|warn|error|off (default info); JSON lines on stderr
  -h, --help             this text

Secrets come from the environment, never from arguments:
  GATEHOUSE_WEBHOOK_SECRET (or GATEHOUSE_WEBHOOK_SECRET_FILE=path) is required unless
  --insecure-no-signature; GATEHOUSE_WEBHOOK_SECRET_PREVIOUS (or ..._FILE) is also accepted
  during a rotation.

Several `gatehouse serve` processes may share one --db file.
)";

int UsageError(const std::string& message) {
  PrintError("serve", message);
  return kExitUsage;
}

}  // namespace

int RunServe(int argc, char** argv) {
  Flags flags({"db", "listen", "webhook-path", "body-limit-mb", "http-threads", "debounce-ms",
               "workers", "lease-seconds", "max-attempts", "shutdown-grace-seconds", "log-level"},
              {"insecure-no-signature"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("serve",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kServeUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kServeUsage, stdout);
    return kExitOk;
  }
  if (!ApplyLogLevel(flags)) return kExitUsage;

  auto workers = flags.GetInt("workers", 4, 1, 1024);
  auto lease = flags.GetInt("lease-seconds", 60, 1, 3600);
  auto attempts = flags.GetInt("max-attempts", 8, 1, 1000);
  auto grace = flags.GetInt("shutdown-grace-seconds", 30, 0, 3600);
  auto body_limit_mb = flags.GetInt("body-limit-mb", 25, 1, 1024);
  auto http_threads = flags.GetInt("http-threads", 2, 1, 64);
  auto debounce_ms = flags.GetInt("debounce-ms", 1000, 0, 3600LL * 1000);
  for (const auto* r :
       {&workers, &lease, &attempts, &grace, &body_limit_mb, &http_threads, &debounce_ms}) {
    if (!r->ok()) return UsageError(r->status().message());
  }
  EngineOptions options;
  options.workers = static_cast<size_t>(*workers);
  options.lease = std::chrono::seconds(*lease);
  options.retry.max_attempts = static_cast<int>(*attempts);

  WebhookOptions webhook;
  webhook.path = flags.Get("webhook-path", "/webhook");
  webhook.insecure_no_signature = flags.Has("insecure-no-signature");
  auto secrets = LoadWebhookSecrets();
  if (!secrets.ok()) return UsageError(secrets.status().message());
  webhook.secrets = std::move(secrets).value();
  if (webhook.secrets.empty() && !webhook.insecure_no_signature) {
    return UsageError(
        "no webhook secret: set GATEHOUSE_WEBHOOK_SECRET (or GATEHOUSE_WEBHOOK_SECRET_FILE), "
        "or pass --insecure-no-signature for a local experiment");
  }
  if (Status v = ValidateWebhookOptions(webhook); !v.ok()) return UsageError(v.message());
  if (webhook.insecure_no_signature) {
    Log(LogLevel::kError, "serve.insecure")
        .Field("note",
               "--insecure-no-signature: webhook signatures are NOT checked; anyone "
               "who can reach this port can inject events");
  }

  auto store = OpenStoreFromFlags(flags, /*must_exist=*/false);
  if (!store.ok()) {
    PrintError("serve", store.status().ToString());
    return kExitFailure;
  }

  // Block the stop signals before any thread starts, so that only sigwait() below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto clock = std::make_shared<RealClock>();
  PassFn pass = [](PassContext& ctx) {
    const Lease& l = ctx.lease();
    Log(LogLevel::kInfo, "pass.run")
        .Field("key", l.key)
        .Field("fence", l.fence)
        .Field("gen", l.claimed_gen)
        .Field("reasons", JoinReasons(l.reasons));
    return PassOutcome::Done();
  };
  WorkerPool pool(**store, clock, pass, options);
  RouterOptions router_options;
  router_options.debounce = std::chrono::milliseconds(*debounce_ms);
  InboxRouter router(**store, clock, router_options, [&pool] { pool.Wake(); });
  InboxWriter inbox(**store, clock, [&router] { router.Wake(); });
  WebhookHandler handler(webhook, inbox, *clock);
  HttpServerOptions http;
  http.listen = flags.Get("listen", "127.0.0.1:8080");
  http.body_limit = static_cast<size_t>(*body_limit_mb) * 1024 * 1024;
  http.threads = static_cast<int>(*http_threads);
  http.on_body_too_large = [&handler] { handler.OnBodyTooLarge(); };

  Status started = pool.Start();
  if (!started.ok()) {
    PrintError("serve", started.ToString());
    return kExitFailure;
  }
  router.Start();
  inbox.Start();
  auto server = HttpServer::Start(http, handler);
  if (!server.ok()) {
    PrintError("serve", server.status().ToString());
    inbox.Stop();
    router.Stop();
    pool.Stop();
    return kExitFailure;
  }
  auto address = ParseListenAddress(http.listen);
  const std::string host = address.ok() ? address->host : "127.0.0.1";
  const std::string url = "http://" +
                          (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                          std::to_string((*server)->port()) + webhook.path;
  std::printf("gatehouse: listening on %s\n", url.c_str());
  std::fflush(stdout);
  Log(LogLevel::kInfo, "serve.ready").Field("db", flags.Get("db", kDefaultDb)).Field("url", url);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  Log(LogLevel::kInfo, "serve.stopping")
      .Field("signal", sig)
      .Field("grace_s", static_cast<int64_t>(*grace));
  // Front to back: stop taking requests (answering those in flight), store what was
  // accepted, route it, then let the engine finish its passes.
  (*server)->Stop(std::chrono::seconds(10));
  inbox.Stop();
  router.Stop();
  // Let running passes finish and be recorded, but not forever: a hung pass cannot be
  // interrupted, and its lease will run out and another process will take the item over.
  std::promise<void> stopped;
  std::future<void> stopped_future = stopped.get_future();
  std::thread stopper([&] {
    pool.Stop();
    stopped.set_value();
  });
  if (stopped_future.wait_for(std::chrono::seconds(*grace)) != std::future_status::ready) {
    Log(LogLevel::kError, "serve.stop_timeout")
        .Field("grace_s", static_cast<int64_t>(*grace))
        .Field("note", "passes still running; their leases will expire");
    std::_Exit(kExitFailure);
  }
  stopper.join();
  Log(LogLevel::kInfo, "serve.stopped");  // NOLINT(bugprone-unused-raii): logs as it ends
  return kExitOk;
}

}  // namespace gatehouse::app
