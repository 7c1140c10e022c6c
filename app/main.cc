// gatehouse: a self-hosted GitHub App backend that acts on each pull request exactly once.
#include <cstdio>
#include <cstring>
#include <string>

#include "app/commands.h"

namespace {

constexpr const char kUsage[] =
    R"(gatehouse — acts on each pull request exactly once, never loses a webhook

Usage:
  gatehouse demo                                  the whole product against a GitHub simulator,
                                                  with an invariant verdict (start here)
  gatehouse serve [--db URL] [--listen ADDR] ...  the webhook server, the engine, the sweeper
  gatehouse work ls [--state STATE] [--json]      list work items
  gatehouse work rearm KEY                        bring a dead work item back
  gatehouse work signal KEY [--reason R]          route a signal to a work item by hand
  gatehouse work counters [--json]                engine counters (signals, passes, ...)
  gatehouse route --event EVENT FILE              explain how a webhook payload is routed
  gatehouse status [--json]                       the webhook funnel and engine counters
  gatehouse top                                   a live view: funnel, rates, busiest PRs (q quits)
  gatehouse config check FILE                     validate a .github/gatehouse.yml policy
  gatehouse config check --reviewers FILE         validate a reviewers file
  gatehouse reviewers ls|pause NAME|resume NAME   reviewers, their pause state and slots
  gatehouse audit OWNER/REPO#N [--json]           a pull request's verdicts and actions
  gatehouse migrate [--db URL]                    create or upgrade the database schema
  gatehouse app manifest --webhook-url URL        the GitHub App manifest (docs/SETUP.md)
  gatehouse doctor [--db URL]                     check the configuration against GitHub
  gatehouse help | --help                         this text
  gatehouse --version

Every command takes --help; those that use the database take --db URL: a SQLite file
(default ./gatehouse.db) or postgresql://USER@HOST:PORT/DB; default $GATEHOUSE_DATABASE_URL.
status, top, work ls|rearm|counters, audit and reviewers also take --server URL: a running
gatehouse's admin listener (token in GATEHOUSE_ADMIN_TOKEN[_FILE]), no database access needed.
Logs are JSON lines on stderr; --log-level debug|info|warn|error (default info).
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return gatehouse::app::kExitUsage;
  }
  const std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return gatehouse::app::kExitOk;
  }
  if (cmd == "--version" || cmd == "version") {
    std::printf("gatehouse 0.1.0\n");
    return gatehouse::app::kExitOk;
  }
  if (cmd == "serve") return gatehouse::app::RunServe(argc - 1, argv + 1);
  if (cmd == "work") return gatehouse::app::RunWork(argc - 1, argv + 1);
  if (cmd == "route") return gatehouse::app::RunRoute(argc - 1, argv + 1);
  if (cmd == "status") return gatehouse::app::RunStatus(argc - 1, argv + 1);
  if (cmd == "config") return gatehouse::app::RunConfig(argc - 1, argv + 1);
  if (cmd == "audit") return gatehouse::app::RunAudit(argc - 1, argv + 1);
  if (cmd == "reviewers") return gatehouse::app::RunReviewers(argc - 1, argv + 1);
  if (cmd == "migrate") return gatehouse::app::RunMigrate(argc - 1, argv + 1);
  if (cmd == "app") return gatehouse::app::RunApp(argc - 1, argv + 1);
  if (cmd == "doctor") return gatehouse::app::RunDoctor(argc - 1, argv + 1);
  if (cmd == "top") return gatehouse::app::RunTop(argc - 1, argv + 1);
  if (cmd == "demo") return gatehouse::app::RunDemo(argc - 1, argv + 1);
  std::fprintf(stderr, "gatehouse: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return gatehouse::app::kExitUsage;
}
