// gatehouse-sim: a GitHub simulator for gatehouse's tests, demo and benchmarks.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "base/flags.h"
#include "base/log.h"
#include "http/server.h"
#include "sim/ci_bot.h"
#include "sim/model.h"
#include "sim/render.h"
#include "sim/rest.h"
#include "sim/scenario.h"
#include "sim/webhooks.h"

namespace {

using namespace gatehouse;  // NOLINT: a main file

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

constexpr const char kUsage[] =
    R"(gatehouse-sim — a GitHub simulator (REST subset, App auth, signed webhooks)

Usage:
  gatehouse-sim serve [--listen ADDR] [--webhook-url URL] [options]
  gatehouse-sim run SCENARIO (--target URL | --wait-for-target) [--linger] [--listen ADDR]
                    [options]
  gatehouse-sim help | --help

run plays a scenario file (docs/SIMULATOR.md) with webhooks sent to URL (gatehouse's webhook
endpoint), serving the REST API on --listen meanwhile, and ends with one line
"verdict: ok|FAIL key=value ..."; the exit status is 0 only for ok. With --wait-for-target
it prints its listening line, then waits (up to the scenario's timeout_ms, or 60 s) until
PUT /_sim/webhook-url {"url": ...} names the target, and only then plays the scenario. With
--linger it keeps serving the REST API after the verdict line (sending no more webhooks: the
scenario is over) until SIGTERM or SIGINT (one sent earlier is held until the verdict is out),
then exits with the verdict's status: a harness can keep checking its target, which may still
read from GitHub, for as long as it needs.

serve options:
  --listen ADDR              host:port to serve on (default 127.0.0.1:9090; port 0 = any)
  --webhook-url URL          where to POST signed webhooks (none until PUT /_sim/webhook-url
                             sets one); the secret comes from GATEHOUSE_WEBHOOK_SECRET, as
                             gatehouse reads it
  --app-id ID                the App id expected as the JWT's iss (default: any)
  --app-public-key FILE      PEM of the App's RSA public key, to verify App JWTs
  --insecure-any-token       accept any Bearer token and any App JWT (local use only)
  --app-slug SLUG            the App's reviews and comments show as SLUG[bot] (default
                             gatehouse); the effect log keeps installation:<id>
  --mergeable-delay-ms N     mergeable stays null this long after a push (default 2000)
  --token-ttl-s N            installation token lifetime (default 3600)
  --rate-limit N             primary rate limit per installation per hour (default 5000)
  --openai-api-key KEY       the Bearer token the fake chat-completions endpoint
                             (POST .../chat/completions) expects (default: any)
  --log-level LEVEL          debug|info|warn|error (default info)

The REST API is served at /repos/... and /app/...; the control API at /_sim/; a fake
OpenAI-compatible chat-completions endpoint at /v1/chat/completions (see docs/SIMULATOR.md). On start it prints "gatehouse-sim: listening on http://HOST:PORT" as its
first line on stdout, so a harness listening on port 0 can read the port.
)";

// How long `run --wait-for-target` waits for its target: the scenario's timeout_ms, else
// 60 s.
int64_t ScenarioTimeoutMs(const std::string& scenario) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(scenario, ec);
  if (!ec && v.is_object()) {
    const boost::json::value* t = v.as_object().if_contains("timeout_ms");
    if (t != nullptr && t->is_int64() && t->as_int64() > 0) return t->as_int64();
  }
  return 60'000;
}

