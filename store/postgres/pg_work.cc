#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Status PgStore::Enqueue(std::span<const Signal> signals, Time now, Durability durability) {
  return Internal("postgres: Enqueue is not implemented yet");
}

Result<std::vector<Lease>> PgStore::Claim(std::string_view owner, size_t max_items, Duration lease,
                                   Time now) {
  return Internal("postgres: Claim is not implemented yet");
}

Result<std::vector<Status>> PgStore::Renew(std::span<const LeaseRenewal> renewals, Time now) {
  return Internal("postgres: Renew is not implemented yet");
}

Result<std::vector<Status>> PgStore::Finish(std::span<const PassFinish> finishes, Time now) {
  return Internal("postgres: Finish is not implemented yet");
}

Result<WorkQueue::Cycle> PgStore::FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                               size_t max_items, Duration lease, Time now) {
  return Internal("postgres: FinishAndClaim is not implemented yet");
}

Status PgStore::Rearm(std::string_view key, Time now) {
  return Internal("postgres: Rearm is not implemented yet");
}

Result<std::optional<WorkItem>> PgStore::GetWorkItem(std::string_view key) {
  return Internal("postgres: GetWorkItem is not implemented yet");
}

Result<std::vector<WorkItem>> PgStore::ListWorkItems(const WorkFilter& filter) {
  return Internal("postgres: ListWorkItems is not implemented yet");
}

Status PgStore::EnqueueInTx(PgConn& c, std::span<const Signal> signals, Time now) {
  return Internal("postgres: EnqueueInTx is not implemented yet");
}

}  // namespace gatehouse::postgres
