#include "store/postgres/pg_store.h"

// Not implemented yet: every method answers kInternal (issue 12 fills this file in).
#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace gatehouse::postgres {

Result<std::vector<RepoInstallation>> PgStore::ListRepositories() {
  return Internal("postgres: ListRepositories is not implemented yet");
}

Result<std::optional<RepoInstallation>> PgStore::GetRepository(std::string_view repo) {
  return Internal("postgres: GetRepository is not implemented yet");
}

Result<std::vector<PrFact>> PgStore::GetPrFacts(std::string_view subject) {
  return Internal("postgres: GetPrFacts is not implemented yet");
}

Result<std::vector<std::string>> PgStore::PullRequestsWithHead(std::string_view repo,
                                                        std::string_view sha) {
  return Internal("postgres: PullRequestsWithHead is not implemented yet");
}

Status PgStore::RecordLearned(std::span<const RepoInstallation> repos, std::span<const PrFact> facts,
                       Time now) {
  return Internal("postgres: RecordLearned is not implemented yet");
}

Status PgStore::ApplyLearnedInTx(PgConn& c, const RouteDecision& decision, Time now) {
  return Internal("postgres: ApplyLearnedInTx is not implemented yet");
}

}  // namespace gatehouse::postgres
