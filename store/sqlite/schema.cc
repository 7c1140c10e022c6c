#include "store/sqlite/schema.h"

namespace gatehouse::sqlite {
namespace {

// All times are INTEGER microseconds since the Unix epoch (UTC).
constexpr const char kV1[] = R"sql(
CREATE TABLE work_items (
  key                TEXT PRIMARY KEY,
  state              TEXT NOT NULL CHECK (state IN ('idle', 'pending', 'running', 'dead')),
  requested_gen      INTEGER NOT NULL DEFAULT 0,
  claimed_gen        INTEGER NOT NULL DEFAULT 0,
  done_gen           INTEGER NOT NULL DEFAULT 0,
  reasons            TEXT NOT NULL DEFAULT '',   -- arrived since the last claim
  claimed_reasons    TEXT NOT NULL DEFAULT '',   -- covered by the running or failed pass
  due_at             INTEGER,                    -- NULL: no pass wanted
  backoff_until      INTEGER,                    -- floor for due_at after a failure
  lease_owner        TEXT,
  lease_until        INTEGER,
  fence              INTEGER NOT NULL DEFAULT 0,
  attempts           INTEGER NOT NULL DEFAULT 0, -- transient budget (count)
  availability_since INTEGER,                    -- unavailable budget (wall clock)
  last_error         TEXT NOT NULL DEFAULT '',
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  CHECK (claimed_gen <= requested_gen AND done_gen <= claimed_gen)
) WITHOUT ROWID;
CREATE INDEX work_items_due ON work_items (due_at) WHERE state = 'pending';
CREATE INDEX work_items_lease ON work_items (lease_until) WHERE state = 'running';

-- The webhook inbox (DESIGN.md §4). A delivery is written here, durably, before GitHub gets
-- its 2xx; routing moves it to a terminal state in the same transaction as its signals.
CREATE TABLE inbox (
  seq             INTEGER PRIMARY KEY,           -- arrival order
  delivery_id     TEXT NOT NULL UNIQUE,          -- X-GitHub-Delivery
  event           TEXT NOT NULL,                 -- X-GitHub-Event
  action          TEXT NOT NULL DEFAULT '',
  installation_id INTEGER,
  body            BLOB NOT NULL,
  body_encoding   TEXT NOT NULL DEFAULT 'identity' CHECK (body_encoding IN ('identity', 'zlib')),
  body_sha256     TEXT NOT NULL,
  received_at     INTEGER NOT NULL,
  state           TEXT NOT NULL
                  CHECK (state IN ('accepted', 'unresolved', 'routed', 'ignored', 'dead')),
  state_reason    TEXT NOT NULL DEFAULT '',
  attempts        INTEGER NOT NULL DEFAULT 0,
  finished_at     INTEGER
);
CREATE INDEX inbox_open ON inbox (seq) WHERE state IN ('accepted', 'unresolved');

-- Same delivery id, different body: kept for the operator, never routed.
CREATE TABLE inbox_conflicts (
  id          INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL,
  body_sha256 TEXT NOT NULL,
  received_at INTEGER NOT NULL
);

-- Funnel and engine counters, updated in the same transaction as what they count.
CREATE TABLE counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
)sql";

// The last known head of each open pull request, so that a check or status whose PR list is
// empty (PRs from forks) can be resolved by its commit SHA.
constexpr const char kV2[] = R"sql(
CREATE TABLE pr_heads (
  key        TEXT PRIMARY KEY,  -- subject key, owner/repo#number
  repo       TEXT NOT NULL,     -- owner/repo
  head_sha   TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX pr_heads_sha ON pr_heads (repo, head_sha);
)sql";

// The action ledger (DESIGN.md §3): one row per idempotency key.
constexpr const char kV3[] = R"sql(
CREATE TABLE actions (
  id         INTEGER PRIMARY KEY,
  subject    TEXT NOT NULL,
  kind       TEXT NOT NULL,
  head_sha   TEXT NOT NULL,
  detail     TEXT NOT NULL DEFAULT '',
  state      TEXT NOT NULL CHECK (state IN ('intent', 'done', 'failed', 'superseded')),
  fence      INTEGER NOT NULL,            -- the claim that last wrote the row
  attempts   INTEGER NOT NULL DEFAULT 1,
  result     TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (subject, kind, head_sha, detail)
);
CREATE INDEX actions_subject ON actions (subject, id);
)sql";

