// SqliteStore: the embedded Store backend on one SQLite file.
//
// WAL mode, BEGIN IMMEDIATE for every write transaction, a busy timeout, and cached prepared
// statements. Several processes on one host may open the same file; SQLite serializes their
// writers, and fences keep their passes apart. Writes are synchronous=NORMAL unless the
// caller asks for Durability::kAcknowledged (synchronous=FULL); docs/DURABILITY.md says
// which writes need which and why.
//
// Thread-safe: one connection per store, guarded by a mutex. (SQLite admits one writer at a
// time anyway; throughput comes from batching several items per transaction.)
#pragma once

#include <memory>
#include <string>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "store/local_wakeups.h"
#include "store/sqlite/sqlite_db.h"
#include "store/store.h"

namespace gatehouse {

struct SqliteStoreOptions {
  int busy_timeout_ms = 10000;
};

// Opens (creating if needed) the database at `path` and applies pending migrations.
Result<StorePtr> OpenSqliteStore(const std::string& path, const SqliteStoreOptions& options = {});

// One class implements every concept's interface (each in its own .cc file) over one
// connection; the Store accessors hand out this object as each interface.
class SqliteStore final : public Store,
                          public WorkQueue,
                          public Inbox,
                          public ActionLedger,
                          public AuditLog,
                          public RepoDirectory,
                          public ReviewRuns,
                          public MergeQueue {
 public:
  ~SqliteStore() override = default;

  WorkQueue& work() override { return *this; }
  Inbox& inbox() override { return *this; }
  ActionLedger& ledger() override { return *this; }
  AuditLog& audit() override { return *this; }
  RepoDirectory& repos() override { return *this; }
  ReviewRuns& reviews() override { return *this; }
  MergeQueue& queues() override { return *this; }
  // In-process only: other processes on the same file find new work by polling.
  Wakeups& wakeups() override { return wakeups_; }

  // The work queue: store/sqlite/sqlite_work.cc (Wake in sqlite_wake.cc).
  Status Enqueue(std::span<const Signal> signals, Time now, Durability durability) override;
  Result<std::vector<Lease>> Claim(std::string_view owner, size_t max_items, Duration lease,
                                   Time now) override;
  Result<std::vector<Status>> Renew(std::span<const LeaseRenewal> renewals, Time now) override;
  Result<std::vector<Status>> Finish(std::span<const PassFinish> finishes, Time now) override;
  Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                               size_t max_items, Duration lease, Time now) override;
  Status Rearm(std::string_view key, Time now) override;
  // store/sqlite/sqlite_wake.cc.
  Status Wake(std::span<const std::string> keys, Time now) override;
  Result<std::optional<WorkItem>> GetWorkItem(std::string_view key) override;
  Result<std::vector<WorkItem>> ListWorkItems(const WorkFilter& filter) override;
  Result<WorkSummary> SummarizeWork() override;
  Result<Counters> GetCounters() override;

  // The inbox: store/sqlite/sqlite_inbox.cc.
  Result<std::vector<AcceptOutcome>> AcceptDeliveries(std::span<const Delivery> deliveries,
                                                      const Counters& rejected, Time now) override;
  Result<std::vector<InboxEntry>> ClaimDeliveries(std::string_view owner, size_t limit, Open which,
                                                  Duration lease, Time now) override;
  Status ApplyRouting(std::span<const RouteDecision> decisions, Time now) override;
  Result<std::vector<std::string>> PullRequestsWithHead(std::string_view repo,
                                                        std::string_view sha) override;
  Result<Funnel> GetFunnel() override;
  Result<std::optional<InboxEntry>> GetDelivery(std::string_view delivery_id) override;
  Result<std::vector<std::string>> HeldDeliveryIds(
      std::span<const std::string> delivery_ids) override;
  Result<int64_t> GetRecoveryMark() override;
  Status RaiseRecoveryMark(int64_t attempt_id, Time now) override;
  Status CheckWritable() override;