int Serve(int argc, char** argv, bool run) {
  Flags flags({"listen", "webhook-url", "app-id", "app-public-key", "mergeable-delay-ms",
               "token-ttl-s", "rate-limit", "log-level", "target", "app-slug", "openai-api-key"},
              {"insecure-any-token", "wait-for-target", "linger"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    std::fprintf(stderr, "gatehouse-sim: %s\n\n%s", parsed.message().c_str(), kUsage);
    return kExitUsage;
  }
  std::string scenario;
  const bool wait_for_target = run && flags.Has("wait-for-target");
  const bool linger = run && flags.Has("linger");
  if (!run && flags.Has("linger")) {
    std::fprintf(stderr, "gatehouse-sim serve: --linger is an option of run\n\n%s", kUsage);
    return kExitUsage;
  }
  if (run && !flags.Has("help")) {
    if (flags.positional().size() != 1 || (!flags.Has("target") && !wait_for_target)) {
      std::fprintf(stderr,
                   "gatehouse-sim run: needs SCENARIO and --target URL or --wait-for-target\n\n%s",
                   kUsage);
      return kExitUsage;
    }
    std::ifstream in(flags.positional()[0]);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in) {
      std::fprintf(stderr, "gatehouse-sim run: cannot read %s\n", flags.positional()[0].c_str());
      return kExitFailure;
    }
    scenario = ss.str();
  }
  if (flags.Has("help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  LogLevel level = LogLevel::kInfo;
  if (!ParseLogLevel(flags.Get("log-level", "info"), &level)) {
    std::fprintf(stderr, "gatehouse-sim serve: bad --log-level\n");
    return kExitUsage;
  }
  SetLogLevel(level);
  auto delay = flags.GetInt("mergeable-delay-ms", 2000, 0, 3'600'000);
  auto ttl = flags.GetInt("token-ttl-s", 3600, 1, 86'400);
  auto limit = flags.GetInt("rate-limit", 5000, 1, 1'000'000'000);
  for (const auto* r : {&delay, &ttl, &limit}) {
    if (!r->ok()) {
      std::fprintf(stderr, "gatehouse-sim serve: %s\n", r->status().message().c_str());
      return kExitUsage;
    }
  }
  sim::SetAppSlug(flags.Get("app-slug", "gatehouse"));
  sim::SimHandlerOptions hopts;
  hopts.clock = std::make_shared<RealClock>();
  hopts.app_id = flags.Get("app-id", "");
  hopts.insecure_any_token = flags.Has("insecure-any-token");
  hopts.rate_limit = *limit;
  hopts.openai_api_key = flags.Get("openai-api-key", "");
  if (flags.Has("app-public-key")) {
    std::ifstream in(flags.Get("app-public-key", ""));
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in) {
      std::fprintf(stderr, "gatehouse-sim serve: cannot read --app-public-key\n");
      return kExitFailure;
    }
    hopts.app_public_key_pem = ss.str();
  }

  // serve and run --linger: block the stop signals before any thread starts, so that only
  // sigwait() below sees them (run --linger: once the scenario is over). run: leave them
  // alone, so that Ctrl-C ends a long scenario.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (!run || linger) pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  sim::Model model(hopts.clock, {.mergeable_delay = std::chrono::milliseconds(*delay),
                                 .token_ttl = std::chrono::seconds(*ttl)});
  // Always a sender, so that PUT /_sim/webhook-url can name a target later; without a URL it
  // drops what it is given.
  const char* secret = std::getenv("GATEHOUSE_WEBHOOK_SECRET");
  auto sender = std::make_unique<sim::WebhookSender>(
      sim::WebhookSenderOptions{.url = flags.Get(run ? "target" : "webhook-url", ""),
                                .secret = secret ? secret : "",
                                .timeout_ms = 10'000});
  sim::WebhookSender* s = sender.get();
  model.SetListener([s](const sim::Notification& n) {
    s->Enqueue(n.event, boost::json::serialize(sim::RenderWebhook(n)), sim::DeliveryMetaOf(n));
  });
  hopts.webhooks = sender.get();
  // Plays the CI of repositories created with a `ci` setting (sim/ci_bot.h).
  sim::CiBot ci_bot(model, hopts.clock);
  sim::SimHandler handler(model, hopts);
  HttpServerOptions sopts;
  sopts.listen = flags.Get("listen", "127.0.0.1:9090");
  auto server = HttpServer::Start(sopts, handler);
  if (!server.ok()) {
    std::fprintf(stderr, "gatehouse-sim serve: %s\n", server.status().ToString().c_str());
    return kExitFailure;
  }
  auto addr = ParseListenAddress(sopts.listen);
  std::string host = addr.ok() ? addr->host : "127.0.0.1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  std::printf("gatehouse-sim: listening on http://%s:%u\n", host.c_str(),
              static_cast<unsigned>((*server)->port()));
  std::fflush(stdout);
  int exit_code = kExitOk;
  if (wait_for_target) {
    const auto wait = std::chrono::milliseconds(ScenarioTimeoutMs(scenario));
    if (!sender->WaitForSetUrl(wait)) {
      std::fprintf(stderr, "FAIL: no PUT /_sim/webhook-url within %lld ms\n",
                   static_cast<long long>(wait.count()));
      sim::ScenarioVerdict verdict;
      verdict.failures.push_back("no webhook target");
      verdict.counts["target_wait_timeout"] = 1;
      std::printf("%s\n", sim::FormatVerdict(verdict).c_str());
      std::fflush(stdout);
      run = false;
      exit_code = kExitFailure;
    }
  }
  if (run) {
    auto verdict = sim::RunScenario(scenario, handler, model, [](Duration d) {
      std::this_thread::sleep_for(d);  // a player paces a timeline in real time
    });
    if (!verdict.ok()) {
      std::fprintf(stderr, "gatehouse-sim run: %s\n", verdict.status().ToString().c_str());
      exit_code = kExitUsage;
    } else {
      for (const auto& f : verdict->failures) std::fprintf(stderr, "FAIL: %s\n", f.c_str());
      sender->Stop();
      verdict->counts["webhooks_delivered"] = static_cast<int64_t>(sender->delivered());
      verdict->counts["webhooks_failed"] = static_cast<int64_t>(sender->failed());
      verdict->counts["webhooks_dropped"] = static_cast<int64_t>(sender->dropped());
      verdict->counts["webhooks_withheld"] = static_cast<int64_t>(sender->withheld());
      std::printf("%s\n", sim::FormatVerdict(*verdict).c_str());
      std::fflush(stdout);
      exit_code = verdict->ok ? kExitOk : kExitFailure;
      if (linger) {
        int sig = 0;
        sigwait(&stop_signals, &sig);
      }
    }
  } else if (exit_code == kExitOk) {
    int sig = 0;
    sigwait(&stop_signals, &sig);
  }
  (*server)->Stop(std::chrono::seconds(5));
  sender->Stop();
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (cmd == "serve") return Serve(argc - 1, argv + 1, /*run=*/false);
  if (cmd == "run") return Serve(argc - 1, argv + 1, /*run=*/true);
  std::fprintf(stderr, "gatehouse-sim: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return kExitUsage;
}
