// Store: the durable state of gatehouse, behind one backend-neutral interface.
//
// A Store holds the per-PR work items (DESIGN.md §2), the webhook inbox (§4), the action
// ledger (§3), the audit log, what webhooks taught about repositories and pull requests, and
// the funnel counters. Every method is one atomic transaction; every write that a pass makes
// after its claim is conditional on the pass's fence and is rejected with kFenceLost once
// another claim has superseded it. The Store never reads a clock: callers pass `now`, which
// keeps policy (debounce, backoff, leases) in the engine and makes every behaviour testable
// with simulated time.
//
// Implementations: sqlite/ (embedded, the default; several processes may share one file) and,
// later, postgres/. Both must pass store_contract_test.cc. Implementations are safe for
// concurrent use from multiple threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse {

enum class WorkState { kIdle, kPending, kRunning, kDead };
std::string_view WorkStateName(WorkState state);
bool ParseWorkState(std::string_view text, WorkState* out);

// How durable a write must be before the call returns.
//  kAcknowledged: on stable storage (fsync'd) before returning. For anything acknowledged to
//                 the outside world or preceding an external effect.
//  kRecoverable:  survives a crash of the process, but the last moments may be lost on power
//                 loss or kernel panic. Only for writes whose loss is repaired by re-running a
//                 pass (see docs/DURABILITY.md).
enum class Durability { kRecoverable, kAcknowledged };

// One trigger for a subject: routed webhook, sweep, operator request, ...
struct Signal {
  std::string key;     // subject key, e.g. "acme/app#12"; at most 512 bytes
  std::string reason;  // e.g. "pushed"; [a-z0-9_.:-]+, at most 64 bytes
  Duration debounce{0};
};

// A full work-item row, for inspection (CLI, tests). Times are absent when not set.
struct WorkItem {
  std::string key;
  WorkState state = WorkState::kIdle;
  int64_t requested_gen = 0;
  int64_t claimed_gen = 0;
  int64_t done_gen = 0;
  std::vector<std::string> reasons;          // arrived since the last claim
  std::vector<std::string> claimed_reasons;  // what the running (or failed) pass covers
  std::optional<Time> due_at;
  std::optional<Time> backoff_until;
  std::string lease_owner;
  std::optional<Time> lease_until;
  int64_t fence = 0;
  int attempts = 0;
  std::optional<Time> availability_since;
  std::string last_error;
  Time created_at;
  Time updated_at;
};

// What a claim hands to a worker: the right to run one pass of `key` until `lease_until`,
// proven by `fence` on every later write.
struct Lease {
  std::string key;
  int64_t fence = 0;
  int64_t claimed_gen = 0;
  std::vector<std::string> reasons;  // everything this pass must cover
  int attempts = 0;                  // consecutive transient failures so far
  std::optional<Time> availability_since;
  std::string owner;
  Time lease_until;
  bool reclaimed = false;  // the previous holder's lease had expired mid-pass
};

struct LeaseRenewal {
  std::string key;
  int64_t fence = 0;
  Time lease_until;
};

// How a pass ended, as decided by the engine's retry policy.
struct PassFinish {
  enum class Kind { kCompleted, kRetry, kDead };
  std::string key;
  int64_t fence = 0;
  Kind kind = Kind::kCompleted;
  // kRetry only: no pass before this time, whatever signals arrive meanwhile.
  Time retry_at;
  // kRetry and kDead: the bookkeeping after this failure.
  int attempts = 0;
  std::optional<Time> availability_since;
  std::string error;
};

// One webhook delivery as received (DESIGN.md §4).
struct Delivery {
  std::string delivery_id;  // X-GitHub-Delivery
  std::string event;        // X-GitHub-Event
  std::string action;       // the payload's "action", or ""
  std::optional<int64_t> installation_id;
  std::string body;         // the raw body, exactly as signed (or its zlib form, see below)
  std::string body_sha256;  // lower-case hex, of the raw body
  Time received_at;
  // kZlib: `body` holds ZlibCompress(raw body). Compression happens on the caller's thread
  // (base/compress.h), outside the store's single writer; the store keeps the encoding and
  // hands back the raw body.
  enum class Encoding { kIdentity, kZlib };
  Encoding encoding = Encoding::kIdentity;
};

enum class AcceptOutcome {
  kAccepted,   // new: stored, to be routed
  kDuplicate,  // same id, same body hash: stored before, nothing to do
  kConflict,   // same id, different body: recorded as a conflict, not stored
};

enum class InboxState { kAccepted, kUnresolved, kRouted, kIgnored, kDead };
std::string_view InboxStateName(InboxState state);

