#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Result<Assignment> PgStore::AssignAndClaimSlot(int64_t id, std::span<const ReviewerSlotSpec> candidates,
                                        int64_t fence, Time now) {
  return Internal("postgres: AssignAndClaimSlot is not implemented yet");
}

Status PgStore::ReleaseSlot(std::string_view work_key, int64_t fence, Time now) {
  return Internal("postgres: ReleaseSlot is not implemented yet");
}

Status PgStore::EnsureReviewers(std::span<const std::pair<std::string, bool>> initial, Time now) {
  return Internal("postgres: EnsureReviewers is not implemented yet");
}

Status PgStore::SetPaused(std::string_view reviewer, bool paused, Time now) {
  return Internal("postgres: SetPaused is not implemented yet");
}

Result<std::vector<ReviewerState>> PgStore::ListReviewers(Time now) {
  return Internal("postgres: ListReviewers is not implemented yet");
}

}  // namespace gatehouse::postgres
