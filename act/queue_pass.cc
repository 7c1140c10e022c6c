// The queue pass as named steps; the contract is in act/queue_pass.h.
#include "act/queue_pass.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "act/github_outcome.h"
#include "act/queue_batches.h"
#include "act/queue_check_run.h"
#include "base/log.h"
#include "base/subject.h"
#include "decide/options.h"
#include "decide/queue_step.h"
#include "decide/reasons.h"
#include "store/queue_pace.h"

namespace gatehouse::act {
namespace {

using decide::QueueMove;

decide::QueueHeadEntry HeadEntryOf(const QueueEntry& e) {
  return decide::QueueHeadEntry{std::string(EntryStateName(e.state)), e.key.head_sha, e.tested_sha,
                                e.deadline};
}

decide::QueuePull PullOf(const PullState& s) {
  decide::QueuePull p;
  p.state = s.pr.state;
  p.merged = s.pr.merged;
  p.draft = s.pr.draft;
  p.head_sha = s.pr.head_sha;
  p.mergeable = s.pr.mergeable;
  p.mergeable_state = s.pr.mergeable_state;
  for (const CheckRun& r : s.check_runs) {
    p.check_runs.push_back(
        decide::CheckRun{r.id, r.name, r.app, r.status, r.conclusion, r.head_sha});
  }
  int64_t status_id = 0;
  for (const CommitStatus& st : s.status.statuses) {
    p.statuses.push_back(decide::CommitStatus{++status_id, st.context, st.state});
  }
  return p;
}

std::string EntryName(const QueueEntry& e) {
  return "entry " + std::to_string(e.id) + " (" + e.key.subject + ")";
}

}  // namespace

// One pass over one queue: the lease, the queue's repository and policy, and the step loop.
class QueuePass::OnePass : public QueueMoves {
 public:
  OnePass(QueuePass& pass, const Lease& lease, const LeaseLostProbe& lost, QueueKey key)
      : p_(pass), lease_(lease), lost_(lost), key_(std::move(key)), now_(p_.clock_->Now()) {}

  PassOutcome Go() {
    if (auto end = ResolveRepository()) return *end;
    if (auto end = LoadPolicy()) return *end;
    if (p_.config_.dry_run) {
      Log(LogLevel::kInfo, "queue.dry_run").Field("queue", key_.key());
      return PassOutcome::Done();
    }
    if (auto end = DropWhatMayNotWait()) return *end;
    AnnounceLeft();
    AnnounceQueued();
    std::optional<Time> wake;
    const int rounds = 3 * static_cast<int>(entries_.size()) + 10;
    for (int round = 0; round < rounds && !entries_.empty(); ++round) {
      if (lost_()) return PassOutcome::Transient("lease lost");
      now_ = p_.clock_->Now();
      Moved moved = policy_.merge_queue.method == decide::QueueMethod::kIntegrationBranch
                        ? MoveBatch(*this, entries_)
                        : MoveHead(entries_.front());
      if (moved.stop) return *moved.stop;
      if (moved.wait) {
        wake = moved.wait;
        break;
      }
      if (auto end = ListEntries()) return *end;
    }
    return Reschedule(wake);
  }

  // QueueMoves.
  Time now() const override { return now_; }
  const QueueKey& queue() const override { return key_; }
  const RepoRef& repo() const override { return repo_; }
  const CallContext& call() const override { return call_; }
  const decide::Policy& policy() const override { return policy_; }
  const std::vector<decide::RequiredCheck>& required() const override { return required_; }
  GitHub& github() override { return p_.github_; }
  Store& store() override { return p_.store_; }

 private:
  // 1. The queue's repository and who acts for it.
  std::optional<PassOutcome> ResolveRepository() {
    if (!ParseRepoFullName(key_.repo_full_name(), &repo_)) {
      return PassOutcome::Permanent("not a repository: " + std::string(key_.repo_full_name()));
    }
    if (p_.config_.app_mode) {
      auto repo = p_.store_.repos().GetRepository(repo_.FullName());
      if (!repo.ok()) return PassOutcome::Transient(repo.status().ToString());
      if (!*repo || !(*repo)->installation_id) {
        Log(LogLevel::kWarn, "queue.no_installation").Field("queue", key_.key());
        return PassOutcome::Done();
      }
      call_.installation_id = *(*repo)->installation_id;
    }
    call_.subject = lease_.key;
    call_.background = decide::IsBackgroundPass(lease_.reasons);
    return std::nullopt;
  }

