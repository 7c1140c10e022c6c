#include "store/open_store.h"

#include <unistd.h>

#include "store/sqlite/sqlite_store.h"
#ifdef GATEHOUSE_HAVE_POSTGRES
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_store.h"
#endif

namespace gatehouse {
namespace {

constexpr std::string_view kSqlite = "sqlite:";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

Result<StorePtr> OpenStore(std::string_view url, const StoreOptions& options) {
  if (url.empty()) return InvalidArgument("an empty store URL (give sqlite:PATH or a path)");
  if (IsPostgresUrl(url)) {
#ifdef GATEHOUSE_HAVE_POSTGRES
    if (options.pool_size < 1) {
      return InvalidArgument("the database pool needs at least 1 connection (--db-pool)");
    }
    postgres::PgStoreOptions pg;
    pg.pool_size = options.pool_size;
    pg.listen = options.listen;
    pg.acquire_timeout = options.acquire_timeout;
    auto store = postgres::OpenPgStore(std::string(url), pg);
    if (!store.ok()) return store.status();  // it names the (redacted) URL
    return StorePtr(std::move(store).value());
#else
    return InvalidArgument(
        "this gatehouse was built without the PostgreSQL backend (CMake option "
        "GATEHOUSE_POSTGRES); use sqlite:PATH or rebuild");
#endif
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

bool IsPostgresUrl(std::string_view url) {
  return StartsWith(url, "postgresql://") || StartsWith(url, "postgres://");
}

std::string DescribeStoreUrl(std::string_view url) {
#ifdef GATEHOUSE_HAVE_POSTGRES
  if (IsPostgresUrl(url)) return postgres::RedactPgUrl(url);
#else
  if (IsPostgresUrl(url)) return std::string(url);
#endif
  std::string path(StartsWith(url, kSqlite) ? url.substr(kSqlite.size()) : url);
  if (StartsWith(path, "//")) path.erase(0, 2);
  return std::string(kSqlite) + path;
}

}  // namespace gatehouse
