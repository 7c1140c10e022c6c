#include "github/auth_config.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gatehouse {
namespace {

// A variable or its _FILE twin (one trailing newline of the file is dropped); "" when
// neither is set.
Result<std::string> ValueOrFile(const EnvLookup& env, const std::string& name,
                                const std::string& file_name) {
  auto value = env(name);
  auto file = env(file_name);
  if (value && file) return InvalidArgument(name + " and " + file_name + " are both set; set one");
  if (value) return *value;
  if (!file) return std::string();
  std::ifstream in(*file, std::ios::binary);
  if (!in) return InvalidArgument(file_name + ": cannot read " + *file);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.empty()) return InvalidArgument(file_name + ": " + *file + " is empty");
  return text;
}

// Owns the signer the cache refers to.
class OwningInstallationTokenSource final : public TokenSource {
 public:
  OwningInstallationTokenSource(std::unique_ptr<AppJwtSigner> signer, HttpTransport& transport,
                                ClockPtr clock)
      : signer_(std::move(signer)), cache_(transport, *signer_, std::move(clock)) {}
  GitHubResult<std::string> Token(int64_t installation_id) override {
    return cache_.Token(installation_id);
  }
  void Invalidate(int64_t installation_id) override { cache_.Invalidate(installation_id); }

 private:
  std::unique_ptr<AppJwtSigner> signer_;
  InstallationTokenCache cache_;
};

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    // Read at start-up, before threads that could setenv exist.
    const char* v = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
}

Result<GitHubAuthConfig> LoadGitHubAuthConfig(const EnvLookup& env) {
  GitHubAuthConfig config;
  if (auto url = env("GATEHOUSE_GITHUB_API_URL"); url && !url->empty()) config.api_url = *url;

  std::string app_id_text = env("GATEHOUSE_GITHUB_APP_ID").value_or("");
  GH_ASSIGN_OR_RETURN(config.private_key_pem, ValueOrFile(env, "GATEHOUSE_GITHUB_PRIVATE_KEY",
                                                          "GATEHOUSE_GITHUB_PRIVATE_KEY_FILE"));
  GH_ASSIGN_OR_RETURN(config.personal_token,
                      ValueOrFile(env, "GATEHOUSE_GITHUB_TOKEN", "GATEHOUSE_GITHUB_TOKEN_FILE"));

  const bool app = !app_id_text.empty() || !config.private_key_pem.empty();
  if (app && !config.personal_token.empty()) {
    return InvalidArgument(
        "both a GitHub App (GATEHOUSE_GITHUB_APP_ID / _PRIVATE_KEY) and a personal token "
        "(GATEHOUSE_GITHUB_TOKEN) are configured; set one");
  }
  if (!app) {
    if (config.personal_token.empty()) {
      return InvalidArgument(
          "no GitHub credentials: set GATEHOUSE_GITHUB_APP_ID and "
          "GATEHOUSE_GITHUB_PRIVATE_KEY_FILE, or GATEHOUSE_GITHUB_TOKEN");
    }
    return config;
  }
  auto [ptr, ec] =
      std::from_chars(app_id_text.data(), app_id_text.data() + app_id_text.size(), config.app_id);
  if (app_id_text.empty() || ec != std::errc() || ptr != app_id_text.data() + app_id_text.size() ||
      config.app_id <= 0) {
    return InvalidArgument("GATEHOUSE_GITHUB_APP_ID must be a positive integer");
  }
  if (config.private_key_pem.empty()) {
    return InvalidArgument(
        "GATEHOUSE_GITHUB_APP_ID is set but neither GATEHOUSE_GITHUB_PRIVATE_KEY_FILE nor "
        "GATEHOUSE_GITHUB_PRIVATE_KEY is");
  }
  return config;
}

Result<std::unique_ptr<TokenSource>> MakeTokenSource(const GitHubAuthConfig& config,
                                                     HttpTransport& transport, ClockPtr clock) {
  if (!config.app_mode()) {
    return std::unique_ptr<TokenSource>(new PersonalTokenSource(config.personal_token));
  }
  GH_ASSIGN_OR_RETURN(auto signer, AppJwtSigner::Create(config.app_id, config.private_key_pem));
  return std::unique_ptr<TokenSource>(
      new OwningInstallationTokenSource(std::move(signer), transport, std::move(clock)));
}

}  // namespace gatehouse
