// The integration_branch method's moves; the contract is in act/queue_batches.h.
#include "act/queue_batches.h"

#include <algorithm>
#include <string>

#include "act/github_outcome.h"
#include "base/log.h"
#include "decide/queue_batch.h"
#include "decide/queue_standing.h"

namespace gatehouse::act {
namespace {

using decide::BatchMove;
using Moved = QueueMoves::Moved;

std::string BatchName(int64_t batch) { return "batch " + std::to_string(batch); }

int64_t PrNumber(const QueueEntry& e) {
  const std::optional<Subject> s = Subject::Parse(e.key.subject);
  return s ? s->number() : 0;
}

// One move over one batch.
class BatchMover {
 public:
  BatchMover(QueueMoves& moves, const std::vector<QueueEntry>& entries)
      : m_(moves), entries_(entries), branch_(decide::IntegrationBranch(std::string(base()))) {
    for (const QueueEntry& e : entries_) {
      if (e.state == EntryState::kQueued) break;  // those under way come first
      members_.push_back(e);
    }
  }

  Moved Go() {
    if (members_.empty()) return Form();
    const bool merging = std::any_of(members_.begin(), members_.end(), [](const QueueEntry& e) {
      return e.state == EntryState::kMerging;
    });
    if (merging) return Land();
    const bool updating = std::any_of(members_.begin(), members_.end(), [](const QueueEntry& e) {
      return e.state == EntryState::kUpdating;
    });
    if (updating) return Build();
    return Testing();
  }

 private:
  std::string_view base() const { return m_.queue().base(); }
  int64_t batch() const { return members_.front().batch; }

  // The first queued entries become the next batch: a bisected half as it was split, else up to
  // batch_size of them.
  Moved Form() {
    const QueueEntry& lead = entries_.front();
    const size_t limit = lead.batch != 0 ? entries_.size()
                                         : static_cast<size_t>(m_.policy().merge_queue.batch_size);
    const int64_t id = lead.batch != 0 ? lead.batch : lead.id;
    std::vector<const QueueEntry*> take;
    for (const QueueEntry& e : entries_) {
      if (take.size() >= limit || e.state != EntryState::kQueued || e.batch != lead.batch) break;
      take.push_back(&e);
    }
    if (lead.batch == 0) {
      if (auto at = decide::BatchFormsAt(take.size(), limit, lead.entered_at, m_.now())) {
        return QueueMoves::WaitUntil(*at);  // a batch of one now would test it alone
      }
    }
    for (const QueueEntry* e : take) {
      EntryStep step{.from = EntryState::kQueued,
                     .to = EntryState::kUpdating,
                     .tested_sha = "",
                     .deadline = m_.now() + m_.policy().merge_queue.checks_timeout,
                     .reason = "in " + BatchName(id) + " of " + std::to_string(take.size()),
                     .batch = id};
      Moved moved = m_.Step(*e, step);
      if (moved.stop) return moved;
    }
    return QueueMoves::GoOn();  // the next round builds it
  }

  // The integration branch from the base's SHA and each member's head.
  Moved Build() {
    auto base_sha = m_.github().GetBranchSha(m_.call(), m_.repo(), std::string(base()));
    if (!base_sha.ok()) {
      return QueueMoves::Stop(ReadFailureOutcome("reading branch " + std::string(base()),
                                                 base_sha.error()));
    }
    if (auto end = ResetBranch(*base_sha)) return QueueMoves::Stop(*end);
    std::string tip = *base_sha;
    std::vector<const QueueEntry*> kept;
    for (const QueueEntry& e : members_) {
      decide::QueuePull pull;
      if (auto end = m_.ReadPull(e, &pull)) return QueueMoves::Stop(*end);
      const std::string why = decide::WhyMemberCannotLand(e.key.head_sha, pull);
      if (!why.empty()) {
        if (auto end = Drop(e, why)) return QueueMoves::Stop(*end);
        continue;
      }
      auto merged = m_.github().MergeIntoBranch(
          m_.call(), m_.repo(), branch_, e.key.head_sha,
          "gatehouse merge queue: #" + std::to_string(PrNumber(e)) + " into " + branch_);
      if (!merged.ok()) {
        const GitHubErrorKind kind = merged.error().kind;
        if (kind == GitHubErrorKind::kHeadModified || kind == GitHubErrorKind::kNotFound) {
          const std::string reason =
              kind == GitHubErrorKind::kHeadModified
                  ? "merge conflicts with the base branch and the pull requests ahead of it in "
                    "the batch"
                  : "GitHub could not merge its head into the batch: " + merged.error().message;
          if (auto end = Drop(e, reason)) return QueueMoves::Stop(*end);
          continue;
        }
        return QueueMoves::Stop(
            ReadFailureOutcome("merging " + e.key.subject + " into " + branch_, merged.error()));
      }
      if (!merged->empty()) tip = *merged;
      kept.push_back(&e);
    }
    if (kept.empty()) {
      DeleteBranch();
      return QueueMoves::GoOn();
    }
    const std::string reason = "testing " + BatchName(batch()) + " (" +
                               std::to_string(kept.size()) + " pull request" +
                               (kept.size() == 1 ? "" : "s") + ") at " + decide::ShortHead(tip) +
                               " on " + branch_;
    for (const QueueEntry* e : kept) {
      EntryStep step{.from = e->state,
                     .to = EntryState::kTesting,
                     .tested_sha = tip,
                     .deadline = m_.now() + m_.policy().merge_queue.checks_timeout,
                     .reason = reason};
      Moved moved = m_.Step(*e, step);
      if (moved.stop) return moved;
    }
    return QueueMoves::GoOn();
  }