  // The action ledger: store/sqlite/sqlite_ledger.cc.
  Result<IntentResult> RecordIntent(const ActionKey& key, int64_t fence, Time now) override;
  Status RecordOutcome(int64_t id, int64_t fence, ActionState outcome, std::string_view result,
                       Time now) override;
  Result<std::vector<ActionRecord>> ListActions(std::string_view subject) override;
  Result<std::vector<ActionRecord>> ListOpenIntents(size_t limit) override;
  Result<std::vector<KindCount>> CountActions() override;

  // Head occurrences: store/sqlite/sqlite_heads.cc.
  Result<std::optional<HeadOccurrence>> LatestHeadOccurrence(std::string_view subject) override;
  Result<HeadOccurrence> StartHeadOccurrence(std::string_view subject, std::string_view head_sha,
                                             Time github_at, int64_t fence, Time now) override;

  // Repositories and PR facts: store/sqlite/sqlite_repos.cc.
  Result<std::vector<RepoInstallation>> ListRepositories() override;
  Result<std::optional<RepoInstallation>> GetRepository(std::string_view repo) override;
  Result<std::vector<PrFact>> GetPrFacts(std::string_view subject) override;

  // The audit log: store/sqlite/sqlite_audit.cc.
  Status AppendAudit(std::span<const AuditEntry> entries, Durability durability) override;
  Result<std::vector<AuditEntry>> ListAudit(std::string_view subject, size_t limit) override;
  Status RecordLearned(std::span<const RepoInstallation> repos, std::span<const PrFact> facts,
                       Time now) override;

  // Review runs: store/sqlite/sqlite_reviews.cc.
  Result<Requested> RequestRun(const ReviewRunKey& key, std::string_view fence_key, int64_t fence,
                               Time now) override;
  Result<std::vector<ReviewRun>> ListRuns(std::string_view subject,
                                          std::string_view role = "") override;
  Result<std::optional<ReviewRun>> GetRun(int64_t id) override;
  Status RecordResult(int64_t id, std::string_view result_json, int64_t fence, Time now) override;
  Status EndRun(int64_t id, RunState end, std::string_view reason, int64_t review_id, int64_t fence,
                Time now) override;
  Result<std::vector<std::string>> CancelRuns(std::string_view subject, std::string_view keep_head,
                                              std::string_view reason, std::string_view fence_key,
                                              int64_t fence, Time now) override;
  Result<std::vector<std::string>> WaitingWorkKeys() override;
  Result<ReviewFunnel> GetReviewFunnel() override;
  Result<std::vector<RunCount>> CountRuns() override;

  // Reviewers, assignment and slots: store/sqlite/sqlite_reviewers.cc.
  Result<Assignment> AssignAndClaimSlot(int64_t id, std::span<const ReviewerSlotSpec> candidates,
                                        int64_t fence, Time now) override;
  Status ReleaseSlot(std::string_view work_key, int64_t fence, Time now) override;
  Status EnsureReviewers(std::span<const std::pair<std::string, bool>> initial, Time now) override;
  Status SetPaused(std::string_view reviewer, bool paused, Time now) override;
  Result<std::vector<ReviewerState>> ListReviewers(Time now) override;

  // Merge queue entries: store/sqlite/sqlite_queue.cc.
  Result<Entered> Enter(std::string_view queue, const QueueEntryKey& key, int priority,
                        int64_t fence, Time now) override;
  Result<std::vector<QueueEntry>> Leave(std::string_view subject, std::string_view keep_sha,
                                        std::string_view reason, int64_t fence, Time now) override;
  Result<QueueEntry> Step(int64_t id, const EntryStep& step, int64_t fence, Time now) override;
  Result<std::vector<QueueEntry>> ListQueue(std::string_view queue, int ended = 0) override;
  Result<std::vector<QueueEntry>> EntriesOf(std::string_view subject) override;
  Result<std::vector<QueueEntry>> EntriesTested(std::string_view queue,
                                                std::string_view sha) override;
  Result<std::vector<std::string>> QueuesWatching(std::string_view repo,
                                                  std::string_view sha) override;

