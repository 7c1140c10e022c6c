// gatehouse serve: the webhook server, the inbox, the router, the work-item engine running
// the per-PR pass (act/pr_pass.h) and the sweeper on one SQLite file, until SIGINT/SIGTERM.
// The wiring is app/gatehouse_server.h; this file turns flags and the environment into its
// ServerOptions, opens the store, and waits for a stop signal.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "act/pr_pass.h"
#include "app/admin_setup.h"
#include "app/clock_skew.h"
#include "app/commands.h"
#include "app/common.h"
#include "app/db_pool.h"
#include "app/gatehouse_server.h"
#include "app/reviewers_setup.h"
#include "app/webhook_secrets.h"
#include "base/log.h"
#include "github/auth_config.h"
#include "http/server.h"
#include "store/open_store.h"

namespace gatehouse::app {
namespace {

constexpr const char kServeUsage[] = R"(Usage: gatehouse serve [options]

Receives GitHub webhooks on --listen, stores each one durably before answering 2xx, routes
it into its pull request's work item, and runs the per-PR engine, on one SQLite file or one
PostgreSQL database, until SIGINT or SIGTERM. Then it stops accepting, answers what is in flight, lets running
passes finish and records them.

Options:
  --db URL               the database: a SQLite file (sqlite:PATH or PATH, created if
                         absent; default ./gatehouse.db) or postgresql://USER@HOST:PORT/DB
                         (docs/POSTGRES.md); default $GATEHOUSE_DATABASE_URL. A password
                         comes from the URL, PGPASSFILE or PGPASSWORD and is never logged
  --db-pool N            PostgreSQL: at most N pooled connections, plus one that listens for
                         other nodes' work (default workers + http threads + 2); checked at
                         start against the server's max_connections
  --listen ADDR          HOST:PORT to listen on (default 127.0.0.1:8080; port 0 picks one;
                         the address is printed on stdout)
  --webhook-path PATH    where GitHub POSTs (default /webhook); GET /healthz, GET /readyz
  --admin-listen ADDR    the admin listener: JSON API, /metrics, dashboard (default
                         127.0.0.1:8081; port 0 picks one; "off" for none; docs/ADMIN_API.md).
                         A non-loopback address needs GATEHOUSE_ADMIN_TOKEN[_FILE]
  --admin-token-out PATH without GATEHOUSE_ADMIN_TOKEN[_FILE], the token gatehouse makes is
                         written here, mode 0600 (default: <the SQLite file>.admin-token, or
                         ./gatehouse-admin.token for PostgreSQL)
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
  --policy-dir DIR       operator overrides: DIR/OWNER/REPO.yml replaces that repository's
                         .github/gatehouse.yml (for repos that cannot carry the file)
  --autonomy LEVEL       server default for every action class: observe (record only; the
                         default), suggest (check run + summary comment) or auto; a
                         repository's `actions:` section overrides it
  --report WHAT          server default for what the gatehouse check run tells: progress
                         (the score and each waiting check's state; the default) or verdicts
                         (the verdict, the rules still waiting, the blockers: fewer updates,
                         less rate limit); a repository's `actions.report` overrides it
  --dry-run              plan and audit everything, execute nothing (overrides every repo)
  --app-login LOGIN      gatehouse's login on GitHub, to recognise its own reviews and
                         comments (default: asked from GitHub by the first pass, GET /app
                         -> <slug>[bot], or GET /user with a personal token)
  --route-defer-seconds S
                         while the webhook door is saturated (clients queueing on its
                         fsync), routing waits up to S seconds so that accepting webhooks
                         gets the machine, then catches up (default 30; 0: route at once)
  --sweep-interval-seconds S
                         list every installed repository's open PRs this often and pass the
                         new or changed ones (default 600; 0 disables the sweep); the first
                         round at start-up passes every open PR, back to back; later ones
                         spread over the interval
  --sweep-full-every N   every Nth round is full (default 6): one GraphQL query per 100 open
                         PRs lists their head checks and the policy file too, and passes the
                         PRs whose checks, row or policy moved since the last full round; the
                         rounds between pass PRs whose head or updated_at moved (one listing
                         per repository, usually a free 304); every 24th full round passes
                         every open PR
  --resolve-interval-seconds S
                         ask GitHub which PRs contain the commits of unresolved deliveries
                         this often (default 30)
  --recover-interval-seconds S
                         list the App's webhook deliveries GitHub could not make (gatehouse
                         down, unreachable) and accept the missed ones, at start-up and then
                         this often (default 60; 0 turns recovery off; App mode only)
  --github-reads HOW     how a pass reads a PR: graphql (default: one GraphQL query for the
                         PR, its reviews, checks and statuses) or rest (four REST reads, each
                         conditional on its ETag); docs/GITHUB.md "One query per pass".
                         The sweep's full round lists open PRs with their checks the
                         same way (graphql), or passes every open PR (rest)
  --reviewers FILE       the reviewers (AI agents, linters, scripts) review runs are
                         dispatched to, their roles, executors, concurrency and timeouts
                         (docs/REVIEWERS.md; checked by `gatehouse config check --reviewers`)
  --insecure-no-signature
                         accept unsigned webhooks (local experiments only; logged loudly)
  --log-level L          debug|info|warn|error|off (default info); JSON lines on stderr
  -h, --help             this text

Secrets come from the environment, never from arguments:
  GATEHOUSE_WEBHOOK_SECRET (or GATEHOUSE_WEBHOOK_SECRET_FILE=path) is required unless
  --insecure-no-signature; GATEHOUSE_WEBHOOK_SECRET_PREVIOUS (or ..._FILE) is also accepted
  during a rotation. GATEHOUSE_ADMIN_TOKEN (or GATEHOUSE_ADMIN_TOKEN_FILE) is the admin token.
GitHub credentials: GATEHOUSE_GITHUB_APP_ID with GATEHOUSE_GITHUB_PRIVATE_KEY_FILE (or
GATEHOUSE_GITHUB_PRIVATE_KEY), or GATEHOUSE_GITHUB_TOKEN[_FILE]; GATEHOUSE_GITHUB_API_URL for
GitHub Enterprise Server or a simulator. Without any, passes only log (no GitHub calls).

Several `gatehouse serve` processes may share one --db: a SQLite file on one host, or a
PostgreSQL database from any number of hosts (docs/POSTGRES.md).
)";

// "gatehouse: admin on http://127.0.0.1:8081/ (token in FILE)", after the listening line.
void PrintAdminAddress(const std::string& listen, uint16_t port, const AdminSetup& setup) {
  auto address = ParseListenAddress(listen);
  const std::string host = address.ok() ? address->host : "127.0.0.1";
  const std::string url = "http://" +
                          (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                          std::to_string(port) + "/";
  const std::string token = setup.generated_token_file.empty()
                                ? "the token is GATEHOUSE_ADMIN_TOKEN"
                                : "token in " + setup.generated_token_file;
  std::printf("gatehouse: admin on %s (%s)\n", url.c_str(), token.c_str());
  Log(LogLevel::kInfo, "serve.admin")
      .Field("url", url)
      .Field("token_file", setup.generated_token_file);
}

int UsageError(const std::string& message) {
  PrintError("serve", message);
  return kExitUsage;
}

}  // namespace

int RunServe(int argc, char** argv) {
  Flags flags({"db",
               "db-pool",
               "listen",
               "webhook-path",
               "body-limit-mb",
               "http-threads",
               "debounce-ms",
               "workers",
               "lease-seconds",
               "max-attempts",
               "shutdown-grace-seconds",
               "log-level",
               "policy-dir",
               "autonomy",
               "report",
               "app-login",
               "route-defer-seconds",
               "sweep-interval-seconds",
               "sweep-full-every",
               "resolve-interval-seconds",
               "recover-interval-seconds",
               "github-reads",
               "reviewers",
               "admin-listen",
               "admin-token-out"},
              {"insecure-no-signature", "dry-run"});
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
  auto sweep_s = flags.GetInt("sweep-interval-seconds", 600, 0, 7 * 24 * 3600);
  auto full_every = flags.GetInt("sweep-full-every", 6, 1, 10000);
  auto resolve_s = flags.GetInt("resolve-interval-seconds", 30, 1, 24 * 3600);
  auto recover_s = flags.GetInt("recover-interval-seconds", 60, 0, 24 * 3600);
  auto defer_s = flags.GetInt("route-defer-seconds", 30, 0, 3600);
  for (const auto* r : {&workers, &lease, &attempts, &grace, &body_limit_mb, &http_threads,
                        &debounce_ms, &sweep_s, &full_every, &resolve_s, &recover_s, &defer_s}) {
    if (!r->ok()) return UsageError(r->status().message());
  }
  ServerOptions options;
  options.engine.workers = static_cast<size_t>(*workers);
  options.engine.lease = std::chrono::seconds(*lease);
  options.engine.retry.max_attempts = static_cast<int>(*attempts);
  options.debounce = std::chrono::milliseconds(*debounce_ms);
  options.sweep_interval = std::chrono::seconds(*sweep_s);
  options.sweep_full_every = static_cast<int>(*full_every);
  options.resolve_interval = std::chrono::seconds(*resolve_s);
  options.recover_interval = std::chrono::seconds(*recover_s);
  options.route_defer = std::chrono::seconds(*defer_s);
  const std::string reads = flags.Get("github-reads", "graphql");
  if (reads != "graphql" && reads != "rest") {
    return UsageError("--github-reads must be graphql or rest, not \"" + reads + "\"");
  }
  options.graphql_reads = reads == "graphql";

  WebhookOptions& webhook = options.webhook;
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

  // GitHub credentials: none at all means record-only; anything half-configured is an error.
  const EnvLookup env = ProcessEnv();
  bool any_github = false;
  for (const char* name : {"GATEHOUSE_GITHUB_APP_ID", "GATEHOUSE_GITHUB_PRIVATE_KEY",
                           "GATEHOUSE_GITHUB_PRIVATE_KEY_FILE", "GATEHOUSE_GITHUB_TOKEN",
                           "GATEHOUSE_GITHUB_TOKEN_FILE"}) {
    if (env(name)) any_github = true;
  }
  if (any_github) {
    auto loaded = LoadGitHubAuthConfig(env);
    if (!loaded.ok()) return UsageError(loaded.status().message());
    options.github = std::move(loaded).value();
  }
  act::PassConfig& pass_config = options.pass;
  pass_config.override_dir = flags.Get("policy-dir", "");
  pass_config.dry_run = flags.Has("dry-run");
  pass_config.executor.app_login = flags.Get("app-login", "gatehouse[bot]");
  options.discover_login = !flags.Has("app-login");
  {
    const std::string autonomy = flags.Get("autonomy", "observe");
    auto level = decide::ParseAutonomy(autonomy);
    if (!level) return UsageError("--autonomy must be observe, suggest or auto, not " + autonomy);
    pass_config.defaults.actions.autonomy = *level;
    const std::string report = flags.Get("report", "progress");
    auto what = decide::ParseReport(report);
    if (!what) return UsageError("--report must be progress or verdicts, not " + report);
    pass_config.defaults.actions.report = *what;
  }
  if (const char* crash = std::getenv("GATEHOUSE_FAULT_CRASH_AFTER_CALL"); crash && *crash) {
    // Fault injection for the crash tests: die by SIGKILL right after a GitHub call of this
    // kind returned, before its outcome reaches the ledger.
    const std::string kind = crash;
    Log(LogLevel::kWarn, "serve.fault").Field("crash_after_call", kind);
    pass_config.executor.after_call = [kind](const decide::PlannedAction& a) {
      if (decide::ActionKindName(a.kind) == kind) raise(SIGKILL);
    };
  }
  if (flags.Has("reviewers")) {
    auto reviewers = LoadReviewers(flags.Get("reviewers", ""));
    if (!reviewers.ok()) return UsageError(reviewers.status().message());
    options.reviewers = std::move(reviewers->config);
    options.review_executors = std::move(reviewers->executors);
    options.engine.retry.unavailable_budget = options.reviewers.availability_budget;
  }
  options.http.listen = flags.Get("listen", "127.0.0.1:8080");
  options.http.body_limit = static_cast<size_t>(*body_limit_mb) * 1024 * 1024;
  options.http.threads = static_cast<int>(*http_threads);

  const DbPoolNeeds pool_needs{static_cast<int>(*workers), static_cast<int>(*http_threads)};
  auto db_pool = flags.GetInt("db-pool", DefaultDbPool(pool_needs), 0, 10000);
  if (!db_pool.ok()) return UsageError(db_pool.status().message());
  const bool postgres = IsPostgresUrl(DatabaseUrl(flags));
  if (flags.Has("db-pool") && !postgres) {
    return UsageError("--db-pool applies to a PostgreSQL --db only (SQLite has one connection)");
  }
  auto admin_setup = SetUpAdmin(flags.Get("admin-listen", "127.0.0.1:8081"),
                                flags.Get("admin-token-out", ""), DatabaseUrl(flags));
  if (!admin_setup.ok()) {
    if (admin_setup.status().code() == StatusCode::kInvalidArgument) {
      return UsageError(admin_setup.status().message());
    }
    PrintError("serve", admin_setup.status().ToString());
    return kExitFailure;
  }
  options.admin = admin_setup->listener;
  if (postgres) {
    std::string warning;
    if (Status s = CheckDbPool(static_cast<int>(*db_pool), pool_needs, &warning); !s.ok()) {
      return UsageError(s.message());
    }
    if (!warning.empty()) Log(LogLevel::kWarn, "serve.db_pool_small").Field("note", warning);
  }
  auto store = OpenStoreFromFlags(flags, /*must_exist=*/false, static_cast<int>(*db_pool),
                                  /*listen=*/true);
  if (!store.ok()) {
    PrintError("serve", store.status().ToString());
    return kExitFailure;
  }

  if (Status skew = CheckClockSkew(**store, RealClock().Now(), options.engine.lease); !skew.ok()) {
    PrintError("serve", skew.ToString());
    return kExitFailure;
  }

  // Block the stop signals before any thread starts, so that only sigwait() below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // A GitHub configuration that cannot be wired is a usage error; failing to start is not.
  auto server = GatehouseServer::Create(options, std::move(store).value());
  if (!server.ok()) return UsageError(server.status().message());
  if (Status started = (*server)->Start(); !started.ok()) {
    PrintError("serve", started.ToString());
    return kExitFailure;
  }
  auto address = ParseListenAddress(options.http.listen);
  const std::string host = address.ok() ? address->host : "127.0.0.1";
  const std::string url = "http://" +
                          (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                          std::to_string((*server)->port()) + webhook.path;
  std::printf("gatehouse: listening on %s\n", url.c_str());
  if (options.admin)
    PrintAdminAddress(options.admin->listen, (*server)->admin_port(), *admin_setup);
  std::fflush(stdout);
  Log(LogLevel::kInfo, "serve.ready")
      .Field("db", DescribeStoreUrl(DatabaseUrl(flags)))
      .Field("url", url);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  Log(LogLevel::kInfo, "serve.stopping")
      .Field("signal", sig)
      .Field("grace_s", static_cast<int64_t>(*grace));
  // Let running passes finish and be recorded, but not forever: a hung pass cannot be
  // interrupted, and its lease will run out and another process will take the item over.
  if (!(*server)->Stop(std::chrono::seconds(*grace))) {
    Log(LogLevel::kError, "serve.stop_timeout")
        .Field("grace_s", static_cast<int64_t>(*grace))
        .Field("note", "passes still running; their leases will expire");
    std::_Exit(kExitFailure);
  }
  Log(LogLevel::kInfo, "serve.stopped");  // NOLINT(bugprone-unused-raii): logs as it ends
  return kExitOk;
}

}  // namespace gatehouse::app