  // The branch at `sha`, created if it is not there.
  std::optional<PassOutcome> ResetBranch(const std::string& sha) {
    auto at = m_.github().GetBranchSha(m_.call(), m_.repo(), branch_);
    if (at.ok() && *at == sha) return std::nullopt;
    if (!at.ok() && at.error().kind != GitHubErrorKind::kNotFound) {
      return ReadFailureOutcome("reading branch " + branch_, at.error());
    }
    auto done = at.ok() ? m_.github().MoveBranch(m_.call(), m_.repo(), branch_, sha, true)
                        : m_.github().CreateBranch(m_.call(), m_.repo(), branch_, sha);
    if (!done.ok()) return ReadFailureOutcome("resetting branch " + branch_, done.error());
    return std::nullopt;
  }

  void DeleteBranch() {
    auto r = m_.github().DeleteBranch(m_.call(), m_.repo(), branch_);
    if (!r.ok() && r.error().kind != GitHubErrorKind::kUnprocessable &&
        r.error().kind != GitHubErrorKind::kNotFound) {
      Log(LogLevel::kWarn, "queue.branch_cleanup_failed")
          .Field("queue", m_.queue().key())
          .Field("branch", branch_)
          .Field("error", r.error().message);
    }
  }

  Moved Testing() {
    const std::string tested = members_.front().tested_sha;
    decide::QueueBatchFacts facts;
    facts.state = "testing";
    facts.tested_sha = tested;
    facts.deadline = members_.front().deadline;
    facts.size = members_.size();
    auto all = m_.store().queues().EntriesTested(m_.queue().key(), tested);
    if (!all.ok()) return QueueMoves::Stop(PassOutcome::Transient(all.status().ToString()));
    facts.lost_member = std::any_of(all->begin(), all->end(), [](const QueueEntry& e) {
      return e.state == EntryState::kDropped;
    });
    // Members whose tested SHA is not the batch's (a kill mid-build): build again.
    facts.lost_member |= std::any_of(members_.begin(), members_.end(),
                                     [&](const QueueEntry& e) { return e.tested_sha != tested; });
    if (!facts.lost_member) {
      if (auto end = ReadChecks(tested, &facts)) return QueueMoves::Stop(*end);
    }
    const BatchMove move = decide::NextBatchMove(
        facts, m_.required(), m_.policy().merge_queue.checks_timeout, m_.now());
    switch (move.kind) {
      case BatchMove::Kind::kWait:
        return QueueMoves::WaitUntil(move.at);
      case BatchMove::Kind::kBuild:
        Tell(move.reason);
        return Build();
      case BatchMove::Kind::kSplit:
        return Split(move.reason);
      case BatchMove::Kind::kDrop: {
        if (auto end = Drop(members_.front(), move.reason)) return QueueMoves::Stop(*end);
        DeleteBranch();
        return QueueMoves::GoOn();
      }
      case BatchMove::Kind::kStartMerging:
        return StartMerging(move.reason);
      case BatchMove::Kind::kLand:
        return Land();
    }
    return QueueMoves::GoOn();
  }

  std::optional<PassOutcome> ReadChecks(const std::string& sha, decide::QueueBatchFacts* facts) {
    // One read of both (one GraphQL query; REST's two lists without GraphQL).
    auto checks = m_.github().ReadCommitChecks(m_.call(), m_.repo(), sha);
    if (!checks.ok()) return ReadFailureOutcome("reading the checks on " + sha, checks.error());
    for (const CheckRun& r : checks->check_runs) {
      facts->check_runs.push_back(
          decide::CheckRun{r.id, r.name, r.app, r.status, r.conclusion, r.head_sha});
    }
    int64_t id = 0;
    for (const CommitStatus& st : checks->status.statuses) {
      facts->statuses.push_back(decide::CommitStatus{++id, st.context, st.state});
    }
    return std::nullopt;
  }

  // The tested SHA passed: every member's PR, read live, must still be at the head merged into
  // it; one that is not is dropped and the rest built again (its old head must not land).
  Moved StartMerging(const std::string& reason) {
    for (const QueueEntry& e : members_) {
      decide::QueuePull pull;
      if (auto end = m_.ReadPull(e, &pull)) return QueueMoves::Stop(*end);
      const std::string why = decide::WhyMemberCannotLand(e.key.head_sha, pull);
      if (!why.empty()) {
        if (auto end = Drop(e, why)) return QueueMoves::Stop(*end);
        return QueueMoves::GoOn();  // the next round sees the member gone and builds again
      }
    }
    for (QueueEntry& e : members_) {
      Moved moved = m_.Step(e, {.from = e.state, .to = EntryState::kMerging, .reason = reason});
      if (moved.stop) return moved;
      e.state = EntryState::kMerging;
    }
    return Land();
  }