  // The highest applied migration.
  Result<int> SchemaVersion() override;
  // The file is on this host: its clock is ours.
  Result<std::optional<Time>> DatabaseTime() override { return std::optional<Time>(); }
  void RegisterMetrics(metrics::Registry& registry) override;

 private:
  friend Result<StorePtr> OpenSqliteStore(const std::string&, const SqliteStoreOptions&);
  explicit SqliteStore(std::unique_ptr<sqlite::SqliteDb> db);

  Status Migrate();
  // Adds `delta` to counter `name`; call inside a write transaction.
  Status Bump(std::string_view name, int64_t delta) REQUIRES(mu_);
  // The bodies of Enqueue, Claim and Finish; call inside a write transaction with mu_ held.
  Status EnqueueInTx(std::span<const Signal> signals, Time now) REQUIRES(mu_);
  Status ClaimInTx(std::string_view owner, size_t max_items, Duration lease, Time now,
                   std::vector<Lease>* out) REQUIRES(mu_);
  Status FinishInTx(std::span<const PassFinish> finishes, Time now, std::vector<Status>* out)
      REQUIRES(mu_);
  // Applies what a routing decision learned (repos, repos_removed, facts); call inside the
  // ApplyRouting transaction.
  Status ApplyLearnedInTx(const RouteDecision& decision, Time now) REQUIRES(mu_);
  // Appends validated audit entries, in order, and bumps audit.entries; inside a write
  // transaction.
  Status AppendAuditInTx(std::span<const AuditEntry> entries) REQUIRES(mu_);
  // The rows alone; the caller bumps `audit.entries` (once per transaction, for many).
  Status InsertAuditRowsInTx(std::span<const AuditEntry> entries) REQUIRES(mu_);
  // kFenceLost unless `subject`'s work item is running under `fence`.
  Status CheckFenceInTx(std::string_view subject, int64_t fence) REQUIRES(mu_);
  // Run `id` as ListRuns reports it (dead derived from its work item); nullopt if unknown.
  Result<std::optional<ReviewRun>> GetRunInTx(int64_t id) REQUIRES(mu_);
  // Loads run `id`, checks its work item is running under `fence`, and checks its state is one
  // of `allowed` (kFailedPrecondition otherwise). kNotFound for an unknown run.
  Result<ReviewRun> FencedRunInTx(int64_t id, int64_t fence, std::span<const RunState> allowed)
      REQUIRES(mu_);
  // Queue entry `id`; nullopt if unknown.
  Result<std::optional<QueueEntry>> GetEntryInTx(int64_t id) REQUIRES(mu_);
  // RequestRun's revival of a dead mailbox (see sqlite_reviews.cc).
  Status ReviveDeadMailboxInTx(const std::string& work_key, const ReviewRunKey& key, Time now)
      REQUIRES(mu_);
  // A reviewer's state for an assignment at `now`: its stale slot rows are deleted first.
  struct ReviewerLoad {
    bool paused = false;     // false for a reviewer the store has not seen
    int busy = 0;            // live slots
    bool held_here = false;  // one of them is held by the work item `holder_key`
  };
  Result<ReviewerLoad> ReviewerLoadInTx(std::string_view reviewer, std::string_view holder_key,
                                        Time now) REQUIRES(mu_);
  // Records `reviewer` as run `id`'s choice and, with `take_slot`, holds one of its slots for
  // (holder_key, fence) and marks the run running (starts += 1).
  Status RecordAssignmentInTx(int64_t id, std::string_view holder_key, std::string_view reviewer,
                              bool take_slot, int64_t fence, Time now) REQUIRES(mu_);

  Mutex mu_;
  // The connection is not thread-safe: every use of it holds mu_.
  std::unique_ptr<sqlite::SqliteDb> db_ PT_GUARDED_BY(mu_);
  // The counter shard this store instance adds to (counter_shards): instances — threads with
  // their own store, processes — rarely write the same counter row, and readers sum them.
  const int64_t counter_shard_;
  LocalWakeups wakeups_;
};

}  // namespace gatehouse
