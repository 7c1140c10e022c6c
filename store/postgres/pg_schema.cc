#include "store/postgres/pg_schema.h"

#include <string>

#include "base/log.h"

namespace gatehouse::postgres {
namespace {

// The advisory lock every migration transaction takes first ("gatehous" in ASCII).
constexpr int64_t kMigrationLock = 0x6761746568'6f7573;

// The SQLite schema after its migration 7, in PostgreSQL types. As there: every time is BIGINT
// microseconds since the Unix epoch (UTC); ids are BIGSERIAL where SQLite has INTEGER PRIMARY
// KEY (rowid aliases); a 0/1 flag is BOOLEAN; BLOB is BYTEA; every other integer is BIGINT,
// as SQLite's INTEGER is 64-bit. Keys, unique constraints, checks and (partial) indexes are
// the same, by the same names.
constexpr const char kV1[] = R"sql(
CREATE TABLE work_items (
  key                TEXT PRIMARY KEY,
  state              TEXT NOT NULL CHECK (state IN ('idle', 'pending', 'running', 'dead')),
  requested_gen      BIGINT NOT NULL DEFAULT 0,
  claimed_gen        BIGINT NOT NULL DEFAULT 0,
  done_gen           BIGINT NOT NULL DEFAULT 0,
  reasons            TEXT NOT NULL DEFAULT '',   -- arrived since the last claim
  claimed_reasons    TEXT NOT NULL DEFAULT '',   -- covered by the running or failed pass
  due_at             BIGINT,                     -- NULL: no pass wanted
  backoff_until      BIGINT,                     -- floor for due_at after a failure
  lease_owner        TEXT,
  lease_until        BIGINT,
  fence              BIGINT NOT NULL DEFAULT 0,
  attempts           BIGINT NOT NULL DEFAULT 0,  -- transient budget (count)
  availability_since BIGINT,                     -- unavailable budget (wall clock)
  last_error         TEXT NOT NULL DEFAULT '',
  created_at         BIGINT NOT NULL,
  updated_at         BIGINT NOT NULL,
  woken              BOOLEAN NOT NULL DEFAULT false,  -- Wake marked it while running
  CHECK (claimed_gen <= requested_gen AND done_gen <= claimed_gen)
);
CREATE INDEX work_items_due ON work_items (due_at) WHERE state = 'pending';
CREATE INDEX work_items_lease ON work_items (lease_until) WHERE state = 'running';

-- The webhook inbox (DESIGN.md §4), with claimed routing (docs/STORE.md).
CREATE TABLE inbox (
  seq             BIGSERIAL PRIMARY KEY,         -- arrival order
  delivery_id     TEXT NOT NULL UNIQUE,          -- X-GitHub-Delivery
  event           TEXT NOT NULL,                 -- X-GitHub-Event
  action          TEXT NOT NULL DEFAULT '',
  installation_id BIGINT,
  body            BYTEA NOT NULL,
  body_encoding   TEXT NOT NULL DEFAULT 'identity' CHECK (body_encoding IN ('identity', 'zlib')),
  body_sha256     TEXT NOT NULL,
  received_at     BIGINT NOT NULL,
  state           TEXT NOT NULL
                  CHECK (state IN ('accepted', 'unresolved', 'routed', 'ignored', 'dead')),
  state_reason    TEXT NOT NULL DEFAULT '',
  attempts        BIGINT NOT NULL DEFAULT 0,
  finished_at     BIGINT,
  claim           BIGINT NOT NULL DEFAULT 0,     -- the latest claim's token
  claim_owner     TEXT,                          -- NULL: not claimed
  claim_until     BIGINT                         -- the claim's lease
);
CREATE INDEX inbox_open ON inbox (seq) WHERE state IN ('accepted', 'unresolved');

-- Same delivery id, different body: kept for the operator, never routed.
CREATE TABLE inbox_conflicts (
  id          BIGSERIAL PRIMARY KEY,
  delivery_id TEXT NOT NULL,
  body_sha256 TEXT NOT NULL,
  received_at BIGINT NOT NULL
);

-- Funnel and engine counters, each store instance adding to its own shard.
CREATE TABLE counter_shards (
  name  TEXT NOT NULL,
  shard BIGINT NOT NULL,
  value BIGINT NOT NULL,
  PRIMARY KEY (name, shard)
);

-- The last known head of each open pull request.
CREATE TABLE pr_heads (
  key        TEXT PRIMARY KEY,  -- subject key, owner/repo#number
  repo       TEXT NOT NULL,     -- owner/repo
  head_sha   TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX pr_heads_sha ON pr_heads (repo, head_sha);

-- The action ledger (DESIGN.md §3): one row per idempotency key, per head occurrence.
CREATE TABLE actions (
  id              BIGSERIAL PRIMARY KEY,
  subject         TEXT NOT NULL,
  kind            TEXT NOT NULL,
  head_sha        TEXT NOT NULL,
  head_occurrence BIGINT NOT NULL DEFAULT 1 CHECK (head_occurrence >= 1),
  detail          TEXT NOT NULL DEFAULT '',
  state           TEXT NOT NULL CHECK (state IN ('intent', 'done', 'failed', 'superseded')),
  fence           BIGINT NOT NULL,            -- the claim that last wrote the row
  attempts        BIGINT NOT NULL DEFAULT 1,
  result          TEXT NOT NULL DEFAULT '',
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  UNIQUE (subject, kind, head_sha, head_occurrence, detail)
);
CREATE INDEX actions_subject ON actions (subject, id);

-- Head occurrences (docs/ACTIONS.md).
CREATE TABLE head_occurrences (
  subject     TEXT NOT NULL,    -- owner/repo#number
  seq         BIGINT NOT NULL,  -- 1, 2, ... in the order the occurrences started
  head_sha    TEXT NOT NULL,
  occurrence  BIGINT NOT NULL,  -- 1 + earlier occurrences of head_sha for the subject
  github_at   BIGINT NOT NULL,  -- the PR's updated_at on GitHub when first read
  observed_at BIGINT NOT NULL,  -- gatehouse's clock then
  fence       BIGINT NOT NULL,  -- the claim that started it
  PRIMARY KEY (subject, seq),
  UNIQUE (subject, head_sha, occurrence)
);

-- What routing learns: repositories and their installation, small per-PR facts.
CREATE TABLE repositories (
  repo            TEXT PRIMARY KEY,  -- owner/repo, lower-case
  installation_id BIGINT,            -- NULL: personal-token mode or not yet known
  updated_at      BIGINT NOT NULL
);

CREATE TABLE pr_facts (
  subject TEXT NOT NULL,  -- owner/repo#number
  name    TEXT NOT NULL,
  value   TEXT NOT NULL,
  at      BIGINT NOT NULL,
  PRIMARY KEY (subject, name)
);

-- The append-only audit log of every verdict and action.
CREATE TABLE audit (
  id       BIGSERIAL PRIMARY KEY,
  subject  TEXT NOT NULL,
  at       BIGINT NOT NULL,
  fence    BIGINT NOT NULL DEFAULT 0,
  head_sha TEXT NOT NULL DEFAULT '',
  kind     TEXT NOT NULL,
  summary  TEXT NOT NULL DEFAULT '',
  detail   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_subject ON audit (subject, id);

-- Reviewer dispatch (docs/STORE.md, "Review runs").
CREATE TABLE review_runs (
  id             BIGSERIAL PRIMARY KEY,
  subject        TEXT NOT NULL,                -- owner/repo#number
  role           TEXT NOT NULL,
  head_sha       TEXT NOT NULL,
  "trigger"      TEXT NOT NULL,                -- 'auto' or 'comment:<id>'
  state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'finished', 'done',
                                                'cancelled', 'superseded')),
  reviewer       TEXT NOT NULL DEFAULT '',     -- '' until assigned
  assigned_at    BIGINT,
  assigned_fence BIGINT NOT NULL DEFAULT 0,
  starts         BIGINT NOT NULL DEFAULT 0,
  result_json    TEXT NOT NULL DEFAULT '',
  reason         TEXT NOT NULL DEFAULT '',
  review_id      BIGINT NOT NULL DEFAULT 0,
  created_at     BIGINT NOT NULL,
  updated_at     BIGINT NOT NULL,
  UNIQUE (subject, role, head_sha, "trigger")
);
CREATE INDEX review_runs_subject ON review_runs (subject, id);
CREATE INDEX review_runs_affinity ON review_runs (subject, role, assigned_at)
  WHERE assigned_at IS NOT NULL;
CREATE INDEX review_runs_open ON review_runs (subject, role)
  WHERE state IN ('queued', 'running', 'finished');

CREATE TABLE reviewers (
  name       TEXT PRIMARY KEY,
  paused     BOOLEAN NOT NULL DEFAULT false,
  updated_at BIGINT NOT NULL
);

CREATE TABLE reviewer_slots (
  reviewer    TEXT NOT NULL,
  holder_key  TEXT NOT NULL,    -- the holder's work item
  fence       BIGINT NOT NULL,  -- the holder's claim that took the slot
  run_id      BIGINT NOT NULL,  -- the run it was taken for
  acquired_at BIGINT NOT NULL,
  PRIMARY KEY (reviewer, holder_key)
);
CREATE INDEX reviewer_slots_holder ON reviewer_slots (holder_key);

-- reason_union(a, b): the union of two comma-joined reason sets, sorted in byte order ("C", as
-- SQLite's BINARY and std::sort), de-duplicated, empty strings dropped, '' when none; as
-- UnionReasons in C++ (SQLite registers that one as its reason_union). Merging reasons is
-- part of the one upsert statement instead of a read-modify-write.
CREATE FUNCTION reason_union(a TEXT, b TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT COALESCE(string_agg(u.r, ',' ORDER BY u.r COLLATE "C"), '')
  FROM (SELECT DISTINCT r FROM unnest(string_to_array(COALESCE(a, ''), ',') ||
                                      string_to_array(COALESCE(b, ''), ',')) AS t(r)
        WHERE r <> '') AS u
$$;
)sql";

// SQLite's version 8: recovered deliveries and the recovery high-water mark (docs/INGRESS.md,
// "Recovering missed deliveries").
constexpr const char kV2[] = R"sql(
ALTER TABLE inbox ADD COLUMN recovered BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE recovery_mark (
  name       TEXT PRIMARY KEY,   -- 'app_hook'
  attempt_id BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
)sql";

// SQLite's version 9: the admin API lists the ledger's open intents (docs/ADMIN_API.md).
constexpr const char kV3[] = R"sql(
CREATE INDEX actions_open ON actions (id) WHERE state = 'intent';
)sql";

// The earliest signal no pass has claimed yet (SQLite v10).
constexpr const char kV4[] = R"sql(
ALTER TABLE work_items ADD COLUMN signalled_at BIGINT;
)sql";

// The request headers worth keeping (SQLite v11).
constexpr const char kV5[] = R"sql(
ALTER TABLE inbox ADD COLUMN headers TEXT NOT NULL DEFAULT '';
)sql";

