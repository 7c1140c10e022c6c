// PgStore: the webhook inbox (DESIGN.md §4): accepting deliveries, the reads, the recovery
// high-water mark and the funnel; applying the router's decisions is pg_routing.cc. The semantics
// are SQLite's (store/sqlite/sqlite_inbox.cc); what differs is how they hold up when several
// processes write at once, noted where it matters.
#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/compress.h"
#include "store/postgres/pg_array.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

// Inserts `firsts` (each delivery id once) in their order, skipping ids already stored, and
// returns the ids it inserted. One statement for the batch. ORDER BY ord makes seq follow the
// batch order, as SQLite's one-by-one inserts do. NOT EXISTS skips known ids without spending
// a seq on them; ON CONFLICT DO NOTHING covers an id that a concurrent transaction stores
// first (READ COMMITTED: the insert waits for it, and skips the row when it commits).
Result<std::vector<std::string>> InsertNew(PgConn& c, const std::vector<const Delivery*>& firsts) {
  BinaryArray ids(BinaryArray::kText), events(BinaryArray::kText), actions(BinaryArray::kText),
      installations(BinaryArray::kInt8), bodies(BinaryArray::kBytea), encodings(BinaryArray::kText),
      shas(BinaryArray::kText), received(BinaryArray::kInt8), recovered(BinaryArray::kText),
      headers(BinaryArray::kText);
  for (const Delivery* d : firsts) {
    ids.Add(d->delivery_id);
    events.Add(d->event);
    actions.Add(d->action);
    if (d->installation_id) {
      installations.AddInt(*d->installation_id);
    } else {
      installations.AddNull();
    }
    bodies.Add(d->body);
    encodings.Add(d->encoding == Delivery::Encoding::kZlib ? "zlib" : "identity");
    shas.Add(d->body_sha256);
    received.AddInt(ToMicros(d->received_at));
    recovered.Add(d->recovered ? "t" : "f");
    headers.Add(FormatHeaderLines(d->headers));
  }
  GH_ASSIGN_OR_RETURN(
      PgResult r,
      c.ExecPrepared(
          "inbox_accept_insert",
          "INSERT INTO inbox (delivery_id, event, action, installation_id, body, body_encoding, "
          "body_sha256, received_at, state, recovered, headers) "
          "SELECT t.delivery_id, t.event, t.action, t.installation_id, t.body, t.body_encoding, "
          "t.body_sha256, t.received_at, 'accepted', t.recovered::boolean, t.headers "
          "FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::bytea[], $6::text[], "
          "$7::text[], $8::int8[], $9::text[], $10::text[]) WITH ORDINALITY AS t(delivery_id, "
          "event, action, installation_id, body, body_encoding, body_sha256, received_at, "
          "recovered, headers, ord) "
          "WHERE NOT EXISTS (SELECT 1 FROM inbox i WHERE i.delivery_id = t.delivery_id) "
          "ORDER BY t.ord "
          "ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id",
          {ids.Param(), events.Param(), actions.Param(), installations.Param(), bodies.Param(),
           encodings.Param(), shas.Param(), received.Param(), recovered.Param(), headers.Param()}));
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.Text(i, 0));
  return out;
}

// The stored body hash of each of `ids` (all of them stored, committed), and which of them were
// recovered (their hash says nothing: Delivery::recovered).
Status StoredHashes(PgConn& c, const std::vector<std::string>& ids,
                    std::unordered_map<std::string, std::string>* out,
                    std::unordered_set<std::string>* recovered) {
  if (ids.empty()) return Status::Ok();
  BinaryArray arr(BinaryArray::kText);
  for (const std::string& id : ids) arr.Add(id);
  GH_ASSIGN_OR_RETURN(PgResult r,
                      c.ExecPrepared("inbox_accept_hashes",
                                     "SELECT delivery_id, body_sha256, recovered::int FROM inbox "
                                     "WHERE delivery_id = ANY($1::text[])",
                                     {arr.Param()}));
  for (int i = 0; i < r.rows(); ++i) {
    (*out)[r.Text(i, 0)] = r.Text(i, 1);
    if (r.Int(i, 2) != 0) recovered->insert(r.Text(i, 0));
  }
  return Status::Ok();
}

