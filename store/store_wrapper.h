// Forwarding wrappers (LevelDB's EnvWrapper idea): each forwards every method of its interface
// to a target, so a decorator — a counting store for benchmarks, a fault-injecting one for
// tests — overrides only what it changes, and a method added to an interface is forwarded here
// once instead of in every decorator.
//
//   class CountingQueue : public WorkQueueWrapper { ... Enqueue(...) override { ...; return
//     WorkQueueWrapper::Enqueue(...); } };
//   class CountingStore : public StoreWrapper { WorkQueue& work() override { return queue_; } };
//
// The target must outlive the wrapper. Thread-safety is the target's.
#pragma once

#include "store/store.h"

namespace gatehouse {

class WorkQueueWrapper : public WorkQueue {
 public:
  explicit WorkQueueWrapper(WorkQueue& target) : target_(target) {}
  WorkQueue& target() const { return target_; }

  Status Enqueue(std::span<const Signal> signals, Time now, Durability durability) override {
    return target_.Enqueue(signals, now, durability);
  }
  Result<std::vector<Lease>> Claim(std::string_view owner, size_t max_items, Duration lease,
                                   Time now) override {
    return target_.Claim(owner, max_items, lease, now);
  }
  Result<std::vector<Status>> Renew(std::span<const LeaseRenewal> renewals, Time now) override {
    return target_.Renew(renewals, now);
  }
  Result<std::vector<Status>> Finish(std::span<const PassFinish> finishes, Time now) override {
    return target_.Finish(finishes, now);
  }
  Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                               size_t max_items, Duration lease, Time now) override {
    return target_.FinishAndClaim(finishes, owner, max_items, lease, now);
  }
  Status Rearm(std::string_view key, Time now) override { return target_.Rearm(key, now); }
  Status Wake(std::span<const std::string> keys, Time now) override {
    return target_.Wake(keys, now);
  }
  Result<std::optional<WorkItem>> GetWorkItem(std::string_view key) override {
    return target_.GetWorkItem(key);
  }
  Result<std::vector<WorkItem>> ListWorkItems(const WorkFilter& filter) override {
    return target_.ListWorkItems(filter);
  }
  Result<WorkSummary> SummarizeWork() override { return target_.SummarizeWork(); }

 private:
  WorkQueue& target_;
};

class InboxWrapper : public Inbox {
 public:
  explicit InboxWrapper(Inbox& target) : target_(target) {}
  Inbox& target() const { return target_; }

  Result<std::vector<AcceptOutcome>> AcceptDeliveries(std::span<const Delivery> deliveries,
                                                      const Counters& rejected, Time now) override {
    return target_.AcceptDeliveries(deliveries, rejected, now);
  }
  Result<std::vector<InboxEntry>> ClaimDeliveries(std::string_view owner, size_t limit, Open which,
                                                  Duration lease, Time now) override {
    return target_.ClaimDeliveries(owner, limit, which, lease, now);
  }
  Status ApplyRouting(std::span<const RouteDecision> decisions, Time now) override {
    return target_.ApplyRouting(decisions, now);
  }
  Result<Funnel> GetFunnel() override { return target_.GetFunnel(); }
  Result<std::optional<InboxEntry>> GetDelivery(std::string_view delivery_id) override {
    return target_.GetDelivery(delivery_id);
  }
  Result<std::vector<std::string>> HeldDeliveryIds(
      std::span<const std::string> delivery_ids) override {
    return target_.HeldDeliveryIds(delivery_ids);
  }
  Result<int64_t> GetRecoveryMark() override { return target_.GetRecoveryMark(); }
  Status RaiseRecoveryMark(int64_t attempt_id, Time now) override {
    return target_.RaiseRecoveryMark(attempt_id, now);
  }

 private:
  Inbox& target_;
};

class ActionLedgerWrapper : public ActionLedger {
 public:
  explicit ActionLedgerWrapper(ActionLedger& target) : target_(target) {}
  ActionLedger& target() const { return target_; }

  Result<IntentResult> RecordIntent(const ActionKey& key, int64_t fence, Time now) override {
    return target_.RecordIntent(key, fence, now);
  }
  Status RecordOutcome(int64_t id, int64_t fence, ActionState outcome, std::string_view result,
                       Time now) override {
    return target_.RecordOutcome(id, fence, outcome, result, now);
  }
  Result<std::vector<ActionRecord>> ListActions(std::string_view subject) override {
    return target_.ListActions(subject);
  }
  Result<std::vector<ActionRecord>> ListOpenIntents(size_t limit) override {
    return target_.ListOpenIntents(limit);
  }
  Result<std::vector<KindCount>> CountActions() override { return target_.CountActions(); }
  Result<std::optional<HeadOccurrence>> LatestHeadOccurrence(std::string_view subject) override {
    return target_.LatestHeadOccurrence(subject);
  }
  Result<HeadOccurrence> StartHeadOccurrence(std::string_view subject, std::string_view head_sha,
                                             Time github_at, int64_t fence, Time now) override {
    return target_.StartHeadOccurrence(subject, head_sha, github_at, fence, now);
  }

 private:
  ActionLedger& target_;
};

