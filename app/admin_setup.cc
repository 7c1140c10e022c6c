#include "app/admin_setup.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "admin/admin_auth.h"
#include "app/webhook_secrets.h"
#include "store/open_store.h"

namespace gatehouse::app {
namespace {

// Writes `text` to `path` with mode 0600, through a temporary file and a rename, so a reader
// never sees half a token and the file is never readable by others.
Status WritePrivateFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Internal("cannot create " + tmp + ": " + std::strerror(errno));
  const std::string line = text + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Internal("cannot write " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace

std::string DefaultAdminTokenFile(const std::string& database_url) {
  if (IsPostgresUrl(database_url)) return "gatehouse-admin.token";
  std::string path = database_url;
  if (path.starts_with("sqlite:")) path = path.substr(7);
  return path + ".admin-token";
}

Result<AdminSetup> SetUpAdmin(const std::string& listen, const std::string& token_out,
                              const std::string& database_url) {
  AdminSetup setup;
  if (listen == "off") return setup;
  GH_ASSIGN_OR_RETURN(std::string token, LoadSecretVariable("GATEHOUSE_ADMIN_TOKEN"));
  GH_RETURN_IF_ERROR(admin::CheckAdminListen(listen, !token.empty()));
  if (token.empty()) {
    GH_ASSIGN_OR_RETURN(token, admin::GenerateToken());
    setup.generated_token_file =
        token_out.empty() ? DefaultAdminTokenFile(database_url) : token_out;
    GH_RETURN_IF_ERROR(WritePrivateFile(setup.generated_token_file, token));
  }
  admin::AdminListenerOptions options;
  options.listen = listen;
  options.token = std::move(token);
  setup.listener = std::move(options);
  return setup;
}

}  // namespace gatehouse::app
