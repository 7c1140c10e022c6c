#include "app/db_pool.h"

namespace gatehouse::app {

int DefaultDbPool(const DbPoolNeeds& needs) { return needs.workers + needs.http_threads + 2; }

Status CheckDbPool(int pool, const DbPoolNeeds& needs, std::string* warning) {
  warning->clear();
  if (pool < 1) {
    return InvalidArgument("--db-pool " + std::to_string(pool) +
                           ": the store needs at least one connection");
  }
  const int busy = needs.workers + 2;  // workers, the router, the inbox writer
  if (pool < busy) {
    *warning = "--db-pool " + std::to_string(pool) + " is smaller than the " +
               std::to_string(needs.workers) +
               " workers plus the router and the inbox writer: they will take turns on the "
               "connections (correct, but passes wait); " +
               std::to_string(DefaultDbPool(needs)) + " lets none of them wait";
  }
  return Status::Ok();
}

}  // namespace gatehouse::app