  std::optional<PassOutcome> LoadPolicy() {
    auto loaded = p_.policies_.Load(call_, repo_);
    if (!loaded.ok()) return ReadFailureOutcome("reading the policy", loaded.error());
    if (!loaded->error.empty()) {
      // The PRs' passes report the file's errors; the queue holds until it is fixed.
      Log(LogLevel::kWarn, "queue.held")
          .Field("queue", key_.key())
          .Field("why", "the policy file is invalid");
      hold_ = true;
    }
    policy_ = std::move(loaded->policy);
    required_ = policy_.merge_queue.required_checks.value_or(policy_.required_checks.checks);
    return ListEntries();
  }

  std::optional<PassOutcome> ListEntries() {
    auto entries = p_.store_.queues().ListQueue(key_.key(), kQueuePaceWindow);
    if (!entries.ok()) return PassOutcome::Transient(entries.status().ToString());
    entries_.clear();
    ended_.clear();
    std::vector<EndedEntry> ended;
    for (QueueEntry& e : *entries) {
      if (IsTerminal(e.state)) {
        ended.push_back({e.state == EntryState::kMerged, e.updated_at});
        ended_.push_back(std::move(e));
      } else {
        entries_.push_back(std::move(e));
      }
    }
    pace_ = PaceOf(ended);
    if (hold_) entries_.clear();
    return std::nullopt;
  }

  // The `gatehouse/queue` check run of an entry (docs/MERGE_QUEUE.md "Visibility"), through
  // the ledger under the queue's key, once per entry and state (and tested SHA): entering,
  // testing, merged, dropped. Written on the head the PR has in that state (the serial
  // method's update is a new head). Best effort: a failure is logged, the queue goes on.
  void Announce(const QueueEntry& e, size_t position) {
    const std::optional<decide::PlannedAction> a =
        QueueCheckRunOf(e, QueueCheckRunSetting{key_, policy_.merge_queue.method, position,
                                                entries_.size(), EtaOf(pace_, position, now_)});
    if (!a) return;
    const std::optional<PassOutcome> stop = stop_;
    const ActionReport report = ExecuteOne(e, *a);
    stop_ = stop;  // an announcement never stops the queue
    if (report.result == ActionReport::Result::kFailed ||
        report.result == ActionReport::Result::kRateLimited ||
        report.result == ActionReport::Result::kUnknown) {
      Log(LogLevel::kWarn, "queue.announce_failed")
          .Field("queue", key_.key())
          .Field("entry", e.id)
          .Field("error", report.detail);
    }
  }

  // The entries their PRs' passes dropped (a push, a close, a `dequeue`: the pass was woken with
  // `queue-leave`): their check runs end too, once each (the ledger finds the ones written).
  void AnnounceLeft() {
    const auto& why = lease_.reasons;
    if (std::find(why.begin(), why.end(), "queue-leave") == why.end()) return;
    for (const QueueEntry& e : ended_) {
      if (e.state == EntryState::kDropped) Announce(e, 0);
    }
  }