// A stored delivery, as routing and the CLI see it.
struct InboxEntry {
  int64_t seq = 0;
  std::string delivery_id;
  std::string event;
  std::string action;
  std::optional<int64_t> installation_id;
  std::string body;        // the raw body (decompressed)
  std::string body_error;  // non-empty when the stored body could not be decoded
  InboxState state = InboxState::kAccepted;
  std::string state_reason;
  int attempts = 0;
  Time received_at;
};

// A repository gatehouse knows about ("owner/repo", lower-case) and the App installation
// that covers it. `installation_id` is absent in personal-token mode or when no delivery for
// the repository has named its installation yet.
struct RepoInstallation {
  std::string repo;
  std::optional<int64_t> installation_id;
};

// A small fact about a pull request learned from a webhook that a pass cannot read back from
// the REST endpoints it uses, e.g. ("acme/app#12", "reopened", "alice CONTRIBUTOR"). One value
// per (subject, name); the one with the later `at` wins.
struct PrFact {
  std::string subject;  // "owner/repo#12"
  std::string name;     // e.g. "reopened", "closed_by"
  std::string value;
  Time at;  // when it was learned (the delivery's received_at)
};

// What routing decided for one delivery; applied atomically with its signals.
struct RouteDecision {
  int64_t seq = 0;
  InboxState state = InboxState::kRouted;  // kRouted, kIgnored, kUnresolved or kDead
  std::string reason;                      // why ignored / unresolved / dead, or a summary
  std::vector<Signal> signals;             // folded into work items in the same transaction
  // PR heads learned from the payload: (subject key, head SHA), remembered so that a later
  // check or status with an empty PR list can be resolved by its SHA.
  std::vector<std::pair<std::string, std::string>> heads;
  // Repositories learned from the payload, upserted. A known installation id is never
  // overwritten by an absent one (a payload without `installation` knows nothing about it).
  std::vector<RepoInstallation> repos;
  // Repositories no longer covered by the App (uninstalled, removed from the installation):
  // forgotten, after `repos` is applied.
  std::vector<std::string> repos_removed;
  // PR facts learned from the payload; per (subject, name) the later `at` wins.
  std::vector<PrFact> facts;
};

// The ingress funnel: received = routed + ignored + duplicate + rejected + dead + in_flight.
struct Funnel {
  int64_t received = 0;
  int64_t routed = 0;
  int64_t ignored = 0;
  int64_t duplicate = 0;
  int64_t rejected = 0;
  int64_t dead = 0;
  int64_t in_flight = 0;   // accepted or unresolved, not yet terminal
  int64_t unresolved = 0;  // part of in_flight: waiting for a SHA → PR lookup
  int64_t conflicts = 0;   // part of rejected
};

// The action ledger (DESIGN.md §3): every external effect has an idempotency key, an
// `intent` recorded durably (and fenced) before the call, and an outcome after it.
struct ActionKey {
  std::string subject;   // "owner/repo#12"
  std::string kind;      // merge, approve, label, comment, check_run, ... (DESIGN §8)
  std::string head_sha;  // the head the action was decided on and is bound to
  std::string detail;    // e.g. the label name; "" when the kind needs none
  // Which time the PR's head became `head_sha` (HeadOccurrence): a head that moves away and
  // comes back is a new occurrence, so everything is decided afresh for it (docs/ACTIONS.md).
  int64_t head_occurrence = 1;
};

// The n-th time a pull request's head became a SHA, as gatehouse's own reads of the PR saw it
// (docs/ACTIONS.md, "Head occurrences"). The occurrences of one PR form a sequence in which
// neighbours have different SHAs: A(1), X(1), B(1), A(2), ...
struct HeadOccurrence {
  std::string subject;
  std::string head_sha;
  int64_t occurrence = 1;  // 1 + how many earlier occurrences of head_sha the PR had
  // The PR's `updated_at` on GitHub when this occurrence was first read: pushes GitHub reports
  // later than this (webhooks) happened after it started, whatever order they arrive in.
  Time github_at{};
  Time observed_at{};  // gatehouse's clock when the occurrence was first read
};

enum class ActionState { kIntent, kDone, kFailed, kSuperseded };
std::string_view ActionStateName(ActionState state);

struct ActionRecord {
  int64_t id = 0;
  ActionKey key;
  ActionState state = ActionState::kIntent;
  int64_t fence = 0;  // the claim that last wrote the row
  int attempts = 0;
  std::string result;
  Time created_at;
  Time updated_at;
};

