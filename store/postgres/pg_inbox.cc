#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Result<std::vector<AcceptOutcome>> PgStore::AcceptDeliveries(std::span<const Delivery> deliveries,
                                                      const Counters& rejected, Time now) {
  return Internal("postgres: AcceptDeliveries is not implemented yet");
}

Result<std::vector<InboxEntry>> PgStore::ClaimDeliveries(std::string_view owner, size_t limit, Inbox::Open which,
                                                  Duration lease, Time now) {
  return Internal("postgres: ClaimDeliveries is not implemented yet");
}

Status PgStore::ApplyRouting(std::span<const RouteDecision> decisions, Time now) {
  return Internal("postgres: ApplyRouting is not implemented yet");
}

Result<Funnel> PgStore::GetFunnel() {
  return Internal("postgres: GetFunnel is not implemented yet");
}

Result<std::optional<InboxEntry>> PgStore::GetDelivery(std::string_view delivery_id) {
  return Internal("postgres: GetDelivery is not implemented yet");
}

}  // namespace gatehouse::postgres
