#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Result<ReviewRuns::Requested> PgStore::RequestRun(const ReviewRunKey& key, std::string_view fence_key, int64_t fence,
                               Time now) {
  return Internal("postgres: RequestRun is not implemented yet");
}

Result<std::vector<ReviewRun>> PgStore::ListRuns(std::string_view subject,
                                          std::string_view role) {
  return Internal("postgres: ListRuns is not implemented yet");
}

Result<std::optional<ReviewRun>> PgStore::GetRun(int64_t id) {
  return Internal("postgres: GetRun is not implemented yet");
}

Status PgStore::RecordResult(int64_t id, std::string_view result_json, int64_t fence, Time now) {
  return Internal("postgres: RecordResult is not implemented yet");
}

Status PgStore::EndRun(int64_t id, RunState end, std::string_view reason, int64_t review_id, int64_t fence,
                Time now) {
  return Internal("postgres: EndRun is not implemented yet");
}

Result<std::vector<std::string>> PgStore::CancelRuns(std::string_view subject, std::string_view keep_head,
                                              std::string_view reason, std::string_view fence_key,
                                              int64_t fence, Time now) {
  return Internal("postgres: CancelRuns is not implemented yet");
}

Result<std::vector<std::string>> PgStore::WaitingWorkKeys() {
  return Internal("postgres: WaitingWorkKeys is not implemented yet");
}

Result<ReviewFunnel> PgStore::GetReviewFunnel() {
  return Internal("postgres: GetReviewFunnel is not implemented yet");
}

}  // namespace gatehouse::postgres