  // Every queued entry's check run, once (the ledger finds the ones already written).
  void AnnounceQueued() {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].state == EntryState::kQueued) Announce(entries_[i], i);
    }
  }

  // 1-2. A queue that may no longer merge drops its entries (a merge under way is settled, not
  // dropped; an entry a `queue` or `merge` command admitted was asked for by a person, and only
  // a `dequeue`, through its PR's pass, takes it out when merges are not automatic); an entry
  // queued past max_time_in_queue is dropped.
  std::optional<PassOutcome> DropWhatMayNotWait() {
    const decide::MergeQueuePolicy& q = policy_.merge_queue;
    std::string off;
    if (!q.enabled) {
      off = "the merge queue was disabled";
    } else if (policy_.actions.AutonomyFor(decide::ActionClass::kMerge) !=
               decide::Autonomy::kAuto) {
      off = "merges are not automatic (actions: merge is not auto)";
    }
    bool dropped = false;
    for (const QueueEntry& e : entries_) {
      // A command stands in for the autonomy, never for a disabled queue.
      std::string why = q.enabled && e.key.admitted_by != 0 ? "" : off;
      if (why.empty() && e.state == EntryState::kQueued &&
          now_ - e.entered_at >= q.max_time_in_queue) {
        why = "waited longer than max_time_in_queue (" + FormatDuration(q.max_time_in_queue) + ")";
      }
      if (why.empty() || e.state == EntryState::kMerging) continue;
      if (auto end = Drop(e, why)) return end;
      dropped = true;
    }
    return dropped ? ListEntries() : std::nullopt;
  }

  // 3. One move of the head entry, its PR read live first.
  Moved MoveHead(const QueueEntry& e) {
    decide::QueuePull pull;
    if (auto end = ReadPull(e, &pull)) return Stop(*end);
    const QueueMove move = decide::NextQueueMove(HeadEntryOf(e), pull, required_,
                                                 policy_.merge_queue.checks_timeout, now_);
    switch (move.kind) {
      case QueueMove::Kind::kDrop:
        if (auto end = Drop(e, move.reason)) return Stop(*end);
        return GoOn();
      case QueueMove::Kind::kWait:
        return WaitUntil(move.at);
      case QueueMove::Kind::kStartTesting:
        return StepTo(e, EntryState::kTesting, move.sha, move.reason);
      case QueueMove::Kind::kStartMerging:
        return StepTo(e, EntryState::kMerging, move.sha, "the required checks passed");
      case QueueMove::Kind::kStartUpdate: {
        Moved stepped = StepTo(e, EntryState::kUpdating, move.sha,
                               move.reason.empty() ? "behind its base" : move.reason);
        if (stepped.stop || stepped.wait) return stepped;
        return Update(e, move.sha);
      }
      case QueueMove::Kind::kUpdate:
        return Update(e, move.sha);
      case QueueMove::Kind::kMerge:
        return Merge(e);
    }
    return GoOn();
  }

  std::optional<PassOutcome> ReadPull(const QueueEntry& e, decide::QueuePull* out) override {
    auto read = p_.github_.ReadPullState(call_, repo_, NumberOf(e));
    if (!read.ok()) {
      if (read.error().kind == GitHubErrorKind::kNotFound) {
        out->found = false;
        return std::nullopt;
      }
      return ReadFailureOutcome("reading " + e.key.subject, read.error());
    }
    *out = PullOf(*read);
    return std::nullopt;
  }

  // update-branch bound to `from`, through the ledger under the queue's key.
  Moved Update(const QueueEntry& e, const std::string& from) {
    decide::PlannedAction a = Action(e, decide::ActionKind::kUpdateBranch, from);
    const ActionReport report = ExecuteOne(e, a);
    switch (report.result) {
      case ActionReport::Result::kDone:
      case ActionReport::Result::kReconciled:
        Audit(e, from,
              "asked GitHub to bring " + e.key.subject + " up to date from " +
                  decide::ShortHead(from) + ": " + report.detail);
        return GoOn();  // the next round reads the new head
      case ActionReport::Result::kAlreadyDone:
        return WaitUntil(now_ + decide::kQueueRecheck);  // asked before: the head will move
      case ActionReport::Result::kSuperseded:
        return DropMoved(e, "new commits were pushed before the update (" + report.detail + ")");
      case ActionReport::Result::kFailed: {
        // Refused on an unmoved head: nothing new on the base (then the head is tested as it
        // is), or conflicts.
        decide::QueuePull pull;
        if (auto end = ReadPull(e, &pull)) return Stop(*end);
        if (pull.mergeable_state == "behind" || pull.mergeable == false) {
          return DropMoved(e, "GitHub refused to update the branch: " + report.detail);
        }
        return GoOn();
      }
      default:
        return Stop(StopOutcome(report));
    }
  }

  // The merge bound to the tested SHA, through the ledger under the queue's key.
  Moved Merge(const QueueEntry& e) {
    decide::PlannedAction a = Action(e, decide::ActionKind::kMerge, e.tested_sha);
    a.merge_method = policy_.actions.merge_method;
    const ActionReport report = ExecuteOne(e, a);
    switch (report.result) {
      case ActionReport::Result::kDone:
      case ActionReport::Result::kReconciled:
      case ActionReport::Result::kAlreadyDone:
        return StepTo(e, EntryState::kMerged, e.tested_sha, report.detail);
      case ActionReport::Result::kSuperseded:
      case ActionReport::Result::kFailed: {
        decide::QueuePull pull;
        if (auto end = ReadPull(e, &pull)) return Stop(*end);
        if (pull.merged) return DropMoved(e, "merged outside the queue");
        if (pull.state == "open" && pull.head_sha == e.tested_sha &&
            pull.mergeable_state == "behind") {
          return StepTo(e, EntryState::kUpdating, e.tested_sha,
                        "the base branch moved before the merge");
        }
        return DropMoved(e, "GitHub refused the merge: " + report.detail);
      }
      default:
        return Stop(StopOutcome(report));
    }
  }

  decide::PlannedAction Action(const QueueEntry& e, decide::ActionKind kind,
                               const std::string& sha) const {
    decide::PlannedAction a;
    a.kind = kind;
    a.head_sha = sha;
    a.head_occurrence = 1;  // the entry id in the detail tells heads apart
    a.detail = "entry:" + std::to_string(e.id);
    a.why = "merge queue " + key_.key();
    return a;
  }

  ActionReport ExecuteOne(const QueueEntry& e, const decide::PlannedAction& a) override {
    Target target;
    target.subject = lease_.key;
    target.repo = repo_;
    target.number = NumberOf(e);
    target.call = call_;
    ExecutorOptions options = p_.config_.executor;
    options.note_heads = false;
    decide::Plan plan;
    plan.actions.push_back(a);
    ExecResult r = Execute(p_.store_, p_.github_, *p_.clock_, target, lease_.fence, plan, options);
    ActionReport report = r.actions.front();
    if (r.stop) stop_ = r.stop;
    return report;
  }

  PassOutcome StopOutcome(const ActionReport& report) const override {
    return stop_ ? *stop_ : PassOutcome::Transient(report.detail);
  }

  // A fenced state change; the PR's audit log says it. An entry its PR's pass moved first
  // (dropped) is simply taken as it is now.
  Moved StepTo(const QueueEntry& e, EntryState to, const std::string& sha,
               const std::string& reason) {
    EntryStep step;
    step.from = e.state;
    step.to = to;
    step.tested_sha = sha;
    step.reason = reason;
    if (to == EntryState::kUpdating || to == EntryState::kTesting) {
      step.deadline = now_ + policy_.merge_queue.checks_timeout;
    }
    return Step(e, step);
  }

  Moved Step(const QueueEntry& e, const EntryStep& step) override {
    auto moved = p_.store_.queues().Step(e.id, step, lease_.fence, now_);
    if (!moved.ok()) {
      if (moved.status().code() == StatusCode::kFailedPrecondition) return GoOn();
      return Stop(PassOutcome::Transient(moved.status().ToString()));
    }
    const std::string sha = moved->tested_sha;
    Audit(e, sha,
          EntryName(e) + ": " + std::string(EntryStateName(e.state)) + " -> " +
              std::string(EntryStateName(step.to)) +
              (sha.empty() ? "" : " at " + decide::ShortHead(sha)) +
              (step.reason.empty() ? "" : ": " + step.reason));
    if (IsTerminal(step.to)) TellPr(e);
    if (step.to == EntryState::kTesting || IsTerminal(step.to)) {
      const auto at = std::find_if(entries_.begin(), entries_.end(),
                                   [&](const QueueEntry& x) { return x.id == e.id; });
      Announce(*moved, static_cast<size_t>(std::max<std::ptrdiff_t>(0, at - entries_.begin())));
    }
    return GoOn();
  }

  std::optional<PassOutcome> Drop(const QueueEntry& e, const std::string& reason) {
    Moved m = StepTo(e, EntryState::kDropped, e.tested_sha, reason);
    return m.stop;
  }
  Moved DropMoved(const QueueEntry& e, const std::string& reason) {
    if (auto end = Drop(e, reason)) return Stop(*end);
    return GoOn();
  }

  void Audit(const QueueEntry& e, const std::string& sha, const std::string& summary) override {
    AuditEntry line;
    line.subject = e.key.subject;
    line.at = now_;
    line.fence = lease_.fence;
    line.head_sha = sha.empty() ? e.key.head_sha : sha;
    line.kind = "queue";
    line.summary = key_.key() + ": " + summary;
    Status s = p_.store_.audit().AppendAudit({&line, 1}, Durability::kRecoverable);
    if (!s.ok()) Log(LogLevel::kWarn, "queue.audit_failed").Field("error", s.ToString());
    Log(LogLevel::kInfo, "queue.step").Field("queue", key_.key()).Field("step", summary);
  }

  // The PR's summary says what became of its entry: its pass runs again.
  void TellPr(const QueueEntry& e) {
    const Signal signal{e.key.subject, std::string(decide::kReasonQueueMoved), Duration::zero()};
    Status s = p_.store_.work().Enqueue({&signal, 1}, now_, Durability::kRecoverable);
    if (!s.ok()) Log(LogLevel::kWarn, "queue.signal_failed").Field("error", s.ToString());
  }

  // 4. The queue looks again at the earliest deadline.
  PassOutcome Reschedule(std::optional<Time> wake) {
    for (const QueueEntry& e : entries_) {
      if (e.state != EntryState::kQueued) continue;
      const Time expires = e.entered_at + policy_.merge_queue.max_time_in_queue;
      wake = wake ? std::min(*wake, expires) : expires;
    }
    if (!wake) return PassOutcome::Done();
    const Signal signal{lease_.key, std::string(decide::kReasonTimer),
                        std::max(Duration::zero(), *wake - now_)};
    Status s = p_.store_.work().Enqueue({&signal, 1}, now_, Durability::kRecoverable);
    if (!s.ok()) return PassOutcome::Transient("scheduling the queue's next look: " + s.ToString());
    return PassOutcome::Done();
  }

  static int64_t NumberOf(const QueueEntry& e) {
    const std::optional<Subject> s = Subject::Parse(e.key.subject);
    return s ? s->number() : 0;
  }

  QueuePass& p_;
  const Lease& lease_;
  const LeaseLostProbe& lost_;
  const QueueKey key_;
  Time now_;  // the pass's instant, taken again at each round
  RepoRef repo_;
  CallContext call_;
  decide::Policy policy_;
  std::vector<decide::RequiredCheck> required_;
  std::vector<QueueEntry> entries_;  // the open ones, in the queue's order
  std::vector<QueueEntry> ended_;    // the latest ended ones (kQueuePaceWindow)
  QueuePace pace_;                   // from the latest ended ones
  bool hold_ = false;
  std::optional<PassOutcome> stop_;
};

QueuePass::QueuePass(Store& store, GitHub& github, ClockPtr clock, QueuePassConfig config)
    : store_(store),
      github_(github),
      clock_(std::move(clock)),
      config_(std::move(config)),
      policies_(github_, {config_.defaults, config_.policy_path, config_.override_dir}) {}

PassOutcome QueuePass::Run(const Lease& lease, const LeaseLostProbe& lease_lost) {
  std::optional<QueueKey> key = QueueKey::Parse(lease.key);
  if (!key) return PassOutcome::Permanent("not a merge queue: " + lease.key);
  return OnePass(*this, lease, lease_lost, *std::move(key)).Go();
}

}  // namespace gatehouse::act