// The merge queues' entries (SQLite v12; docs/MERGE_QUEUE.md, store/merge_queue.h).
constexpr const char kV6[] = R"sql(
CREATE TABLE queue_entries (
  id              BIGSERIAL PRIMARY KEY,
  queue           TEXT NOT NULL,     -- owner/repo@base/queue: the queue's work item
  subject         TEXT NOT NULL,     -- owner/repo#number
  head_sha        TEXT NOT NULL,
  head_occurrence BIGINT NOT NULL DEFAULT 1 CHECK (head_occurrence >= 1),
  priority        BIGINT NOT NULL DEFAULT 0,
  state           TEXT NOT NULL CHECK (state IN ('queued', 'updating', 'testing', 'merging',
                                                 'merged', 'dropped')),
  tested_sha      TEXT NOT NULL DEFAULT '',
  deadline        BIGINT,
  reason          TEXT NOT NULL DEFAULT '',
  entered_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  UNIQUE (subject, head_sha, head_occurrence)
);
CREATE INDEX queue_entries_open ON queue_entries (queue) WHERE state NOT IN ('merged', 'dropped');
CREATE INDEX queue_entries_ended ON queue_entries (queue, updated_at)
  WHERE state IN ('merged', 'dropped');
CREATE INDEX queue_entries_subject ON queue_entries (subject, id);
)sql";

