// PgStore: the Store on a PostgreSQL database, shared by any number of gatehouse processes on
// any number of hosts (docs/POSTGRES.md).
//
// - Every method borrows one connection from a bounded PgPool for one transaction and gives
//   it back before returning. No connection is held across a call, so no caller can hold one
//   while it waits for GitHub, an executor or another connection, and the pool cannot
//   deadlock at any size (nested acquires abort in PgPool).
// - Read-then-write steps lock the rows they read (FOR UPDATE / FOR SHARE): a fenced write
//   share-locks its work item, so a concurrent claim (which bumps the fence) waits for it, and
//   vice versa. Claims take several items per statement with FOR UPDATE SKIP LOCKED.
// - Transactions run at READ COMMITTED with synchronous_commit from Durability (PgConn).
//   Serialization failures and deadlocks are retried by PgConn::RunTransaction; a lost
//   connection is kUnavailable (the caller retries or answers non-2xx), and the pool
//   reconnects on the next call.
// - Wakeups: after every commit of new work, this process's subscribers are woken at once and
//   a listener thread on its own connection (not from the pool) sends one NOTIFY on
//   gatehouse_work or gatehouse_deliveries for the other processes (coalesced), and LISTENs for
//   theirs. After a reconnect it wakes this process's subscribers once, since notifications
//   sent while it was away are gone; it pings an idle connection so that a silently dead one
//   is noticed. Polling stays the backstop: a lost notification delays, never loses.
//
// One class implements every concept's interface, each in its own .cc file
// (store/postgres/pg_*.cc); the Store accessors hand out this object as each interface.
#pragma once

#include <atomic>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <thread>

#include "store/counters.h"
#include "store/local_wakeups.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_pool.h"
#include "store/store.h"

namespace gatehouse::postgres {

struct PgStoreOptions {
  // At most this many connections for store calls (the listener has one more of its own).
  int pool_size = 8;
  // How long a store call waits for a free connection before it fails kUnavailable.
  std::chrono::milliseconds acquire_timeout{10000};
  // Start the LISTEN thread (cross-process wake-ups). Tools that only read turn it off.
  bool listen = true;
  std::string application_name = "gatehouse";
};

class PgStore;

// Connects, applies pending migrations (once, even when processes start together) and starts
// the listener. kUnavailable when the server cannot be reached.
Result<std::unique_ptr<PgStore>> OpenPgStore(const std::string& url,
                                             const PgStoreOptions& options = {});

class PgStore final : public Store,
                      public WorkQueue,
                      public Inbox,
                      public ActionLedger,
                      public AuditLog,
                      public RepoDirectory,
                      public ReviewRuns,
                      public MergeQueue {
 public:
  ~PgStore() override;

  WorkQueue& work() override { return *this; }
  Inbox& inbox() override { return *this; }
  ActionLedger& ledger() override { return *this; }
  AuditLog& audit() override { return *this; }
  RepoDirectory& repos() override { return *this; }
  ReviewRuns& reviews() override { return *this; }
  MergeQueue& queues() override { return *this; }
  Wakeups& wakeups() override { return wakeups_; }

  // The work queue: store/postgres/pg_work.cc (Wake in pg_wake.cc).
  Status Enqueue(std::span<const Signal> signals, Time now, Durability durability) override;
  Result<std::vector<Lease>> Claim(std::string_view owner, size_t max_items, Duration lease,
                                   Time now) override;
  Result<std::vector<Status>> Renew(std::span<const LeaseRenewal> renewals, Time now) override;
  Result<std::vector<Status>> Finish(std::span<const PassFinish> finishes, Time now) override;
  Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                               size_t max_items, Duration lease, Time now) override;
  Status Rearm(std::string_view key, Time now) override;
  Status Wake(std::span<const std::string> keys, Time now) override;
  Result<std::optional<WorkItem>> GetWorkItem(std::string_view key) override;
  Result<std::vector<WorkItem>> ListWorkItems(const WorkFilter& filter) override;
  Result<WorkSummary> SummarizeWork() override;

  // Store-wide: store/postgres/pg_store.cc.
  Result<Counters> GetCounters() override;
  Status CheckWritable() override;

  // The inbox: store/postgres/pg_inbox.cc; ApplyRouting is store/postgres/pg_routing.cc.
  Result<std::vector<AcceptOutcome>> AcceptDeliveries(std::span<const Delivery> deliveries,
                                                      const Counters& rejected, Time now) override;
  Result<std::vector<InboxEntry>> ClaimDeliveries(std::string_view owner, size_t limit, Open which,
                                                  Duration lease, Time now) override;
  Status ApplyRouting(std::span<const RouteDecision> decisions, Time now) override;
  Result<Funnel> GetFunnel() override;
  Result<std::optional<InboxEntry>> GetDelivery(std::string_view delivery_id) override;
  Result<std::vector<std::string>> HeldDeliveryIds(
      std::span<const std::string> delivery_ids) override;
  Result<int64_t> GetRecoveryMark() override;
  Status RaiseRecoveryMark(int64_t attempt_id, Time now) override;

  // The action ledger: store/postgres/pg_ledger.cc.
  Result<IntentResult> RecordIntent(const ActionKey& key, int64_t fence, Time now) override;
  Status RecordOutcome(int64_t id, int64_t fence, ActionState outcome, std::string_view result,
                       Time now) override;
  Result<std::vector<ActionRecord>> ListActions(std::string_view subject) override;
  Result<std::vector<ActionRecord>> ListOpenIntents(size_t limit) override;
  Result<std::vector<KindCount>> CountActions() override;

