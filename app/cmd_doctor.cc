// gatehouse doctor: checks this machine's gatehouse configuration (the environment gatehouse
// serve reads, and a database when given) against GitHub, and prints what is wrong in plain
// words (app/doctor.h).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/commands.h"
#include "app/common.h"
#include "app/doctor.h"
#include "app/webhook_secrets.h"
#include "base/log.h"

namespace gatehouse::app {
namespace {

constexpr const char kDoctorUsage[] = R"(Usage: gatehouse doctor [--db URL]

Checks the configuration gatehouse serve would run with, from the same environment variables,
against GitHub (or GitHub Enterprise Server, or gatehouse-sim: GATEHOUSE_GITHUB_API_URL), and
says what is wrong in plain words:

  webhook secret  GATEHOUSE_WEBHOOK_SECRET[_FILE] is set, and not trivially short
  credentials     GATEHOUSE_GITHUB_APP_ID and the private key (or GATEHOUSE_GITHUB_TOKEN)
  GitHub          reachable; the App JWT (or the token) accepted
  clock           this host's clock against GitHub's Date header
  webhook         GitHub has a webhook URL for the App and signs with a secret
  permissions     what the App asks for against what gatehouse needs, with why
  installations   where the App is installed; what each installation accepted; a token for each
  recovery        the App's webhook deliveries are readable (missed deliveries come back)
  database        with --db (or $GATEHOUSE_DATABASE_URL): it opens, takes writes, its clock

Nothing on GitHub is changed (it asks for installation tokens, as serve would) and no secret
is printed. Exits 0 when nothing failed (warnings
allowed), 1 when something must be fixed.

Options:
  --db URL       also check this database (a SQLite file or postgresql://...)
  -h, --help     this text
)";

const char* Mark(Finding::Severity s) {
  switch (s) {
    case Finding::Severity::kOk:
      return "ok  ";
    case Finding::Severity::kWarn:
      return "warn";
    case Finding::Severity::kFail:
      return "FAIL";
  }
  return "?";
}

}  // namespace

int RunDoctor(int argc, char** argv) {
  Flags flags({"db", "log-level"}, {});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("doctor",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kDoctorUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kDoctorUsage, stdout);
    return kExitOk;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  DoctorOptions options;
  auto github = LoadGitHubAuthConfig(ProcessEnv());
  if (!github.ok()) {
    options.github_error = github.status().message();
  } else if (github->app_mode() || !github->personal_token.empty()) {
    options.github = *github;
  }
  auto secrets = LoadWebhookSecrets();
  if (!secrets.ok()) {
    options.secrets_error = secrets.status().message();
  } else {
    options.webhook_secrets = *secrets;
  }
  const char* env_db = std::getenv("GATEHOUSE_DATABASE_URL");
  if (flags.Has("db") || (env_db != nullptr && *env_db != '\0'))
    options.db_url = DatabaseUrl(flags);
  std::printf("gatehouse doctor: %s\n",
              options.github ? ("checking against " + options.github->api_url).c_str()
                             : "no GitHub to check against");
  int failures = 0, warnings = 0;
  for (const Finding& f : CheckSetup(options)) {
    std::printf("  %s  %-15s %s\n", Mark(f.severity), f.check.c_str(), f.message.c_str());
    failures += f.severity == Finding::Severity::kFail ? 1 : 0;
    warnings += f.severity == Finding::Severity::kWarn ? 1 : 0;
  }
  if (failures == 0) {
    std::printf("gatehouse doctor: nothing to fix%s\n",
                warnings > 0 ? (" (" + std::to_string(warnings) + " warning" +
                                (warnings == 1 ? "" : "s") + ")")
                                   .c_str()
                             : "");
    return kExitOk;
  }
  std::printf("gatehouse doctor: %d thing%s to fix\n", failures, failures == 1 ? "" : "s");
  return kExitFailure;
}

}  // namespace gatehouse::app
