// SqliteStore: the webhook inbox (DESIGN.md §4) and the PR heads used to resolve commits;
// what else routing learned is applied by sqlite_repos.cc in the same transaction.
#include <sqlite3.h>

#include <algorithm>
#include <string>

#include "base/compress.h"
#include "base/subject.h"
#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
Result<std::vector<AcceptOutcome>> SqliteStore::AcceptDeliveries(
    std::span<const Delivery> deliveries, const Counters& rejected, Time now) {
  std::vector<AcceptOutcome> out;
  if (deliveries.empty() && rejected.empty()) return out;
  Status s;
  {
    MutexLock lock(&mu_);
    // Acknowledged: the caller answers GitHub 2xx on return, and GitHub never redelivers.
    s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
      out.clear();
      int64_t accepted = 0, duplicate = 0, conflict = 0, refused = 0, recovered = 0;
      for (const Delivery& d : deliveries) {
        // Insert first and look only when the id is taken: a new delivery (nearly every one)
        // costs one statement, not a lookup and then an insert.
        GH_ASSIGN_OR_RETURN(
            auto ins,
            db_->Prepare("INSERT INTO inbox (delivery_id, event, action, installation_id, body, "
                         "body_encoding, body_sha256, received_at, state, recovered, headers) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?8, ?6, ?7, 'accepted', ?9, ?10) "
                         "ON CONFLICT (delivery_id) DO NOTHING"));
        ins->Bind(1, d.delivery_id).Bind(2, d.event).Bind(3, d.action);
        if (d.installation_id) {
          ins->Bind(4, *d.installation_id);
        } else {
          ins->BindNull(4);
        }
        ins->BindBlob(5, d.body).Bind(6, d.body_sha256).Bind(7, d.received_at);
        ins->Bind(8, d.encoding == Delivery::Encoding::kZlib ? "zlib" : "identity");
        ins->Bind(9, static_cast<int64_t>(d.recovered ? 1 : 0));
        ins->Bind(10, FormatHeaderLines(d.headers));
        GH_RETURN_IF_ERROR(ins->Run().WithContext("storing delivery " + d.delivery_id));
        ins.reset();
        if (sqlite3_changes(db_->raw()) == 1) {
          ++accepted;
          if (d.recovered) ++recovered;
          out.push_back(AcceptOutcome::kAccepted);
          continue;
        }
        // The id is taken (by an earlier batch, or earlier in this one).
        GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT body_sha256, recovered FROM inbox "
                                                 "WHERE delivery_id = ?1"));
        q->Bind(1, d.delivery_id);
        GH_ASSIGN_OR_RETURN(bool exists, q->Step());
        if (!exists) return Internal("delivery " + d.delivery_id + ": taken, yet not found");
        // A recovered body is a re-serialization: its hash says nothing (Delivery::recovered).
        const bool same = q->Text(0) == d.body_sha256 || q->Int(1) != 0 || d.recovered;
        q.reset();
        if (same) {
          ++duplicate;
          out.push_back(AcceptOutcome::kDuplicate);
          continue;
        }
        GH_ASSIGN_OR_RETURN(auto c, db_->Prepare("INSERT INTO inbox_conflicts (delivery_id, "
                                                 "body_sha256, received_at) VALUES (?1, ?2, ?3)"));
        c->Bind(1, d.delivery_id).Bind(2, d.body_sha256).Bind(3, now);
        GH_RETURN_IF_ERROR(c->Run());
        ++conflict;
        out.push_back(AcceptOutcome::kConflict);
      }
      for (const auto& [reason, n] : rejected) {
        refused += n;
        GH_RETURN_IF_ERROR(Bump("inbox.rejected." + reason, n));
      }
      GH_RETURN_IF_ERROR(Bump("inbox.received", accepted + duplicate + conflict + refused));
      GH_RETURN_IF_ERROR(Bump("inbox.accepted", accepted));
      GH_RETURN_IF_ERROR(Bump("inbox.recovered", recovered));
      GH_RETURN_IF_ERROR(Bump("inbox.duplicate", duplicate));
      GH_RETURN_IF_ERROR(Bump("inbox.rejected.conflict", conflict));
      return Bump("inbox.rejected", refused + conflict);
    });
  }
  if (!s.ok()) return s.WithContext("accepting deliveries");
  if (std::find(out.begin(), out.end(), AcceptOutcome::kAccepted) != out.end()) {
    wakeups_.Notify(Wakeups::Topic::kDeliveries);
  }
  return out;
}

namespace {

constexpr const char kInboxColumns[] =
    "seq, delivery_id, event, action, installation_id, body, state, state_reason, attempts, "
    "received_at, body_encoding, claim";

// A corrupt compressed body is reported in the entry (the router marks the delivery dead
// with this reason) rather than failing the whole read.
InboxEntry ReadInboxEntry(const sqlite::Stmt& q) {
  InboxEntry e;
  e.seq = q.Int(0);
  e.delivery_id = q.Text(1);
  e.event = q.Text(2);
  e.action = q.Text(3);
  if (!q.IsNull(4)) e.installation_id = q.Int(4);
  e.body = q.Text(5);
  e.state = ParseInboxState(q.Text(6));
  e.state_reason = q.Text(7);
  e.attempts = static_cast<int>(q.Int(8));
  e.received_at = q.TimeAt(9);
  e.claim = q.Int(11);
  if (q.Text(10) == "zlib") {
    auto raw = ZlibDecompress(e.body);
    if (raw.ok()) {
      e.body = std::move(raw).value();
    } else {
      e.body.clear();
      e.body_error = raw.status().message();
    }
  }
  return e;
}

}  // namespace

