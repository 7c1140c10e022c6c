// SqliteStore: head occurrences, the sequence of heads gatehouse's reads of a pull request saw
// (docs/ACTIONS.md, "Head occurrences").
#include <string>

#include "store/sqlite/sqlite_store.h"

namespace gatehouse {

Result<std::optional<HeadOccurrence>> SqliteStore::LatestHeadOccurrence(std::string_view subject) {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT head_sha, occurrence, github_at, observed_at "
                                           "FROM head_occurrences WHERE subject = ?1 "
                                           "ORDER BY seq DESC LIMIT 1"));
  q->Bind(1, subject);
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<HeadOccurrence>();
  return std::optional<HeadOccurrence>(
      HeadOccurrence{std::string(subject), q->Text(0), q->Int(1), q->TimeAt(2), q->TimeAt(3)});
}

Result<HeadOccurrence> SqliteStore::StartHeadOccurrence(std::string_view subject,
                                                        std::string_view head_sha, Time github_at,
                                                        int64_t fence, Time now) {
  if (subject.empty() || head_sha.empty()) {
    return InvalidArgument("a head occurrence needs a subject and a head SHA");
  }
  HeadOccurrence out{std::string(subject), std::string(head_sha), 1, github_at, now};
  MutexLock lock(&mu_);
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    GH_RETURN_IF_ERROR(CheckFenceInTx(subject, fence));
    GH_ASSIGN_OR_RETURN(
        auto q, db_->Prepare("SELECT COALESCE(MAX(seq), 0), "
                             "COALESCE(MAX(CASE WHEN head_sha = ?2 THEN occurrence END), 0) "
                             "FROM head_occurrences WHERE subject = ?1"));
    q->Bind(1, subject).Bind(2, head_sha);
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    const int64_t seq = row ? q->Int(0) + 1 : 1;
    out.occurrence = row ? q->Int(1) + 1 : 1;
    q.reset();
    GH_ASSIGN_OR_RETURN(auto ins, db_->Prepare("INSERT INTO head_occurrences (subject, seq, "
                                               "head_sha, occurrence, github_at, observed_at, "
                                               "fence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    ins->Bind(1, subject).Bind(2, seq).Bind(3, head_sha).Bind(4, out.occurrence);
    ins->Bind(5, github_at).Bind(6, now).Bind(7, fence);
    GH_RETURN_IF_ERROR(ins->Run());
    return Bump("heads.occurrences", 1);
  });
  if (!s.ok()) {
    return s.WithContext("starting an occurrence of head " + std::string(head_sha) + " on " +
                         std::string(subject));
  }
  return out;
}

}  // namespace gatehouse