struct IntentResult {
  enum class Kind {
    kRecorded,        // a new intent (or a retry of a failed one): make the call
    kAlreadyDone,     // done before (same key): skip
    kSuperseded,      // GitHub refused it because the head moved: skip; a new head is a new key
    kNeedsReconcile,  // an intent without an outcome: a call may or may not have happened
  };
  Kind kind = Kind::kRecorded;
  ActionRecord record;
};

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

struct WorkFilter {
  std::optional<WorkState> state;
  size_t limit = 1000;
};

// Named monotonic counters, e.g. "work.signals", "work.passes_completed", "inbox.received".
using Counters = std::map<std::string, int64_t, std::less<>>;

class Store {
 public:
  virtual ~Store() = default;

  // Folds each signal into its subject's work item (DESIGN.md §2 rule 1): creates the item
  // if absent, requested_gen += 1, reasons merged, due_at = min(due_at, now + debounce) but
  // never before a failure backoff. A running item becomes dirty; a dead item records the
  // signal and stays dead until re-armed. All signals commit together or none does.
  virtual Status Enqueue(std::span<const Signal> signals, Time now, Durability durability) = 0;

  // Claims up to `max_items` items that are due (pending with due_at <= now) or whose lease
  // has expired (running with lease_until <= now), in one transaction. Each claim sets the
  // lease, fence += 1 and claimed_gen = requested_gen (rule 2). Reclaiming an expired lease
  // counts as one failed attempt (attempts += 1, last_error says so). Returns fewer, or none,
  // when fewer are claimable.
  virtual Result<std::vector<Lease>> Claim(std::string_view owner, size_t max_items, Duration lease,
                                           Time now) = 0;

  // Extends leases, each only if its fence is current. The outer Result fails only when the
  // transaction could not run; per-lease outcomes are OK or kFenceLost.
  virtual Result<std::vector<Status>> Renew(std::span<const LeaseRenewal> renewals, Time now) = 0;

  // Records how passes ended, each only if its fence is current (rules 3, 5, 6). A completed
  // pass sets done_gen = claimed_gen and leaves the item pending if it got dirty, idle
  // otherwise. Per-pass outcomes are OK or kFenceLost.
  virtual Result<std::vector<Status>> Finish(std::span<const PassFinish> finishes, Time now) = 0;

