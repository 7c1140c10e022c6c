// How gatehouse authenticates to GitHub, read from the environment (never from the command
// line, where `ps` shows it), following the usual GitHub App conventions:
//
//   GATEHOUSE_GITHUB_APP_ID                 the App's numeric id
//   GATEHOUSE_GITHUB_PRIVATE_KEY_FILE       path of the App's PEM private key, or
//   GATEHOUSE_GITHUB_PRIVATE_KEY            the PEM text itself (for secret stores)
//   GATEHOUSE_GITHUB_TOKEN                  a personal access token instead (local use), or
//   GATEHOUSE_GITHUB_TOKEN_FILE             a file holding it
//   GATEHOUSE_GITHUB_API_URL                default https://api.github.com; for GitHub
//                                           Enterprise Server https://HOST/api/v3
//
// Exactly one mode must be configured: App (id + key) or personal token. The webhook secret
// is loaded separately (app/webhook_secrets.h). Pure apart from reading the key/token file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "github/app_auth.h"
#include "github/transport.h"

namespace gatehouse {

struct GitHubAuthConfig {
  std::string api_url = "https://api.github.com";
  int64_t app_id = 0;           // App mode when non-zero
  std::string private_key_pem;  // App mode
  std::string personal_token;   // personal-token mode
  bool app_mode() const { return app_id != 0; }
};

// Returns the value of an environment variable, or nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup ProcessEnv();

// InvalidArgument names the variable that is wrong, missing or conflicting; secrets are
// never echoed.
Result<GitHubAuthConfig> LoadGitHubAuthConfig(const EnvLookup& env);

// The TokenSource for `config`: an InstallationTokenCache over `transport` (App mode; the
// signer is owned by the returned source) or a PersonalTokenSource. `transport` must outlive
// the result.
Result<std::unique_ptr<TokenSource>> MakeTokenSource(const GitHubAuthConfig& config,
                                                     HttpTransport& transport, ClockPtr clock);

}  // namespace gatehouse