// The batch an entry is tested in (SQLite v13; store/merge_queue.h QueueEntry::batch).
constexpr const char kV7[] = R"sql(
ALTER TABLE queue_entries ADD COLUMN batch BIGINT NOT NULL DEFAULT 0;
)sql";

// The command that admitted an entry joins its unique key (SQLite v14).
constexpr const char kV8[] = R"sql(
ALTER TABLE queue_entries ADD COLUMN admitted_by BIGINT NOT NULL DEFAULT 0;
ALTER TABLE queue_entries DROP CONSTRAINT queue_entries_subject_head_sha_head_occurrence_key;
ALTER TABLE queue_entries ADD CONSTRAINT queue_entries_head_admitted_key
  UNIQUE (subject, head_sha, head_occurrence, admitted_by);
)sql";

constexpr PgMigration kMigrations[] = {
    {1, "the SQLite schema at its version 7", kV1},
    {2, "recovered deliveries, the recovery high-water mark", kV2},
    {3, "open intents by id", kV3},
    {4, "work items: the earliest unclaimed signal", kV4},
    {5, "deliveries: their request headers", kV5},
    {6, "merge queue entries", kV6},
    {7, "merge queue entries: their batch", kV7},
    {8, "merge queue entries: the command that admitted them", kV8},
};