  // The base branch fast-forwarded to the tested SHA, through the ledger.
  Moved Land() {
    const QueueEntry& lead = members_.front();
    const std::string tested = lead.tested_sha;
    // A member still testing when the pass died among the merging steps joins them: the checks
    // passed and every member was checked before the first step.
    for (QueueEntry& e : members_) {
      if (e.state != EntryState::kTesting || e.tested_sha != tested) continue;
      Moved moved = m_.Step(e, {.from = e.state, .to = EntryState::kMerging,
                                .reason = "the required checks passed on " +
                                          decide::ShortHead(tested)});
      if (moved.stop) return moved;
      e.state = EntryState::kMerging;
    }
    decide::PlannedAction a;
    a.kind = decide::ActionKind::kLandBatch;
    a.head_sha = tested;
    a.head_occurrence = 1;
    a.detail = "batch:" + std::to_string(batch());
    a.queue = m_.queue().key();
    a.why = "merge queue " + m_.queue().key() + ": " + BatchName(batch()) + " passed";
    const ActionReport report = m_.ExecuteOne(lead, a);
    switch (report.result) {
      case ActionReport::Result::kDone:
      case ActionReport::Result::kReconciled:
      case ActionReport::Result::kAlreadyDone:
        return Landed(tested, report.detail);
      case ActionReport::Result::kSuperseded:
      case ActionReport::Result::kFailed: {
        auto now_at = m_.github().GetBranchSha(m_.call(), m_.repo(), std::string(base()));
        if (!now_at.ok()) {
          return QueueMoves::Stop(ReadFailureOutcome("reading branch " + std::string(base()),
                                                     now_at.error()));
        }
        if (*now_at == tested) return Landed(tested, "the base branch is at the tested SHA");
        for (const QueueEntry& e : members_) {
          if (e.state != EntryState::kMerging) continue;
          Moved moved = m_.Step(e, {.from = e.state,
                                    .to = EntryState::kUpdating,
                                    .deadline = m_.now() + m_.policy().merge_queue.checks_timeout,
                                    .reason = "GitHub refused to fast-forward " +
                                              std::string(base()) + ": " + report.detail +
                                              "; building the batch again"});
          if (moved.stop) return moved;
        }
        return QueueMoves::GoOn();
      }
      default:
        return QueueMoves::Stop(m_.StopOutcome(report));
    }
  }

  Moved Landed(const std::string& tested, const std::string& detail) {
    for (const QueueEntry& e : members_) {
      if (e.state != EntryState::kMerging) continue;
      Moved moved = m_.Step(e, {.from = e.state,
                                .to = EntryState::kMerged,
                                .reason = "merged with " + BatchName(batch()) + ": " +
                                          std::string(base()) + " fast-forwarded to " +
                                          decide::ShortHead(tested) + " (" + detail + ")"});
      if (moved.stop) return moved;
    }
    DeleteBranch();
    return QueueMoves::GoOn();
  }

  // The batch failed: each half goes back to the front of the queue as a batch of its own.
  Moved Split(const std::string& why) {
    const size_t first = decide::FirstHalf(members_.size());
    for (size_t i = 0; i < members_.size(); ++i) {
      const QueueEntry& e = members_[i];
      const QueueEntry& half_lead = members_[i < first ? 0 : first];
      const size_t half = i < first ? first : members_.size() - first;
      EntryStep step{.from = e.state,
                     .to = EntryState::kQueued,
                     .tested_sha = "",
                     .reason = BatchName(batch()) + " " + why + "; bisecting: testing it again in " +
                               "a batch of " + std::to_string(half),
                     .batch = half_lead.id};
      Moved moved = m_.Step(e, step);
      if (moved.stop) return moved;
    }
    DeleteBranch();
    return QueueMoves::GoOn();
  }

  std::optional<PassOutcome> Drop(const QueueEntry& e, const std::string& reason) {
    Moved moved = m_.Step(e, {.from = e.state, .to = EntryState::kDropped, .reason = reason});
    return moved.stop;
  }

  void Tell(const std::string& what) {
    for (const QueueEntry& e : members_) m_.Audit(e, e.tested_sha, BatchName(batch()) + ": " + what);
  }

  QueueMoves& m_;
  const std::vector<QueueEntry>& entries_;
  const std::string branch_;
  std::vector<QueueEntry> members_;  // the batch under way, in the queue's order
};

}  // namespace

QueueMoves::Moved MoveBatch(QueueMoves& moves, const std::vector<QueueEntry>& entries) {
  return BatchMover(moves, entries).Go();
}

}  // namespace gatehouse::act
