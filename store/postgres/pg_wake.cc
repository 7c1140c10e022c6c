#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Status PgStore::Wake(std::span<const std::string> keys, Time now) {
  return Internal("postgres: Wake is not implemented yet");
}

}  // namespace gatehouse::postgres
