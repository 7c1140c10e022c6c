// PgStore: head occurrences, the sequence of heads gatehouse's reads of a pull request saw
// (docs/ACTIONS.md, "Head occurrences"), as SQLite (store/sqlite/sqlite_heads.cc).
#include <string>

#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {

Result<std::optional<HeadOccurrence>> PgStore::LatestHeadOccurrence(std::string_view subject) {
  std::optional<HeadOccurrence> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r,
                        c.ExecPrepared("heads_latest",
                                       "SELECT head_sha, occurrence, github_at, observed_at "
                                       "FROM head_occurrences WHERE subject = $1 "
                                       "ORDER BY seq DESC LIMIT 1",
                                       {PgParam::Text(subject)}));
    if (r.rows() > 0) {
      out = HeadOccurrence{std::string(subject), r.Text(0, 0), r.Int(0, 1), r.TimeAt(0, 2),
                           r.TimeAt(0, 3)};
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the head of " + std::string(subject));
  return out;
}

Result<HeadOccurrence> PgStore::StartHeadOccurrence(std::string_view subject,
                                                    std::string_view head_sha, Time github_at,
                                                    int64_t fence, Time now) {
  if (subject.empty() || head_sha.empty()) {
    return InvalidArgument("a head occurrence needs a subject and a head SHA");
  }
  HeadOccurrence out{std::string(subject), std::string(head_sha), 1, github_at, now};
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, subject, fence));
    // The fence check only share-locks the work item, so two writers under the same fence
    // (one holder's threads) could both number the next occurrence alike; the transaction's
    // advisory lock on the subject orders them, and the next statement's snapshot, taken
    // after it, sees the earlier one's row. The primary key still refuses a duplicate.
    GH_RETURN_IF_ERROR(c.ExecPrepared("heads_lock",
                                      "SELECT pg_advisory_xact_lock(hashtextextended("
                                      "'head_occurrences:' || $1::text, 0))",
                                      {PgParam::Text(subject)})
                           .status());
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("heads_start",
                       "INSERT INTO head_occurrences (subject, seq, head_sha, occurrence, "
                       "github_at, observed_at, fence) "
                       "SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, "
                       "COALESCE(MAX(occurrence) FILTER (WHERE head_sha = $2), 0) + 1, "
                       "$3::BIGINT, $4::BIGINT, $5::BIGINT "
                       "FROM head_occurrences WHERE subject = $1 RETURNING occurrence",
                       {PgParam::Text(subject), PgParam::Text(head_sha), PgParam::At(github_at),
                        PgParam::At(now), PgParam::Int(fence)}));
    out.occurrence = r.Int(0, 0);
    return Bump(c, "heads.occurrences", 1);
  });
  if (!s.ok()) {
    return s.WithContext("starting an occurrence of head " + std::string(head_sha) + " on " +
                         std::string(subject));
  }
  return out;
}

}  // namespace gatehouse::postgres