// What routing learns for the sweep and the pass (repositories and their installation, small
// per-PR facts), and the append-only audit log of every verdict and action.
constexpr const char kV4[] = R"sql(
CREATE TABLE repositories (
  repo            TEXT PRIMARY KEY,  -- owner/repo, lower-case
  installation_id INTEGER,           -- NULL: personal-token mode or not yet known
  updated_at      INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE pr_facts (
  subject TEXT NOT NULL,  -- owner/repo#number
  name    TEXT NOT NULL,
  value   TEXT NOT NULL,
  at      INTEGER NOT NULL,
  PRIMARY KEY (subject, name)
) WITHOUT ROWID;

CREATE TABLE audit (
  id       INTEGER PRIMARY KEY,
  subject  TEXT NOT NULL,
  at       INTEGER NOT NULL,
  fence    INTEGER NOT NULL DEFAULT 0,
  head_sha TEXT NOT NULL DEFAULT '',
  kind     TEXT NOT NULL,
  summary  TEXT NOT NULL DEFAULT '',
  detail   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_subject ON audit (subject, id);
)sql";

// Head occurrences (docs/ACTIONS.md): a PR's head that moves away and comes back is a new
// occurrence of its SHA, and the ledger key carries the occurrence, so that everything is
// decided afresh for it. SQLite cannot change a table's UNIQUE constraint in place, so the
// ledger is rebuilt; existing rows are occurrence 1. The heads a PR had so far (the SHAs of its
// ledger rows and of the `head_seen:<sha>` facts earlier passes recorded) become its first
// occurrences, in the order gatehouse first saw them, so that a PR in flight — say its merge of
// A was superseded when X was pushed — decides A afresh when A comes back after the upgrade.
constexpr const char kV5[] = R"sql(
CREATE TABLE actions_v5 (
  id              INTEGER PRIMARY KEY,
  subject         TEXT NOT NULL,
  kind            TEXT NOT NULL,
  head_sha        TEXT NOT NULL,
  head_occurrence INTEGER NOT NULL DEFAULT 1 CHECK (head_occurrence >= 1),
  detail          TEXT NOT NULL DEFAULT '',
  state           TEXT NOT NULL CHECK (state IN ('intent', 'done', 'failed', 'superseded')),
  fence           INTEGER NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 1,
  result          TEXT NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (subject, kind, head_sha, head_occurrence, detail)
);
INSERT INTO actions_v5 (id, subject, kind, head_sha, head_occurrence, detail, state, fence,
                        attempts, result, created_at, updated_at)
  SELECT id, subject, kind, head_sha, 1, detail, state, fence, attempts, result, created_at,
         updated_at FROM actions;
DROP TABLE actions;
ALTER TABLE actions_v5 RENAME TO actions;
CREATE INDEX actions_subject ON actions (subject, id);

CREATE TABLE head_occurrences (
  subject     TEXT NOT NULL,     -- owner/repo#number
  seq         INTEGER NOT NULL,  -- 1, 2, ... in the order the occurrences started
  head_sha    TEXT NOT NULL,
  occurrence  INTEGER NOT NULL,  -- 1 + earlier occurrences of head_sha for the subject
  github_at   INTEGER NOT NULL,  -- the PR's updated_at on GitHub when first read
  observed_at INTEGER NOT NULL,  -- gatehouse's clock then
  fence       INTEGER NOT NULL,  -- the claim that started it
  PRIMARY KEY (subject, seq),
  UNIQUE (subject, head_sha, occurrence)
) WITHOUT ROWID;

INSERT INTO head_occurrences (subject, seq, head_sha, occurrence, github_at, observed_at, fence)
  SELECT subject, ROW_NUMBER() OVER (PARTITION BY subject ORDER BY first_seen, head_sha),
         head_sha, 1, first_seen, first_seen, 0
  FROM (SELECT subject, head_sha, MIN(at) AS first_seen
        FROM (SELECT subject, head_sha, created_at AS at FROM actions
              UNION ALL
              SELECT subject, value, at FROM pr_facts WHERE substr(name, 1, 10) = 'head_seen:')
        GROUP BY subject, head_sha);
DELETE FROM pr_facts WHERE substr(name, 1, 10) = 'head_seen:';
)sql";

// A contract several nodes can share (docs/STORE.md, "A contract several nodes can share"):
//  - routing is claimed: a router claims a batch of open deliveries under a lease and a
//    per-delivery token, and applies its decisions only while the token is current;
//  - no counter row serializes every writer: each store instance adds to its own shard of a
//    counter (chosen at open), and readers sum the shards.
constexpr const char kV6[] = R"sql(
ALTER TABLE inbox ADD COLUMN claim INTEGER NOT NULL DEFAULT 0;  -- the latest claim's token
ALTER TABLE inbox ADD COLUMN claim_owner TEXT;                 -- NULL: not claimed
ALTER TABLE inbox ADD COLUMN claim_until INTEGER;              -- the claim's lease

