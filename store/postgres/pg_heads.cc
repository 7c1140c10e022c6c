#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Result<std::optional<HeadOccurrence>> PgStore::LatestHeadOccurrence(std::string_view subject) {
  return Internal("postgres: LatestHeadOccurrence is not implemented yet");
}

Result<HeadOccurrence> PgStore::StartHeadOccurrence(std::string_view subject, std::string_view head_sha,
                                             Time github_at, int64_t fence, Time now) {
  return Internal("postgres: StartHeadOccurrence is not implemented yet");
}

}  // namespace gatehouse::postgres