// Under the lock, so that concurrent first starts do not race on CREATE TABLE (which is not
// safe against itself even with IF NOT EXISTS).
constexpr const char kCreateMigrations[] =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)";

Status Lock(PgConn& conn) {
  Result<PgResult> r = conn.ExecPrepared("schema.lock", "SELECT pg_advisory_xact_lock($1)",
                                         {PgParam::Int(kMigrationLock)});
  GH_RETURN_IF_ERROR(r.ok() ? Status::Ok() : r.status());
  return conn.ExecScript(kCreateMigrations);
}

Result<int> MaxVersion(PgConn& conn) {
  GH_ASSIGN_OR_RETURN(PgResult r,
                      conn.Exec("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"));
  return static_cast<int>(r.Int(0, 0));
}

}  // namespace

std::span<const PgMigration> PgMigrations() { return kMigrations; }

Result<PgSchemaReport> MigrateSchema(PgConn& conn) {
  const int newest = PgMigrations().back().version;
  PgSchemaReport report;
  for (const PgMigration& m : PgMigrations()) {
    bool applied = false;  // by this call (the body may run more than once)
    Status s = conn.RunTransaction(Durability::kAcknowledged, [&](PgConn& c) -> Status {
      applied = false;
      GH_RETURN_IF_ERROR(Lock(c));
      GH_ASSIGN_OR_RETURN(int version, MaxVersion(c));
      if (version > newest) {
        return FailedPrecondition("the database's schema version " + std::to_string(version) +
                                  " is newer than this binary's " + std::to_string(newest));
      }
      GH_ASSIGN_OR_RETURN(
          PgResult done,
          c.ExecPrepared("schema.applied", "SELECT 1 FROM schema_migrations WHERE version = $1",
                         {PgParam::Int(m.version)}));
      if (done.rows() > 0) return Status::Ok();  // another process got here first
      GH_RETURN_IF_ERROR(c.ExecScript(m.sql));
      Result<PgResult> ins = c.ExecPrepared(
          "schema.record",
          "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, "
          "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT)",
          {PgParam::Int(m.version), PgParam::Text(m.name)});
      GH_RETURN_IF_ERROR(ins.ok() ? Status::Ok() : ins.status());
      applied = true;
      return Status::Ok();
    });
    GH_RETURN_IF_ERROR(s.WithContext("postgres migration " + std::to_string(m.version)));
    if (applied) {
      ++report.applied;
      Log(LogLevel::kInfo, "store.migrated").Field("version", m.version).Field("name", m.name);
    }
  }
  GH_ASSIGN_OR_RETURN(report.version, PgSchemaVersion(conn));
  return report;
}

Result<int> PgSchemaVersion(PgConn& conn) {
  GH_ASSIGN_OR_RETURN(PgResult exists,
                      conn.Exec("SELECT to_regclass('schema_migrations') IS NOT NULL"));
  if (!exists.Bool(0, 0)) return 0;
  return MaxVersion(conn);
}

}  // namespace gatehouse::postgres