Result<std::optional<InboxEntry>> SqliteStore::GetDelivery(std::string_view delivery_id) {
  static const std::string sql =
      std::string("SELECT ") + kInboxColumns + ", headers FROM inbox WHERE delivery_id = ?1";
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, delivery_id);
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<InboxEntry>();
  InboxEntry e = ReadInboxEntry(*q);
  e.headers = ParseHeaderLines(q->Text(12));
  return std::optional<InboxEntry>(std::move(e));
}

Result<std::vector<std::string>> SqliteStore::HeldDeliveryIds(
    std::span<const std::string> delivery_ids) {
  std::vector<std::string> held;
  if (delivery_ids.empty()) return held;
  MutexLock lock(&mu_);
  // One read transaction over the cached point lookup: a snapshot, no per-id transaction.
  Status s = db_->ReadTransaction([&]() REQUIRES(mu_) -> Status {
    held.clear();
    for (const std::string& id : delivery_ids) {
      GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT 1 FROM inbox WHERE delivery_id = ?1"));
      q->Bind(1, id);
      GH_ASSIGN_OR_RETURN(bool row, q->Step());
      if (row) held.push_back(id);
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("looking up held deliveries");
  return held;
}

Result<int64_t> SqliteStore::GetRecoveryMark() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q,
                      db_->Prepare("SELECT attempt_id FROM recovery_mark WHERE name = 'app_hook'"));
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  return row ? q->Int(0) : int64_t{0};
}

Status SqliteStore::RaiseRecoveryMark(int64_t attempt_id, Time now) {
  if (attempt_id < 0) return InvalidArgument("a recovery mark is never negative");
  MutexLock lock(&mu_);
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    GH_ASSIGN_OR_RETURN(auto q,
                        db_->Prepare("INSERT INTO recovery_mark (name, attempt_id, updated_at) "
                                     "VALUES ('app_hook', ?1, ?2) ON CONFLICT (name) DO UPDATE SET "
                                     "attempt_id = MAX(attempt_id, excluded.attempt_id), "
                                     "updated_at = excluded.updated_at"));
    q->Bind(1, attempt_id).Bind(2, now);
    return q->Run();
  });
  return s.WithContext("raising the recovery mark");
}

Result<std::vector<InboxEntry>> SqliteStore::ClaimDeliveries(std::string_view owner, size_t limit,
                                                             Open which, Duration lease, Time now) {
  static const std::string sql = std::string("SELECT ") + kInboxColumns +
                                 " FROM inbox INDEXED BY inbox_open "
                                 "WHERE state IN ('accepted', 'unresolved') "
                                 "AND (state = 'accepted' OR ?2) AND (state = 'unresolved' OR ?3) "
                                 "AND (claim_until IS NULL OR claim_until <= ?4) "
                                 "ORDER BY seq LIMIT ?1";
  if (owner.empty()) return InvalidArgument("a claim needs an owner");
  if (lease.count() <= 0) return InvalidArgument("a claim needs a positive lease");
  std::vector<InboxEntry> out;
  MutexLock lock(&mu_);
  // Recoverable: a claim lost in a crash only makes its deliveries claimable again.
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    out.clear();
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
    q->Bind(1, static_cast<int64_t>(limit));
    q->Bind(2, static_cast<int64_t>(which != Open::kAccepted));
    q->Bind(3, static_cast<int64_t>(which != Open::kUnresolved));
    q->Bind(4, now);
    while (true) {
      GH_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      out.push_back(ReadInboxEntry(*q));
    }
    q.reset();
    for (InboxEntry& e : out) {
      GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE inbox SET claim = claim + 1, "
                                               "claim_owner = ?2, claim_until = ?3 "
                                               "WHERE seq = ?1"));
      u->Bind(1, e.seq).Bind(2, owner).Bind(3, now + lease);
      GH_RETURN_IF_ERROR(u->Run());
      e.claim += 1;
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("claiming deliveries");
  return out;
}

