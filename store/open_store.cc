#include "store/open_store.h"

#include <unistd.h>

#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
namespace {

constexpr std::string_view kSqlite = "sqlite:";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

Result<StorePtr> OpenStore(std::string_view url, const StoreOptions& options) {
  if (url.empty()) return InvalidArgument("an empty store URL (give sqlite:PATH or a path)");
  if (StartsWith(url, "postgresql://") || StartsWith(url, "postgres://")) {
    return InvalidArgument("the PostgreSQL backend is not built yet; use sqlite:PATH");
  }
  std::string path(StartsWith(url, kSqlite) ? url.substr(kSqlite.size()) : url);
  if (StartsWith(path, "//")) path.erase(0, 2);  // sqlite://PATH
  if (path.empty()) return InvalidArgument("store URL " + std::string(url) + " names no file");
  if (options.must_exist && ::access(path.c_str(), F_OK) != 0) {
    return NotFound("no database at " + path);
  }
  SqliteStoreOptions sqlite;
  sqlite.busy_timeout_ms = options.busy_timeout_ms;
  return OpenSqliteStore(path, sqlite);
}

std::string DescribeStoreUrl(std::string_view url) {
  if (StartsWith(url, "postgresql://") || StartsWith(url, "postgres://")) return std::string(url);
  std::string path(StartsWith(url, kSqlite) ? url.substr(kSqlite.size()) : url);
  if (StartsWith(path, "//")) path.erase(0, 2);
  return std::string(kSqlite) + path;
}

}  // namespace gatehouse
