// AuditLog: the append-only history of every verdict and action a pass took, skipped or
// failed, per subject (docs/AUDIT.md). Implementations are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/durability.h"

namespace gatehouse {

// One line of a pull request's audit log: a verdict, an action planned, skipped, executed,
// reconciled, superseded or failed, an error, or a pass summary. Append-only; written by the
// pass, read by `gatehouse audit` (docs/AUDIT.md).
struct AuditEntry {
  int64_t id = 0;  // assigned by the store on append, increasing
  std::string subject;
  Time at;
  int64_t fence = 0;     // the claim of the pass that wrote it (0 outside a pass)
  std::string head_sha;  // the head it concerns ("" when none)
  std::string kind;      // "verdict", "planned", "skipped", "executed", ...: [a-z_]+
  std::string summary;   // one line for humans
  std::string detail;    // JSON text, or ""
};

class AuditLog {
 public:
  virtual ~AuditLog() = default;

  // Appends `entries` in one transaction, in order (ids increase along the span); the store
  // assigns `id` and keeps each entry's `at`. Every entry needs a subject and a kind of
  // [a-z_]+ (kInvalidArgument otherwise, and nothing is written). Not fenced: a stale pass's
  // account of what it did is still history. Counts "audit.entries".
  virtual Status AppendAudit(std::span<const AuditEntry> entries, Durability durability) = 0;
  // The last `limit` entries of `subject` (all of them when `limit` is 0), oldest first.
  virtual Result<std::vector<AuditEntry>> ListAudit(std::string_view subject, size_t limit) = 0;
};

// Validation shared by every backend: a subject, and a kind of [a-z_]{1,64}.
Status ValidateAuditEntry(const AuditEntry& entry);

}  // namespace gatehouse