  // Finish(finishes) and then Claim(owner, max_items, lease, now) in one transaction: the
  // worker pool's steady-state step, one commit per cycle instead of two. `max_items` may be
  // 0 (finish only) and `finishes` may be empty (claim only).
  struct Cycle {
    std::vector<Status> finished;  // one per finish: OK or kFenceLost
    std::vector<Lease> claimed;
  };
  virtual Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                                       size_t max_items, Duration lease, Time now) = 0;

  // Brings a dead item back: pending, due now, budgets reset, one more generation requested.
  // kNotFound for an unknown key, kFailedPrecondition if the item is not dead. Durable
  // (kAcknowledged) on return.
  virtual Status Rearm(std::string_view key, Time now) = 0;

  // nullopt when the key has no item.
  virtual Result<std::optional<WorkItem>> GetWorkItem(std::string_view key) = 0;
  // Ordered by key.
  virtual Result<std::vector<WorkItem>> ListWorkItems(const WorkFilter& filter) = 0;

  virtual Result<Counters> GetCounters() = 0;

  // --- The inbox (DESIGN.md §4) ---

  // Stores new deliveries durably (Durability::kAcknowledged: on return they survive power
  // loss, so the caller may answer 2xx) and classifies each. `rejected` are counts of
  // requests refused before reaching the inbox (bad signature, headers, JSON, size), by
  // reason, added to the funnel in the same transaction. One outcome per delivery.
  virtual Result<std::vector<AcceptOutcome>> AcceptDeliveries(std::span<const Delivery> deliveries,
                                                              const Counters& rejected,
                                                              Time now) = 0;

  // Deliveries not yet in a terminal state, oldest first: `accepted` ones, and `unresolved`
  // ones too when `include_unresolved`.
  virtual Result<std::vector<InboxEntry>> OpenDeliveries(size_t limit, bool include_unresolved) = 0;

  // Only the `unresolved` deliveries, oldest first, for the resolver (a backlog of accepted
  // deliveries must not hide them).
  virtual Result<std::vector<InboxEntry>> UnresolvedDeliveries(size_t limit) = 0;

  // Applies routing decisions, each with its signals and what it learned (heads, repos,
  // removed repos, facts), in one transaction. A decision for a delivery that is no longer
  // open is skipped entirely (another router got there).
  virtual Status ApplyRouting(std::span<const RouteDecision> decisions, Time now) = 0;

  // Open pull requests of `repo` ("owner/repo", lower-case) whose last known head is `sha`,
  // as subject keys.
  virtual Result<std::vector<std::string>> PullRequestsWithHead(std::string_view repo,
                                                                std::string_view sha) = 0;

  virtual Result<Funnel> GetFunnel() = 0;

  // One stored delivery by its X-GitHub-Delivery id; nullopt when unknown.
  virtual Result<std::optional<InboxEntry>> GetDelivery(std::string_view delivery_id) = 0;

  // OK when a write transaction can be started now (for readiness probes). Writes nothing.
  virtual Status CheckWritable() = 0;

  // --- The action ledger (DESIGN.md §3) ---

  // Records the intent to perform `key`, in the same transaction that checks that the
  // subject's work item is still running under `fence` (kFenceLost otherwise, and nothing is
  // written). Durable (kAcknowledged) on return, because the external call follows.
  virtual Result<IntentResult> RecordIntent(const ActionKey& key, int64_t fence, Time now) = 0;

  // Records how action `id` ended (kDone, kFailed or kSuperseded), fenced like RecordIntent;
  // the row must be an open intent. A new holder may record the outcome of an earlier
  // holder's intent after reconciling it with GitHub.
  virtual Status RecordOutcome(int64_t id, int64_t fence, ActionState outcome,
                               std::string_view result, Time now) = 0;

  // A subject's actions, oldest first.
  virtual Result<std::vector<ActionRecord>> ListActions(std::string_view subject) = 0;

  // --- Head occurrences (docs/ACTIONS.md) ---

  // The subject's latest head occurrence; nullopt when none was recorded yet.
  virtual Result<std::optional<HeadOccurrence>> LatestHeadOccurrence(std::string_view subject) = 0;

  // Starts a new occurrence of `head_sha` for `subject` — occurrence = 1 + the highest earlier
  // occurrence of that SHA for the subject — in the transaction that checks that the
  // subject's work item is still running under `fence` (kFenceLost otherwise, and nothing is
  // written), and returns it. The caller (act/head_occurrence.h) decides when a new occurrence
  // starts; the store numbers and records it. Recoverable durability: every effect bound to the
  // occurrence is preceded by an acknowledged RecordIntent, whose commit makes this one durable
  // too, and an occurrence lost with no effect bound to it is started again, identically, by
  // the next pass.
  virtual Result<HeadOccurrence> StartHeadOccurrence(std::string_view subject,
                                                     std::string_view head_sha, Time github_at,
                                                     int64_t fence, Time now) = 0;

  // --- Repositories and PR facts (learned by routing; see RouteDecision) ---

  // Every known repository, ordered by repo.
  virtual Result<std::vector<RepoInstallation>> ListRepositories() = 0;
  // One repository ("owner/repo", ASCII case-insensitive); nullopt when unknown or removed.
  virtual Result<std::optional<RepoInstallation>> GetRepository(std::string_view repo) = 0;
  // A subject's facts, ordered by name; empty when none.
  virtual Result<std::vector<PrFact>> GetPrFacts(std::string_view subject) = 0;

  // --- The audit log ---

  // Appends `entries` in one transaction, in order (ids increase along the span); the store
  // assigns `id` and keeps each entry's `at`. Every entry needs a subject and a kind of
  // [a-z_]+ (kInvalidArgument otherwise, and nothing is written). Not fenced: a stale pass's
  // account of what it did is still history. Counts "audit.entries".
  virtual Status AppendAudit(std::span<const AuditEntry> entries, Durability durability) = 0;
  // The last `limit` entries of `subject` (all of them when `limit` is 0), oldest first.
  virtual Result<std::vector<AuditEntry>> ListAudit(std::string_view subject, size_t limit) = 0;

  // Records repositories and PR facts learned outside routing (the sweeper's installation
  // listings, a pass's first sight of a head), with the same rules as RouteDecision::repos and
  // ::facts: a null installation never overwrites a known one; per (subject, name) the later
  // `at` wins. One transaction; recoverable durability (all of it can be learned again).
  virtual Status RecordLearned(std::span<const RepoInstallation> repos,
                               std::span<const PrFact> facts, Time now) = 0;
};

using StorePtr = std::unique_ptr<Store>;

// Validation shared by every backend, so that they reject the same input the same way.
Status ValidateSignal(const Signal& signal);

// Reasons are kept as a sorted, de-duplicated set; on disk as "a,b,c".
std::string JoinReasons(const std::vector<std::string>& reasons);
std::vector<std::string> SplitReasons(std::string_view joined);
std::string UnionReasons(std::string_view a, std::string_view b);

}  // namespace gatehouse