class AuditLogWrapper : public AuditLog {
 public:
  explicit AuditLogWrapper(AuditLog& target) : target_(target) {}
  AuditLog& target() const { return target_; }

  Status AppendAudit(std::span<const AuditEntry> entries, Durability durability) override {
    return target_.AppendAudit(entries, durability);
  }
  Result<std::vector<AuditEntry>> ListAudit(std::string_view subject, size_t limit) override {
    return target_.ListAudit(subject, limit);
  }

 private:
  AuditLog& target_;
};

class RepoDirectoryWrapper : public RepoDirectory {
 public:
  explicit RepoDirectoryWrapper(RepoDirectory& target) : target_(target) {}
  RepoDirectory& target() const { return target_; }

  Result<std::vector<RepoInstallation>> ListRepositories() override {
    return target_.ListRepositories();
  }
  Result<std::optional<RepoInstallation>> GetRepository(std::string_view repo) override {
    return target_.GetRepository(repo);
  }
  Result<std::vector<PrFact>> GetPrFacts(std::string_view subject) override {
    return target_.GetPrFacts(subject);
  }
  Result<std::vector<std::string>> PullRequestsWithHead(std::string_view repo,
                                                        std::string_view sha) override {
    return target_.PullRequestsWithHead(repo, sha);
  }
  Status RecordLearned(std::span<const RepoInstallation> repos, std::span<const PrFact> facts,
                       Time now) override {
    return target_.RecordLearned(repos, facts, now);
  }

 private:
  RepoDirectory& target_;
};

class ReviewRunsWrapper : public ReviewRuns {
 public:
  explicit ReviewRunsWrapper(ReviewRuns& target) : target_(target) {}
  ReviewRuns& target() const { return target_; }

  Result<Requested> RequestRun(const ReviewRunKey& key, std::string_view fence_key, int64_t fence,
                               Time now) override {
    return target_.RequestRun(key, fence_key, fence, now);
  }
  Result<std::vector<ReviewRun>> ListRuns(std::string_view subject,
                                          std::string_view role = "") override {
    return target_.ListRuns(subject, role);
  }
  Result<std::optional<ReviewRun>> GetRun(int64_t id) override { return target_.GetRun(id); }
  Result<Assignment> AssignAndClaimSlot(int64_t id, std::span<const ReviewerSlotSpec> candidates,
                                        int64_t fence, Time now) override {
    return target_.AssignAndClaimSlot(id, candidates, fence, now);
  }
  Status RecordResult(int64_t id, std::string_view result_json, int64_t fence, Time now) override {
    return target_.RecordResult(id, result_json, fence, now);
  }
  Status EndRun(int64_t id, RunState end, std::string_view reason, int64_t review_id, int64_t fence,
                Time now) override {
    return target_.EndRun(id, end, reason, review_id, fence, now);
  }
  Status ReleaseSlot(std::string_view work_key, int64_t fence, Time now) override {
    return target_.ReleaseSlot(work_key, fence, now);
  }
  Result<std::vector<std::string>> CancelRuns(std::string_view subject, std::string_view keep_head,
                                              std::string_view reason, std::string_view fence_key,
                                              int64_t fence, Time now) override {
    return target_.CancelRuns(subject, keep_head, reason, fence_key, fence, now);
  }
  Status EnsureReviewers(std::span<const std::pair<std::string, bool>> initial, Time now) override {
    return target_.EnsureReviewers(initial, now);
  }
  Status SetPaused(std::string_view reviewer, bool paused, Time now) override {
    return target_.SetPaused(reviewer, paused, now);
  }
  Result<std::vector<ReviewerState>> ListReviewers(Time now) override {
    return target_.ListReviewers(now);
  }
  Result<std::vector<std::string>> WaitingWorkKeys() override { return target_.WaitingWorkKeys(); }
  Result<ReviewFunnel> GetReviewFunnel() override { return target_.GetReviewFunnel(); }
  Result<std::vector<RunCount>> CountRuns() override { return target_.CountRuns(); }

 private:
  ReviewRuns& target_;
};

// Forwards the accessors and store-wide calls; a decorator overrides the accessor of the
// concept it wraps and returns its own wrapper of target().work() (or inbox(), ...).
class StoreWrapper : public Store {
 public:
  explicit StoreWrapper(Store& target) : target_(target) {}
  Store& target() const { return target_; }

  WorkQueue& work() override { return target_.work(); }
  Inbox& inbox() override { return target_.inbox(); }
  ActionLedger& ledger() override { return target_.ledger(); }
  AuditLog& audit() override { return target_.audit(); }
  RepoDirectory& repos() override { return target_.repos(); }
  ReviewRuns& reviews() override { return target_.reviews(); }
  MergeQueue& queues() override { return target_.queues(); }
  Wakeups& wakeups() override { return target_.wakeups(); }
  Result<Counters> GetCounters() override { return target_.GetCounters(); }
  Status CheckWritable() override { return target_.CheckWritable(); }
  Result<int> SchemaVersion() override { return target_.SchemaVersion(); }
  Result<std::optional<Time>> DatabaseTime() override { return target_.DatabaseTime(); }
  void RegisterMetrics(metrics::Registry& registry) override { target_.RegisterMetrics(registry); }

 private:
  Store& target_;
};

}  // namespace gatehouse