  // Head occurrences: store/postgres/pg_heads.cc.
  Result<std::optional<HeadOccurrence>> LatestHeadOccurrence(std::string_view subject) override;
  Result<HeadOccurrence> StartHeadOccurrence(std::string_view subject, std::string_view head_sha,
                                             Time github_at, int64_t fence, Time now) override;

  // Repositories and PR facts: store/postgres/pg_repos.cc.
  Result<std::vector<RepoInstallation>> ListRepositories() override;
  Result<std::optional<RepoInstallation>> GetRepository(std::string_view repo) override;
  Result<std::vector<PrFact>> GetPrFacts(std::string_view subject) override;
  Result<std::vector<std::string>> PullRequestsWithHead(std::string_view repo,
                                                        std::string_view sha) override;
  Status RecordLearned(std::span<const RepoInstallation> repos, std::span<const PrFact> facts,
                       Time now) override;

  // The audit log: store/postgres/pg_audit.cc.
  Status AppendAudit(std::span<const AuditEntry> entries, Durability durability) override;
  Result<std::vector<AuditEntry>> ListAudit(std::string_view subject, size_t limit) override;

  // Review runs: store/postgres/pg_reviews.cc.
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

  // Reviewers, assignment and slots: store/postgres/pg_reviewers.cc.
  Result<Assignment> AssignAndClaimSlot(int64_t id, std::span<const ReviewerSlotSpec> candidates,
                                        int64_t fence, Time now) override;
  Status ReleaseSlot(std::string_view work_key, int64_t fence, Time now) override;
  Status EnsureReviewers(std::span<const std::pair<std::string, bool>> initial, Time now) override;
  Status SetPaused(std::string_view reviewer, bool paused, Time now) override;
  Result<std::vector<ReviewerState>> ListReviewers(Time now) override;

  // Merge queue entries: store/postgres/pg_queue.cc.
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
  // The server's clock_timestamp().
  Result<std::optional<Time>> DatabaseTime() override;
  void RegisterMetrics(metrics::Registry& registry) override;
  PgPool& pool() { return *pool_; }

  // Shared by the concept files (pg_*.cc); each runs inside a transaction on `c`.
  //
  // Adds `delta` to counter `name` in this store's shard.
  Status Bump(PgConn& c, std::string_view name, int64_t delta);
  // Several counters in one statement (zero deltas are skipped; names must differ).
  Status Bumps(PgConn& c, std::span<const CounterDelta> deltas);
  Status Bumps(PgConn& c, std::initializer_list<CounterDelta> deltas) {
    return Bumps(c, std::span<const CounterDelta>(deltas.begin(), deltas.size()));
  }
  // After a commit of new work of `topic`: wakes this process's subscribers at once, and has
  // the listener thread NOTIFY the other processes (coalesced: one NOTIFY per topic however
  // many commits came meanwhile). Never inside a transaction: a NOTIFY queued in a
  // transaction takes PostgreSQL's global notify lock at commit and would serialize every
  // notifying commit of every node behind each other's WAL flush.
  void NotifyCommitted(Wakeups::Topic topic);
  // The body of Enqueue (pg_work.cc): folds signals and bumps work.signals. The caller calls
  // NotifyCommitted(kWork) after the commit.
  Status EnqueueInTx(PgConn& c, std::span<const Signal> signals, Time now);
  // kFenceLost unless `subject`'s work item is running under `fence`; share-locks the item
  // until the transaction ends, so no claim can move the fence under the caller's write.
  Status CheckFenceInTx(PgConn& c, std::string_view subject, int64_t fence);
  // Applies what routing decisions learned (repos, repos_removed, facts), as applying them
  // one by one in this order would (pg_repos.cc).
  Status ApplyLearnedInTx(PgConn& c, const std::vector<const RouteDecision*>& decisions, Time now);

  // Appends validated audit entries in one statement, ids increasing along the span, and bumps
  // audit.entries; inside a write transaction (pg_audit.cc).
  Status AppendAuditInTx(PgConn& c, std::span<const AuditEntry> entries);

  // Runs `body` in one write transaction on a pooled connection.
  Status Write(Durability durability, const std::function<Status(PgConn&)>& body,
               const PgTransactionOptions& options = {});
  // Runs `body` on a pooled connection, outside any explicit transaction (each statement is
  // its own snapshot). For reads that need one snapshot, use Write with kRecoverable.
  Status Read(const std::function<Status(PgConn&)>& body);

 private:
  friend Result<std::unique_ptr<PgStore>> OpenPgStore(const std::string&, const PgStoreOptions&);
  PgStore(std::string url, PgStoreOptions options, std::unique_ptr<PgPool> pool);

  void StartListener();
  void ListenLoop();
  // Sends the pending NOTIFYs on `conn` (the listener's, or a pooled one without a listener).
  Status SendPendingNotifies(PgConn& conn);

  const std::string url_;
  const PgStoreOptions options_;
  std::unique_ptr<PgPool> pool_;
  // The counter shard this store instance adds to (counter_shards), as in SQLite.
  const int64_t counter_shard_;
  std::atomic<metrics::Histogram*> write_timer_{nullptr};  // RegisterMetrics
  std::atomic<metrics::Histogram*> read_timer_{nullptr};
  // Identifies this store instance in NOTIFY payloads, so the listener skips its own.
  const std::string instance_token_;
  LocalWakeups wakeups_;
  std::atomic<bool> stopping_{false};
  // Topics committed since the listener last sent NOTIFY for them.
  std::atomic<bool> pending_work_{false};
  std::atomic<bool> pending_deliveries_{false};
  int kick_fd_ = -1;  // eventfd: cuts the listener's wait short (stop, or a NOTIFY to send)
  std::thread listener_;
};

}  // namespace gatehouse::postgres
