// AppLogin: gatehouse's own login as GitHub shows it on its reviews and comments, which the
// pass needs to find its summary comment and the executor to recognise its own effects
// (docs/PASS.md, "Decisions where the issue was silent").
//
// Either configured (`gatehouse serve --app-login`), or discovered once by asking GitHub
// (GET /app → "<slug>[bot]" in App mode, GET /user with a personal token) and then kept for the
// life of the process.
//
// Thread-safe: one AppLogin serves every worker of a pool; passes that start together before the
// first answer may each ask GitHub once.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "base/mutex.h"
#include "github/github.h"

namespace gatehouse::act {

class AppLogin {
 public:
  using Discover = std::function<GitHubResult<std::string>()>;
  // `discover` unset: always `configured`.
  AppLogin(std::string configured, Discover discover);

  // The login. While GitHub cannot answer (rate limited, transient, unauthorized) the error is
  // returned and the next call asks again: acting under a wrong login would post a new summary
  // comment per change and miss gatehouse's own approvals. When GitHub answers that it cannot
  // tell (404, ...: an endpoint this server lacks), `configured` is used from then on, with a
  // warning in the log.
  GitHubResult<std::string> Get();

  // The login without asking GitHub: `configured` when nothing is to be discovered, the
  // discovered one once a Get() learned it, nullopt before.
  std::optional<std::string> Known();

 private:
  const std::string configured_;
  const Discover discover_;

  Mutex mu_;
  std::optional<std::string> login_ GUARDED_BY(mu_);  // once discovered
};

}  // namespace gatehouse::act
