#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Result<IntentResult> PgStore::RecordIntent(const ActionKey& key, int64_t fence, Time now) {
  return Internal("postgres: RecordIntent is not implemented yet");
}

Status PgStore::RecordOutcome(int64_t id, int64_t fence, ActionState outcome, std::string_view result,
                       Time now) {
  return Internal("postgres: RecordOutcome is not implemented yet");
}

Result<std::vector<ActionRecord>> PgStore::ListActions(std::string_view subject) {
  return Internal("postgres: ListActions is not implemented yet");
}


}  // namespace gatehouse::postgres
