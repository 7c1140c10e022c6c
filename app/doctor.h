// gatehouse doctor: checks a configuration against a real or simulated GitHub, and says what
// is wrong in plain words (docs/SETUP.md, "Checking the setup").
//
// The checks, in order; each yields one or more findings:
//   webhook secret   GATEHOUSE_WEBHOOK_SECRET[_FILE] set (and not trivially short)
//   credentials      GATEHOUSE_GITHUB_APP_ID + private key, or a personal token; the key parses
//   GitHub           reachable at GATEHOUSE_GITHUB_API_URL; the App JWT accepted (GET /app)
//   clock            this host's clock against GitHub's Date header: an App JWT is refused
//                    when the clock is more than 60 s ahead or 9 min behind
//   permissions      what the App asks for (GET /app) against what gatehouse needs
//                    (app/app_manifest.h), with why for each missing one
//   webhook          GET /app/hook/config: GitHub has a webhook URL and signs with a secret
//   installations    GET /app/installations: at least one; each one's accepted permissions
//                    and events against what gatehouse needs; a token can be made for each
//   recovery         the App's webhook deliveries are readable (GET /app/hook/deliveries)
//   database         (with a database URL) it opens, its schema is current, it takes writes,
//                    and its clock agrees with this host's
// A personal token gets the user check (GET /user) instead of the App ones.
//
// Nothing on GitHub is changed (the only POST asks for an installation token, as gatehouse
// serve would); no secret is printed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "github/auth_config.h"

namespace gatehouse::app {

struct DoctorOptions {
  // The credentials as LoadGitHubAuthConfig read them, or its error.
  std::optional<GitHubAuthConfig> github;
  std::string github_error;
  // The webhook secrets as LoadWebhookSecrets read them, or its error.
  std::vector<std::string> webhook_secrets;
  std::string secrets_error;
  std::string db_url;  // "" skips the database checks
  ClockPtr clock;      // this host's clock; null is the real one
};

struct Finding {
  enum class Severity { kOk, kWarn, kFail };
  Severity severity = Severity::kOk;
  std::string check;    // "webhook secret", "clock", ...
  std::string message;  // plain words, one line or a few
};

std::vector<Finding> CheckSetup(const DoctorOptions& options);

// "Wed, 02 Dec 2026 14:30:00 GMT" (RFC 9110's IMF-fixdate) as a time; nullopt otherwise.
std::optional<Time> ParseHttpDate(const std::string& text);

}  // namespace gatehouse::app