CREATE TABLE counter_shards (
  name  TEXT NOT NULL,
  shard INTEGER NOT NULL,
  value INTEGER NOT NULL,
  PRIMARY KEY (name, shard)
) WITHOUT ROWID;
INSERT INTO counter_shards (name, shard, value) SELECT name, 0, value FROM counters;
DROP TABLE counters;
)sql";

// Reviewer dispatch (docs/STORE.md, "Review runs"). A run is unique by (subject, role, head_sha,
// trigger); its work item is subject || '/review/' || role. `dead` is never stored: it is read
// from the run's work item. A slot counts only while its holder's work item is running under
// the slot's fence with an unexpired lease, so a crashed holder's slot frees itself.
// `woken` on a work item: Wake marked it while running; its next kRetry finish is due at once.
constexpr const char kV7[] = R"sql(
ALTER TABLE work_items ADD COLUMN woken INTEGER NOT NULL DEFAULT 0;

CREATE TABLE review_runs (
  id             INTEGER PRIMARY KEY,
  subject        TEXT NOT NULL,                -- owner/repo#number
  role           TEXT NOT NULL,
  head_sha       TEXT NOT NULL,
  "trigger"      TEXT NOT NULL,                -- 'auto' or 'comment:<id>'
  state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'finished', 'done',
                                                'cancelled', 'superseded')),
  reviewer       TEXT NOT NULL DEFAULT '',     -- '' until assigned
  assigned_at    INTEGER,
  assigned_fence INTEGER NOT NULL DEFAULT 0,
  starts         INTEGER NOT NULL DEFAULT 0,
  result_json    TEXT NOT NULL DEFAULT '',
  reason         TEXT NOT NULL DEFAULT '',
  review_id      INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  UNIQUE (subject, role, head_sha, "trigger")
);
CREATE INDEX review_runs_subject ON review_runs (subject, id);
CREATE INDEX review_runs_affinity ON review_runs (subject, role, assigned_at)
  WHERE assigned_at IS NOT NULL;
CREATE INDEX review_runs_open ON review_runs (subject, role)
  WHERE state IN ('queued', 'running', 'finished');

CREATE TABLE reviewers (
  name       TEXT PRIMARY KEY,
  paused     INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE reviewer_slots (
  reviewer    TEXT NOT NULL,
  holder_key  TEXT NOT NULL,     -- the holder's work item
  fence       INTEGER NOT NULL,  -- the holder's claim that took the slot
  run_id      INTEGER NOT NULL,  -- the run it was taken for
  acquired_at INTEGER NOT NULL,
  PRIMARY KEY (reviewer, holder_key)
) WITHOUT ROWID;
CREATE INDEX reviewer_slots_holder ON reviewer_slots (holder_key);
)sql";

// Recovering missed deliveries (docs/INGRESS.md, "Recovering missed deliveries"): a delivery
// fetched from GitHub's delivery list is marked `recovered` (its body is GitHub's parsed payload
// re-serialized, so a later real redelivery of the id is a duplicate whatever its hash), and the
// newest delivery attempt id a completed round covered is the high-water mark, one row.
constexpr const char kV8[] = R"sql(
ALTER TABLE inbox ADD COLUMN recovered INTEGER NOT NULL DEFAULT 0;

CREATE TABLE recovery_mark (
  name       TEXT PRIMARY KEY,   -- 'app_hook'
  attempt_id INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
)sql";

// The admin API lists the ledger's open intents across subjects (docs/ADMIN_API.md).
constexpr const char kV9[] = R"sql(
CREATE INDEX actions_open ON actions (id) WHERE state = 'intent';
)sql";

// The earliest signal no pass has claimed yet: Claim hands it to the pass (and clears it), for
// the signal-to-pass-start latency (docs/METRICS.md).
constexpr const char kV10[] = R"sql(
ALTER TABLE work_items ADD COLUMN signalled_at INTEGER;
)sql";

// The request headers worth keeping, for the admin API's delivery view (Delivery::headers).
constexpr const char kV11[] = R"sql(
ALTER TABLE inbox ADD COLUMN headers TEXT NOT NULL DEFAULT '';
)sql";

