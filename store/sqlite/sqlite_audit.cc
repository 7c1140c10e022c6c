// SqliteStore: the append-only audit log of verdicts and actions (docs/AUDIT.md).
#include <algorithm>
#include <string>

#include "store/sqlite/sqlite_store.h"

namespace gatehouse {

Status SqliteStore::AppendAudit(std::span<const AuditEntry> entries, Durability durability) {
  for (const AuditEntry& e : entries) GH_RETURN_IF_ERROR(ValidateAuditEntry(e));
  if (entries.empty()) return Status::Ok();
  MutexLock lock(&mu_);
  Status s = db_->WriteTransaction(
      durability, [&]() REQUIRES(mu_) -> Status { return AppendAuditInTx(entries); });
  return s.WithContext("appending to the audit log");
}

Status SqliteStore::AppendAuditInTx(std::span<const AuditEntry> entries) {
  if (entries.empty()) return Status::Ok();
  GH_RETURN_IF_ERROR(InsertAuditRowsInTx(entries));
  return Bump("audit.entries", static_cast<int64_t>(entries.size()));
}

Status SqliteStore::InsertAuditRowsInTx(std::span<const AuditEntry> entries) {
  for (const AuditEntry& e : entries) {
    GH_ASSIGN_OR_RETURN(auto ins,
                        db_->Prepare("INSERT INTO audit (subject, at, fence, head_sha, kind, "
                                     "summary, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    ins->Bind(1, e.subject).Bind(2, e.at).Bind(3, e.fence).Bind(4, e.head_sha);
    ins->Bind(5, e.kind).Bind(6, e.summary).Bind(7, e.detail);
    GH_RETURN_IF_ERROR(ins->Run());
  }
  return Status::Ok();
}

Result<std::vector<AuditEntry>> SqliteStore::ListAudit(std::string_view subject, size_t limit) {
  // The newest `limit` rows by id, returned oldest first. LIMIT -1 is SQLite for "no limit".
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT id, subject, at, fence, head_sha, kind, "
                                           "summary, detail FROM audit WHERE subject = ?1 "
                                           "ORDER BY id DESC LIMIT ?2"));
  q->Bind(1, subject).Bind(2, limit == 0 ? int64_t{-1} : static_cast<int64_t>(limit));
  std::vector<AuditEntry> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    AuditEntry e;
    e.id = q->Int(0);
    e.subject = q->Text(1);
    e.at = q->TimeAt(2);
    e.fence = q->Int(3);
    e.head_sha = q->Text(4);
    e.kind = q->Text(5);
    e.summary = q->Text(6);
    e.detail = q->Text(7);
    out.push_back(std::move(e));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace gatehouse
