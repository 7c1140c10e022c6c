// PgStore: the append-only audit log of verdicts and actions (docs/AUDIT.md), as SQLite
// (store/sqlite/sqlite_audit.cc). Appends only insert, so concurrent writers never meet; ids
// come from the sequence, increasing along each span.
#include <algorithm>
#include <limits>
#include <string>

#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {

Status PgStore::AppendAudit(std::span<const AuditEntry> entries, Durability durability) {
  for (const AuditEntry& e : entries) GH_RETURN_IF_ERROR(ValidateAuditEntry(e));
  if (entries.empty()) return Status::Ok();
  Status s = Write(durability, [&](PgConn& c) -> Status {
    // One statement per entry, in order, so that ids increase along the span.
    for (const AuditEntry& e : entries) {
      GH_RETURN_IF_ERROR(
          c.ExecPrepared("audit_append",
                         "INSERT INTO audit (subject, at, fence, head_sha, kind, summary, detail) "
                         "VALUES ($1, $2, $3, $4, $5, $6, $7)",
                         {PgParam::Text(e.subject), PgParam::At(e.at), PgParam::Int(e.fence),
                          PgParam::Text(e.head_sha), PgParam::Text(e.kind),
                          PgParam::Text(e.summary), PgParam::Text(e.detail)})
              .status());
    }
    return Bump(c, "audit.entries", static_cast<int64_t>(entries.size()));
  });
  return s.WithContext("appending to the audit log");
}

Result<std::vector<AuditEntry>> PgStore::ListAudit(std::string_view subject, size_t limit) {
  // The newest `limit` rows by id, returned oldest first. LIMIT NULL is no limit.
  const bool unlimited =
      limit == 0 || limit > static_cast<size_t>(std::numeric_limits<int64_t>::max());
  std::vector<AuditEntry> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("audit_list",
                       "SELECT id, subject, at, fence, head_sha, kind, summary, detail FROM audit "
                       "WHERE subject = $1 ORDER BY id DESC LIMIT $2",
                       {PgParam::Text(subject),
                        unlimited ? PgParam::Null() : PgParam::Int(static_cast<int64_t>(limit))}));
    for (int i = 0; i < r.rows(); ++i) {
      AuditEntry e;
      e.id = r.Int(i, 0);
      e.subject = r.Text(i, 1);
      e.at = r.TimeAt(i, 2);
      e.fence = r.Int(i, 3);
      e.head_sha = r.Text(i, 4);
      e.kind = r.Text(i, 5);
      e.summary = r.Text(i, 6);
      e.detail = r.Text(i, 7);
      out.push_back(std::move(e));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the audit log of " + std::string(subject));
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace gatehouse::postgres
