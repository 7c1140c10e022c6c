// Sizing `gatehouse serve`'s PostgreSQL connection pool (--db-pool; docs/POSTGRES.md, "Pool
// sizing").
//
// Every store call borrows one connection for one transaction and gives it back before it
// returns; nothing holds a connection while it waits for GitHub, an executor (reviewer slots
// run inside worker passes and hold none) or another connection. So any pool of at least one
// connection is correct: a thread that finds the pool empty waits its turn. What the size
// buys is parallelism. The threads that call the store at once are the workers, the router,
// the inbox writer (which batches the HTTP threads' deliveries into one transaction), and the
// resolver, sweeper and readiness probe, which are rare.
#pragma once

#include <string>

#include "base/status.h"

namespace gatehouse::app {

struct DbPoolNeeds {
  int workers = 4;
  int http_threads = 2;
};

// The default: workers + http threads + 2, so that no thread of a busy node waits for a
// connection.
int DefaultDbPool(const DbPoolNeeds& needs);

// kInvalidArgument when `pool` cannot work (fewer than one connection). Otherwise OK; when the
// pool is smaller than the workers plus the router and the inbox writer, `*warning` says that
// passes will queue for connections (correct, slower).
Status CheckDbPool(int pool, const DbPoolNeeds& needs, std::string* warning);

}  // namespace gatehouse::app
