// PgStore: the append-only audit log of verdicts and actions (docs/AUDIT.md), as SQLite
// (store/sqlite/sqlite_audit.cc). Appends only insert, so concurrent writers never meet; ids
// come from the sequence, increasing along each span.
#include <algorithm>
#include <limits>
#include <string>

#include "store/postgres/pg_array.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {

Status PgStore::AppendAudit(std::span<const AuditEntry> entries, Durability durability) {
  for (const AuditEntry& e : entries) GH_RETURN_IF_ERROR(ValidateAuditEntry(e));
  if (entries.empty()) return Status::Ok();
  Status s = Write(durability, [&](PgConn& c) -> Status { return AppendAuditInTx(c, entries); });
  return s.WithContext("appending to the audit log");
}

Status PgStore::AppendAuditInTx(PgConn& c, std::span<const AuditEntry> entries) {
  if (entries.empty()) return Status::Ok();
  BinaryArray subjects(BinaryArray::kText), ats(BinaryArray::kInt8), fences(BinaryArray::kInt8),
      heads(BinaryArray::kText), kinds(BinaryArray::kText), summaries(BinaryArray::kText),
      details(BinaryArray::kText);
  for (const AuditEntry& e : entries) {
    subjects.Add(e.subject);
    ats.AddInt(ToMicros(e.at));
    fences.AddInt(e.fence);
    heads.Add(e.head_sha);
    kinds.Add(e.kind);
    summaries.Add(e.summary);
    details.Add(e.detail);
  }
  // One statement for the batch; ORDER BY the ordinality so that ids increase along the span.
  GH_RETURN_IF_ERROR(
      c.ExecPrepared("audit_append_batch",
                     "INSERT INTO audit (subject, at, fence, head_sha, kind, summary, detail) "
                     "SELECT subject, at, fence, head_sha, kind, summary, detail FROM "
                     "unnest($1::text[], $2::int8[], $3::int8[], $4::text[], $5::text[], "
                     "$6::text[], $7::text[]) WITH ORDINALITY AS t(subject, at, fence, head_sha, "
                     "kind, summary, detail, n) ORDER BY n",
                     {subjects.Param(), ats.Param(), fences.Param(), heads.Param(), kinds.Param(),
                      summaries.Param(), details.Param()})
          .status());
  return Bump(c, "audit.entries", static_cast<int64_t>(entries.size()));
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