Status InsertConflicts(PgConn& c, const std::vector<const Delivery*>& conflicts, Time now) {
  if (conflicts.empty()) return Status::Ok();
  BinaryArray ids(BinaryArray::kText), shas(BinaryArray::kText);
  for (const Delivery* d : conflicts) {
    ids.Add(d->delivery_id);
    shas.Add(d->body_sha256);
  }
  return c
      .ExecPrepared("inbox_accept_conflicts",
                    "INSERT INTO inbox_conflicts (delivery_id, body_sha256, received_at) "
                    "SELECT t.delivery_id, t.body_sha256, $3::BIGINT "
                    "FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(delivery_id, "
                    "body_sha256, ord) ORDER BY t.ord",
                    {ids.Param(), shas.Param(), PgParam::At(now)})
      .status();
}

}  // namespace

Result<std::vector<AcceptOutcome>> PgStore::AcceptDeliveries(std::span<const Delivery> deliveries,
                                                             const Counters& rejected, Time now) {
  std::vector<AcceptOutcome> out;
  if (deliveries.empty() && rejected.empty()) return out;
  // The first delivery of each id in the batch goes to the database; a later one of the same
  // id is judged, as in SQLite, against what is stored by then.
  std::vector<const Delivery*> firsts;
  {
    std::unordered_map<std::string_view, bool> seen;
    for (const Delivery& d : deliveries) {
      if (seen.emplace(d.delivery_id, true).second) firsts.push_back(&d);
    }
  }
  bool any_accepted = false;
  // Acknowledged: the caller answers GitHub 2xx on return, and GitHub never redelivers.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    out.clear();
    any_accepted = false;
    std::vector<std::string> inserted;
    if (!firsts.empty()) {
      GH_ASSIGN_OR_RETURN(inserted, InsertNew(c, firsts));
    }
    // id -> stored hash: ours where we inserted, the database's for the rest.
    std::unordered_map<std::string, std::string> stored;
    std::unordered_map<std::string, bool> ours;
    for (const std::string& id : inserted) ours[id] = true;
    std::vector<std::string> known;
    for (const Delivery* d : firsts) {
      if (ours.count(d->delivery_id)) {
        stored[d->delivery_id] = d->body_sha256;
      } else {
        known.push_back(d->delivery_id);
      }
    }
    std::unordered_set<std::string> stored_recovered;
    for (const Delivery* d : firsts) {
      if (ours.count(d->delivery_id) && d->recovered) stored_recovered.insert(d->delivery_id);
    }
    GH_RETURN_IF_ERROR(StoredHashes(c, known, &stored, &stored_recovered));
    int64_t accepted = 0, duplicate = 0, refused = 0, recovered = 0;
    std::vector<const Delivery*> conflicts;
    for (const Delivery& d : deliveries) {
      auto mine = ours.find(d.delivery_id);
      if (mine != ours.end() && mine->second) {
        mine->second = false;  // a later one of the same id meets this one, stored
        ++accepted;
        if (d.recovered) ++recovered;
        out.push_back(AcceptOutcome::kAccepted);
        continue;
      }
      auto it = stored.find(d.delivery_id);
      if (it == stored.end()) {
        // Skipped as known, yet gone now: nothing deletes inbox rows, so this is a bug.
        return Internal("delivery " + d.delivery_id + " was neither stored nor found");
      }
      if (it->second == d.body_sha256 || d.recovered || stored_recovered.count(d.delivery_id)) {
        ++duplicate;
        out.push_back(AcceptOutcome::kDuplicate);
      } else {
        conflicts.push_back(&d);
        out.push_back(AcceptOutcome::kConflict);
      }
    }
    GH_RETURN_IF_ERROR(InsertConflicts(c, conflicts, now));
    const int64_t conflict = static_cast<int64_t>(conflicts.size());
    for (const auto& [reason, n] : rejected) {
      refused += n;
      GH_RETURN_IF_ERROR(Bump(c, "inbox.rejected." + reason, n));
    }
    GH_RETURN_IF_ERROR(Bumps(c, {{"inbox.received", accepted + duplicate + conflict + refused},
                                 {"inbox.accepted", accepted},
                                 {"inbox.recovered", recovered},
                                 {"inbox.duplicate", duplicate},
                                 {"inbox.rejected.conflict", conflict},
                                 {"inbox.rejected", refused + conflict}}));
    any_accepted = accepted > 0;
    // Only new deliveries are news to the routers, as in SQLite.
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("accepting deliveries");
  if (any_accepted) NotifyCommitted(Wakeups::Topic::kDeliveries);
  return out;
}

