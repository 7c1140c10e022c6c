// PgStore: applying the router's decisions (store/inbox.h, ApplyRouting) — closing the decided
// deliveries, enqueueing their signals, and what they learned: the PR heads used to resolve
// commits, and (pg_repos.cc) repositories and facts, all in one transaction. The semantics
// are SQLite's (store/sqlite/sqlite_inbox.cc); what differs is how they hold up when several
// routers apply batches at once, noted where it matters.
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/subject.h"
#include "store/postgres/pg_array.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

// The heads the applied decisions name, as applying them one after another would leave
// them: per key the last decision's sha wins, and an empty sha forgets the head. One delete
// and one upsert for the batch, keys in byte order (row locks taken in one order).
Status ApplyHeadsInTx(PgConn& c, const std::vector<const RouteDecision*>& applied, Time now) {
  std::map<std::string, std::string> last;
  for (const RouteDecision* d : applied) {
    for (const auto& [key, sha] : d->heads) last[key] = sha;
  }
  if (last.empty()) return Status::Ok();
  BinaryArray forget(BinaryArray::kText), keys(BinaryArray::kText), repos(BinaryArray::kText),
      shas(BinaryArray::kText);
  for (const auto& [key, sha] : last) {
    if (sha.empty()) {
      forget.Add(key);
      continue;
    }
    keys.Add(key);
    repos.Add(RepoOfSubjectKey(key));
    shas.Add(sha);
  }
  if (forget.size() > 0) {
    GH_RETURN_IF_ERROR(c.ExecPrepared("inbox_heads_forget",
                                      "DELETE FROM pr_heads WHERE key = ANY($1::text[])",
                                      {forget.Param()})
                           .status());
  }
  if (keys.size() == 0) return Status::Ok();
  return c
      .ExecPrepared("inbox_heads_upsert",
                    "INSERT INTO pr_heads (key, repo, head_sha, updated_at) "
                    "SELECT t.key, t.repo, t.sha, $4::BIGINT "
                    "FROM unnest($1::text[], $2::text[], $3::text[]) AS t(key, repo, sha) "
                    "ON CONFLICT (key) DO UPDATE SET "
                    "head_sha = excluded.head_sha, updated_at = excluded.updated_at",
                    {keys.Param(), repos.Param(), shas.Param(), PgParam::At(now)})
      .status();
}

// Closes (or releases as unresolved) every decided delivery whose claim is still the one the
// decision was made under and which is still open, in one statement, and returns the seqs it
// changed. The claim check and the state change are one statement: a concurrent claim of the
// same row (which bumps `claim`) either commits first, and this UPDATE, re-checking the row's
// latest version, skips it; or waits for this transaction, and then finds the delivery closed
// or released. The rows are locked in seq order first (`locked`: ORDER BY runs before the
// row locks), so two routers whose batches overlap cannot deadlock.
Result<std::unordered_set<int64_t>> CloseDecided(PgConn& c,
                                                 const std::vector<const RouteDecision*>& decided,
                                                 Time now) {
  BinaryArray seqs(BinaryArray::kInt8), states(BinaryArray::kText), reasons(BinaryArray::kText),
      finished(BinaryArray::kInt8), claims(BinaryArray::kInt8);
  for (const RouteDecision* d : decided) {
    seqs.AddInt(d->seq);
    states.Add(InboxStateName(d->state));
    reasons.Add(d->reason);
    if (IsTerminal(d->state)) {
      finished.AddInt(ToMicros(now));
    } else {
      finished.AddNull();
    }
    claims.AddInt(d->claim);
  }
  GH_ASSIGN_OR_RETURN(
      PgResult r,
      c.ExecPrepared(
          "inbox_route_batch",
          "WITH t AS (SELECT * FROM unnest($1::int8[], $2::text[], $3::text[], $4::int8[], "
          "$5::int8[]) AS t(seq, state, reason, finished_at, claim)), "
          "locked AS (SELECT i.seq FROM inbox i JOIN t ON i.seq = t.seq "
          "WHERE i.claim = t.claim AND i.state IN ('accepted', 'unresolved') "
          "ORDER BY i.seq FOR UPDATE OF i) "
          "UPDATE inbox SET state = t.state, state_reason = t.reason, "
          "attempts = inbox.attempts + 1, finished_at = t.finished_at, claim_owner = NULL, "
          "claim_until = NULL FROM t, locked WHERE inbox.seq = t.seq AND locked.seq = t.seq "
          "AND inbox.claim = t.claim AND inbox.state IN ('accepted', 'unresolved') "
          "RETURNING inbox.seq",
          {seqs.Param(), states.Param(), reasons.Param(), finished.Param(), claims.Param()}));
  std::unordered_set<int64_t> closed;
  for (int i = 0; i < r.rows(); ++i) closed.insert(r.Int(i, 0));
  return closed;
}

}  // namespace

Status PgStore::ApplyRouting(std::span<const RouteDecision> decisions, Time now) {
  GH_RETURN_IF_ERROR(ValidateRouteDecisions(decisions));
  if (decisions.empty()) return Status::Ok();
  // A seq decided twice in one batch: as applied one by one, the first closes the delivery and
  // the second finds it closed.
  std::vector<const RouteDecision*> decided;
  {
    std::unordered_set<int64_t> seen;
    for (const RouteDecision& d : decisions) {
      if (seen.insert(d.seq).second) decided.push_back(&d);
    }
  }
  bool signalled = false;
  // Recoverable: the inbox row is already durable; if this is lost, the delivery is still
  // open and is routed again (and signals are idempotent in effect: one more pass at most).
  // The whole batch is a handful of statements, whatever its size: one closes the decided
  // deliveries, one enqueues all their signals, and one or two per table apply what they
  // learned, folded as applying the decisions one by one, in order, would leave it.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    signalled = false;
    GH_ASSIGN_OR_RETURN(std::unordered_set<int64_t> closed, CloseDecided(c, decided, now));
    // No longer open, or claimed since by another router, which decides it: skipped.
    std::vector<const RouteDecision*> applied;
    std::vector<Signal> signals;
    std::vector<AuditEntry> audit;
    int64_t routed = 0, ignored = 0, dead = 0;
    for (const RouteDecision* d : decided) {
      if (!closed.count(d->seq)) continue;
      applied.push_back(d);
      signals.insert(signals.end(), d->signals.begin(), d->signals.end());
      audit.insert(audit.end(), d->audit.begin(), d->audit.end());
      routed += d->state == InboxState::kRouted;
      ignored += d->state == InboxState::kIgnored;
      dead += d->state == InboxState::kDead;
    }
    if (!signals.empty()) {
      GH_RETURN_IF_ERROR(EnqueueInTx(c, signals, now));
      signalled = true;
    }
    GH_RETURN_IF_ERROR(ApplyHeadsInTx(c, applied, now));
    GH_RETURN_IF_ERROR(ApplyLearnedInTx(c, applied, now));
    GH_RETURN_IF_ERROR(AppendAuditInTx(c, audit));
    return Bumps(c, {{"inbox.routed", routed}, {"inbox.ignored", ignored}, {"inbox.dead", dead}});
  });
  if (s.ok() && signalled) NotifyCommitted(Wakeups::Topic::kWork);
  return s.WithContext("applying routing");
}

}  // namespace gatehouse::postgres
