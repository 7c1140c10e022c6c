// OpenStore: the one backend-neutral way to open a Store, named by a URL, so that nothing
// above store/ includes a backend's headers.
//
//   sqlite:PATH   or a plain PATH      the embedded SQLite backend (store/sqlite/), on the file
//                                      PATH (created with its schema unless must_exist)
//   postgresql://... or postgres://... the PostgreSQL backend (store/postgres/): libpq URL, password
//                                      from the URL, PGPASSFILE or PGPASSWORD; a binary built
//                                      without it answers kInvalidArgument saying so
//
// Pending migrations are applied before the store is returned.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"
#include "store/store.h"

namespace gatehouse {

struct StoreOptions {
  // kNotFound ("no database at ...") instead of creating a new, empty database.
  bool must_exist = false;
  int busy_timeout_ms = 10000;  // SQLite: how long a writer waits for another
  // PostgreSQL: at most this many pooled connections (--db-pool), how long a call waits for
  // one, and whether to LISTEN for other processes' new work (one more connection).
  int pool_size = 8;
  std::chrono::milliseconds acquire_timeout{10000};
  bool listen = true;
};

// True for postgresql:// and postgres:// URLs.
bool IsPostgresUrl(std::string_view url);

Result<StorePtr> OpenStore(std::string_view url, const StoreOptions& options = {});

// What OpenStore would open, for messages: "sqlite:/var/lib/gatehouse.db", or the PostgreSQL
// URL with its password replaced by "***".
std::string DescribeStoreUrl(std::string_view url);

}  // namespace gatehouse
