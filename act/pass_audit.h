// PassAudit: the audit log entries of one pass (docs/PASS.md, "Audit"; `gatehouse audit
// owner/repo#N` prints them), collected while the pass runs and appended in one transaction
// when it ends: one `verdict` entry (verdict, score, findings, policy source, the reasons the
// pass covered, what it read), a `planned` entry, one entry per skipped action with the reason,
// one per executed / reconciled / superseded / failed action, and a closing `pass` entry — or
// an `error` entry when the pass ended early.
//
// Every entry carries the pass's subject and fence and the clock's time when it was added.
//
// Not thread-safe: one PassAudit belongs to one pass.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "act/executor.h"
#include "act/live_state.h"
#include "act/pass_decision.h"
#include "act/pass_outcome.h"
#include "base/clock.h"
#include "github/errors.h"
#include "store/store.h"

namespace gatehouse::act {

class PassAudit {
 public:
  PassAudit(Store& store, const Clock& clock, std::string subject, int64_t fence);

  // One entry of `kind` about `head` ("" when none); `detail` is JSON text or "".
  void Add(std::string kind, std::string head, std::string summary, std::string detail = "");

  // The `verdict`, `planned` and `skipped` entries of `d` (the read `live`, covering `reasons`).
  void Decision(const PassDecision& d, const LiveState& live,
                const std::vector<std::string>& reasons);
  // One `reconciled` or `failed` entry per action of an open intent settled by `settled`.
  void Settled(const ExecResult& settled);
  // One entry per action of the executed plan: executed, reconciled, superseded, failed or
  // skipped (already done, not run).
  void Executed(const ExecResult& result);
  // The closing `pass` entry on `head`: how long the pass took since `started`, and whether a
  // fresh pass follows because the head moved.
  void PassDone(const std::string& head, Time started, bool superseded);

  // Ends the pass early: an `error` entry with `summary`, flushed; returns `outcome`.
  PassOutcome EndWithError(std::string summary, PassOutcome outcome);
  // Ends the pass on a failed read (`what`: "listing reviews", ...): EndWithError with
  // ReadFailureOutcome(what, error) (act/github_outcome.h).
  PassOutcome ReadFailed(std::string_view what, const GitHubError& error);

  // Appends every entry collected so far in one transaction (recoverable durability) and
  // forgets them. A store failure is logged, not returned: the audit log must never fail a
  // pass whose effects are in the ledger.
  void Flush();

 private:
  Store& store_;
  const Clock& clock_;
  const std::string subject_;
  const int64_t fence_;
  std::vector<AuditEntry> entries_;
};

}  // namespace gatehouse::act
