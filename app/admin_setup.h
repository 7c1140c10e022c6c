// `gatehouse serve`'s admin listener from its flags and the environment (docs/ADMIN_API.md,
// "Authentication"):
//   --admin-listen ADDR    default 127.0.0.1:8081; "off" for none
//   GATEHOUSE_ADMIN_TOKEN or GATEHOUSE_ADMIN_TOKEN_FILE   the token (never a flag: `ps` shows
//                          flags)
// Without a token the listener may only be on a loopback address, and gatehouse makes one:
// 32 random bytes, written (mode 0600, never logged) to --admin-token-out, by default
// <the SQLite file>.admin-token, or ./gatehouse-admin.token for PostgreSQL. The CLI's
// --server reads the same file (app/admin_client.h).
#pragma once

#include <optional>
#include <string>

#include "admin/admin_listener.h"
#include "base/status.h"

namespace gatehouse::app {

struct AdminSetup {
  std::optional<admin::AdminListenerOptions> listener;  // nullopt: --admin-listen off
  std::string generated_token_file;  // where a generated token was written, or ""
};

// InvalidArgument (a usage error) for a bad address, a non-loopback address without a token,
// or a token variable that cannot be read; kInternal when the token file cannot be written.
Result<AdminSetup> SetUpAdmin(const std::string& listen, const std::string& token_out,
                              const std::string& database_url);

// Where a generated token goes when --admin-token-out is not given.
std::string DefaultAdminTokenFile(const std::string& database_url);

}  // namespace gatehouse::app
