#include "act/app_login.h"

#include <utility>

#include "base/log.h"

namespace gatehouse::act {

AppLogin::AppLogin(std::string configured, Discover discover)
    : configured_(std::move(configured)), discover_(std::move(discover)) {}

std::optional<std::string> AppLogin::Known() {
  if (!discover_) return configured_;
  MutexLock lock(&mu_);
  return login_;
}

GitHubResult<std::string> AppLogin::Get() {
  if (!discover_) return configured_;
  {
    MutexLock lock(&mu_);
    if (login_) return *login_;
  }
  auto login = discover_();  // outside the lock: a GitHub call
  if (!login.ok()) {
    const GitHubErrorKind kind = login.error().kind;
    if (kind == GitHubErrorKind::kRateLimited || kind == GitHubErrorKind::kTransient ||
        kind == GitHubErrorKind::kUnauthorized) {
      return login;  // GitHub cannot answer now: wait and ask again
    }
    // GitHub answered and will not tell (an endpoint this server lacks): the configured
    // fallback, said loudly.
    Log(LogLevel::kWarn, "pass.app_login")
        .Field("error", login.error().ToString())
        .Field("using", configured_)
        .Field("note", "set gatehouse serve --app-login");
    login = configured_;
  }
  MutexLock lock(&mu_);
  login_ = *login;
  Log(LogLevel::kInfo, "pass.app_login").Field("login", *login);
  return *login_;
}

}  // namespace gatehouse::act