namespace {

constexpr const char kInboxColumns[] =
    "seq, delivery_id, event, action, installation_id, body, state, state_reason, attempts, "
    "received_at, body_encoding, claim";

// A corrupt compressed body is reported in the entry (the router marks the delivery dead
// with this reason) rather than failing the whole read.
InboxEntry ReadInboxEntry(const PgResult& r, int row) {
  InboxEntry e;
  e.seq = r.Int(row, 0);
  e.delivery_id = r.Text(row, 1);
  e.event = r.Text(row, 2);
  e.action = r.Text(row, 3);
  if (!r.IsNull(row, 4)) e.installation_id = r.Int(row, 4);
  e.body = r.Bytes(row, 5);
  e.state = ParseInboxState(r.Text(row, 6));
  e.state_reason = r.Text(row, 7);
  e.attempts = static_cast<int>(r.Int(row, 8));
  e.received_at = r.TimeAt(row, 9);
  e.claim = r.Int(row, 11);
  if (r.Text(row, 10) == "zlib") {
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

Result<std::optional<InboxEntry>> PgStore::GetDelivery(std::string_view delivery_id) {
  std::optional<InboxEntry> out;
  Status s = Read([&](PgConn& c) -> Status {
    static const std::string sql =
        std::string("SELECT ") + kInboxColumns + ", headers FROM inbox WHERE delivery_id = $1";
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("inbox_get", sql, {PgParam::Text(delivery_id)}));
    if (r.rows() > 0) {
      out = ReadInboxEntry(r, 0);
      out->headers = ParseHeaderLines(r.Text(0, 12));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading delivery " + std::string(delivery_id));
  return out;
}

Result<std::vector<InboxEntry>> PgStore::ClaimDeliveries(std::string_view owner, size_t limit,
                                                         Open which, Duration lease, Time now) {
  if (owner.empty()) return InvalidArgument("a claim needs an owner");
  if (lease.count() <= 0) return InvalidArgument("a claim needs a positive lease");
  // SQLite's LIMIT -1 (a size_t too large for int64) is no limit; LIMIT NULL says so here.
  const PgParam limit_param = limit > static_cast<size_t>(std::numeric_limits<int64_t>::max())
                                  ? PgParam::Null()
                                  : PgParam::Int(static_cast<int64_t>(limit));
  std::vector<InboxEntry> out;
  // One statement claims the batch. FOR UPDATE SKIP LOCKED: a delivery another router is
  // claiming or applying right now is passed over, not waited for; a row locked here is
  // re-checked against the WHERE on its latest version (READ COMMITTED), so one whose claim
  // was just taken or applied is not handed out again.
  // Recoverable: a claim lost in a crash only makes its deliveries claimable again.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    out.clear();
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared(
            "inbox_claim",
            "WITH picked AS (SELECT seq FROM inbox "
            "WHERE state IN ('accepted', 'unresolved') "
            "AND (state = 'accepted' OR $2::boolean) AND (state = 'unresolved' OR $3::boolean) "
            "AND (claim_until IS NULL OR claim_until <= $4) "
            "ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED) "
            "UPDATE inbox SET claim = inbox.claim + 1, claim_owner = $5, claim_until = $6 "
            "FROM picked WHERE inbox.seq = picked.seq "
            "RETURNING inbox.seq, inbox.delivery_id, inbox.event, inbox.action, "
            "inbox.installation_id, inbox.body, inbox.state, inbox.state_reason, "
            "inbox.attempts, inbox.received_at, inbox.body_encoding, inbox.claim",
            {limit_param, PgParam::Text(which != Open::kAccepted ? "true" : "false"),
             PgParam::Text(which != Open::kUnresolved ? "true" : "false"), PgParam::At(now),
             PgParam::Text(owner), PgParam::At(now + lease)}));
    for (int i = 0; i < r.rows(); ++i) out.push_back(ReadInboxEntry(r, i));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("claiming deliveries");
  // RETURNING has no order: oldest first, as claimed.
  std::sort(out.begin(), out.end(),
            [](const InboxEntry& a, const InboxEntry& b) { return a.seq < b.seq; });
  return out;
}

Result<std::vector<std::string>> PgStore::HeldDeliveryIds(
    std::span<const std::string> delivery_ids) {
  std::vector<std::string> held;
  if (delivery_ids.empty()) return held;
  BinaryArray arr(BinaryArray::kText);
  for (const std::string& id : delivery_ids) arr.Add(id);
  Status s = Read([&](PgConn& c) -> Status {
    held.clear();
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("inbox_held_ids",
                                                   "SELECT delivery_id FROM inbox "
                                                   "WHERE delivery_id = ANY($1::text[])",
                                                   {arr.Param()}));
    for (int i = 0; i < r.rows(); ++i) held.push_back(r.Text(i, 0));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("looking up held deliveries");
  return held;
}

Result<int64_t> PgStore::GetRecoveryMark() {
  int64_t mark = 0;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("recovery_mark_get",
                       "SELECT attempt_id FROM recovery_mark WHERE name = 'app_hook'", {}));
    mark = r.rows() > 0 ? r.Int(0, 0) : 0;
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the recovery mark");
  return mark;
}

Status PgStore::RaiseRecoveryMark(int64_t attempt_id, Time now) {
  if (attempt_id < 0) return InvalidArgument("a recovery mark is never negative");
  // GREATEST under the row lock the upsert takes: two nodes never move the mark back.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    return c
        .ExecPrepared("recovery_mark_raise",
                      "INSERT INTO recovery_mark (name, attempt_id, updated_at) "
                      "VALUES ('app_hook', $1, $2) ON CONFLICT (name) DO UPDATE SET "
                      "attempt_id = GREATEST(recovery_mark.attempt_id, excluded.attempt_id), "
                      "updated_at = excluded.updated_at",
                      {PgParam::Int(attempt_id), PgParam::At(now)})
        .status();
  });
  return s.WithContext("raising the recovery mark");
}

Result<Funnel> PgStore::GetFunnel() {
  Funnel f;
  // One statement, so one snapshot: the funnel adds up even while deliveries arrive.
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("inbox_funnel",
                       "SELECT name, SUM(value)::BIGINT FROM counter_shards "
                       "WHERE name IN ('inbox.received', 'inbox.routed', 'inbox.ignored', "
                       "'inbox.duplicate', 'inbox.rejected', 'inbox.dead', "
                       "'inbox.rejected.conflict', 'inbox.recovered') GROUP BY name "
                       "UNION ALL SELECT 'open', COUNT(*) FROM inbox "
                       "WHERE state IN ('accepted', 'unresolved') "
                       "UNION ALL SELECT 'open.unresolved', COUNT(*) FROM inbox "
                       "WHERE state = 'unresolved'"));
    for (int i = 0; i < r.rows(); ++i) {
      const std::string name = r.Text(i, 0);
      const int64_t v = r.Int(i, 1);
      if (name == "inbox.received") f.received = v;
      if (name == "inbox.recovered") f.recovered = v;
      if (name == "inbox.routed") f.routed = v;
      if (name == "inbox.ignored") f.ignored = v;
      if (name == "inbox.duplicate") f.duplicate = v;
      if (name == "inbox.rejected") f.rejected = v;
      if (name == "inbox.dead") f.dead = v;
      if (name == "inbox.rejected.conflict") f.conflicts = v;
      if (name == "open") f.in_flight = v;
      if (name == "open.unresolved") f.unresolved = v;
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the funnel");
  return f;
}

}  // namespace gatehouse::postgres
