#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Status PgStore::AppendAudit(std::span<const AuditEntry> entries, Durability durability) {
  return Internal("postgres: AppendAudit is not implemented yet");
}

Result<std::vector<AuditEntry>> PgStore::ListAudit(std::string_view subject, size_t limit) {
  return Internal("postgres: ListAudit is not implemented yet");
}

}  // namespace gatehouse::postgres