// The merge queues' entries (docs/MERGE_QUEUE.md, store/merge_queue.h): one per PR head
// (subject, head_sha, head_occurrence), unique, in the queue named by its work item key.
constexpr const char kV12[] = R"sql(
CREATE TABLE queue_entries (
  id              INTEGER PRIMARY KEY,
  queue           TEXT NOT NULL,     -- owner/repo@base/queue: the queue's work item
  subject         TEXT NOT NULL,     -- owner/repo#number
  head_sha        TEXT NOT NULL,
  head_occurrence INTEGER NOT NULL DEFAULT 1 CHECK (head_occurrence >= 1),
  priority        INTEGER NOT NULL DEFAULT 0,
  state           TEXT NOT NULL CHECK (state IN ('queued', 'updating', 'testing', 'merging',
                                                 'merged', 'dropped')),
  tested_sha      TEXT NOT NULL DEFAULT '',
  deadline        INTEGER,
  reason          TEXT NOT NULL DEFAULT '',
  entered_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (subject, head_sha, head_occurrence)
);
CREATE INDEX queue_entries_open ON queue_entries (queue) WHERE state NOT IN ('merged', 'dropped');
CREATE INDEX queue_entries_ended ON queue_entries (queue, updated_at)
  WHERE state IN ('merged', 'dropped');
CREATE INDEX queue_entries_subject ON queue_entries (subject, id);
)sql";

// The batch an entry is tested in (store/merge_queue.h QueueEntry::batch).
constexpr const char kV13[] = R"sql(
ALTER TABLE queue_entries ADD COLUMN batch INTEGER NOT NULL DEFAULT 0;
)sql";

// The command that admitted an entry (store/merge_queue.h QueueEntryKey::admitted_by) joins its
// unique key: SQLite cannot change a table's UNIQUE constraint, so the table is rebuilt.
constexpr const char kV14[] = R"sql(
CREATE TABLE queue_entries_v14 (
  id              INTEGER PRIMARY KEY,
  queue           TEXT NOT NULL,     -- owner/repo@base/queue: the queue's work item
  subject         TEXT NOT NULL,     -- owner/repo#number
  head_sha        TEXT NOT NULL,
  head_occurrence INTEGER NOT NULL DEFAULT 1 CHECK (head_occurrence >= 1),
  priority        INTEGER NOT NULL DEFAULT 0,
  state           TEXT NOT NULL CHECK (state IN ('queued', 'updating', 'testing', 'merging',
                                                 'merged', 'dropped')),
  tested_sha      TEXT NOT NULL DEFAULT '',
  deadline        INTEGER,
  reason          TEXT NOT NULL DEFAULT '',
  entered_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  batch           INTEGER NOT NULL DEFAULT 0,
  admitted_by     INTEGER NOT NULL DEFAULT 0,  -- the comment id of a queue/merge command, or 0
  UNIQUE (subject, head_sha, head_occurrence, admitted_by)
);
INSERT INTO queue_entries_v14 (id, queue, subject, head_sha, head_occurrence, priority, state,
                               tested_sha, deadline, reason, entered_at, updated_at, batch)
  SELECT id, queue, subject, head_sha, head_occurrence, priority, state, tested_sha, deadline,
         reason, entered_at, updated_at, batch FROM queue_entries;
DROP TABLE queue_entries;
ALTER TABLE queue_entries_v14 RENAME TO queue_entries;
CREATE INDEX queue_entries_open ON queue_entries (queue) WHERE state NOT IN ('merged', 'dropped');
CREATE INDEX queue_entries_ended ON queue_entries (queue, updated_at)
  WHERE state IN ('merged', 'dropped');
CREATE INDEX queue_entries_subject ON queue_entries (subject, id);
)sql";

constexpr Migration kMigrations[] = {
    {1, "work items, inbox, counters", kV1},
    {2, "pull request heads", kV2},
    {3, "action ledger", kV3},
    {4, "repositories, pull request facts, audit log", kV4},
    {5, "head occurrences", kV5},
    {6, "claimed routing, sharded counters", kV6},
    {7, "review runs, reviewers, reviewer slots, woken work items", kV7},
    {8, "recovered deliveries, the recovery high-water mark", kV8},
    {9, "open intents by id", kV9},
    {10, "work items: the earliest unclaimed signal", kV10},
    {11, "deliveries: their request headers", kV11},
    {12, "merge queue entries", kV12},
    {13, "merge queue entries: their batch", kV13},
    {14, "merge queue entries: the command that admitted them", kV14},
};

}  // namespace

std::span<const Migration> Migrations() { return kMigrations; }

}  // namespace gatehouse::sqlite