Status SqliteStore::ApplyRouting(std::span<const RouteDecision> decisions, Time now) {
  GH_RETURN_IF_ERROR(ValidateRouteDecisions(decisions));
  if (decisions.empty()) return Status::Ok();
  bool signalled = false;
  Status s;
  {
    MutexLock lock(&mu_);
    // Recoverable: the inbox row is already durable; if this is lost, the delivery is still
    // open and is routed again (and signals are idempotent in effect: one more pass at most).
    s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
      signalled = false;
      int64_t routed = 0, ignored = 0, dead = 0, audited = 0;
      for (const RouteDecision& d : decisions) {
        GH_ASSIGN_OR_RETURN(
            auto u, db_->Prepare("UPDATE inbox SET state = ?2, state_reason = ?3, "
                                 "attempts = attempts + 1, finished_at = ?4, claim_owner = NULL, "
                                 "claim_until = NULL WHERE seq = ?1 AND claim = ?5 AND "
                                 "state IN ('accepted', 'unresolved')"));
        u->Bind(1, d.seq).Bind(2, InboxStateName(d.state)).Bind(3, d.reason).Bind(5, d.claim);
        if (IsTerminal(d.state)) {
          u->Bind(4, now);
        } else {
          u->BindNull(4);
        }
        GH_RETURN_IF_ERROR(u->Run());
        // No longer open, or claimed since by another router, which decides it.
        if (sqlite3_changes(db_->raw()) != 1) continue;
        GH_RETURN_IF_ERROR(EnqueueInTx(d.signals, now));
        signalled |= !d.signals.empty();
        for (const auto& [key, sha] : d.heads) {
          if (sha.empty()) {
            GH_ASSIGN_OR_RETURN(auto del, db_->Prepare("DELETE FROM pr_heads WHERE key = ?1"));
            del->Bind(1, key);
            GH_RETURN_IF_ERROR(del->Run());
            continue;
          }
          GH_ASSIGN_OR_RETURN(
              auto up,
              db_->Prepare("INSERT INTO pr_heads (key, repo, head_sha, updated_at) "
                           "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (key) DO UPDATE SET "
                           "head_sha = excluded.head_sha, updated_at = excluded.updated_at"));
          const std::string repo = RepoOfSubjectKey(key);
          up->Bind(1, key).Bind(2, repo).Bind(3, sha).Bind(4, now);
          GH_RETURN_IF_ERROR(up->Run());
        }
        GH_RETURN_IF_ERROR(ApplyLearnedInTx(d, now));
        GH_RETURN_IF_ERROR(InsertAuditRowsInTx(d.audit));
        audited += static_cast<int64_t>(d.audit.size());
        routed += d.state == InboxState::kRouted;
        ignored += d.state == InboxState::kIgnored;
        dead += d.state == InboxState::kDead;
      }
      GH_RETURN_IF_ERROR(Bump("audit.entries", audited));
      GH_RETURN_IF_ERROR(Bump("inbox.routed", routed));
      GH_RETURN_IF_ERROR(Bump("inbox.ignored", ignored));
      return Bump("inbox.dead", dead);
    });
  }
  if (s.ok() && signalled) wakeups_.Notify(Wakeups::Topic::kWork);
  return s.WithContext("applying routing");
}

Result<std::vector<std::string>> SqliteStore::PullRequestsWithHead(std::string_view repo,
                                                                   std::string_view sha) {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT key FROM pr_heads WHERE repo = ?1 AND "
                                           "head_sha = ?2 ORDER BY key"));
  q->Bind(1, repo).Bind(2, sha);
  std::vector<std::string> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(q->Text(0));
  }
  return out;
}

Result<Funnel> SqliteStore::GetFunnel() {
  MutexLock lock(&mu_);
  Funnel f;
  // One snapshot, so that the funnel adds up even while deliveries arrive.
  Status s = db_->ReadTransaction([&]() REQUIRES(mu_) -> Status {
    GH_ASSIGN_OR_RETURN(auto c, db_->Prepare("SELECT name, SUM(value) FROM counter_shards "
                                             "WHERE name IN ('inbox.received', 'inbox.routed', "
                                             "'inbox.ignored', 'inbox.duplicate', "
                                             "'inbox.rejected', 'inbox.dead', "
                                             "'inbox.rejected.conflict', 'inbox.recovered') "
                                             "GROUP BY name"));
    while (true) {
      GH_ASSIGN_OR_RETURN(bool row, c->Step());
      if (!row) break;
      const std::string name = c->Text(0);
      const int64_t v = c->Int(1);
      if (name == "inbox.received") f.received = v;
      if (name == "inbox.recovered") f.recovered = v;
      if (name == "inbox.routed") f.routed = v;
      if (name == "inbox.ignored") f.ignored = v;
      if (name == "inbox.duplicate") f.duplicate = v;
      if (name == "inbox.rejected") f.rejected = v;
      if (name == "inbox.dead") f.dead = v;
      if (name == "inbox.rejected.conflict") f.conflicts = v;
    }
    c.reset();
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT COUNT(*), COALESCE(SUM(state = "
                                             "'unresolved'), 0) FROM inbox INDEXED BY inbox_open "
                                             "WHERE state IN ('accepted', 'unresolved')"));
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (row) {
      f.in_flight = q->Int(0);
      f.unresolved = q->Int(1);
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the funnel");
  return f;
}

Status SqliteStore::CheckWritable() {
  MutexLock lock(&mu_);
  GH_RETURN_IF_ERROR(db_->RunCached("BEGIN IMMEDIATE"));
  return db_->RunCached("ROLLBACK");
}

}  // namespace gatehouse
