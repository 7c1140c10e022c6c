#include "decide/queue_step.h"

#include "base/ascii.h"
#include "decide/gate.h"
#include "decide/policy.h"
#include "decide/queue_standing.h"

namespace gatehouse::decide {
namespace {

QueueMove Drop(std::string reason) {
  QueueMove m;
  m.kind = QueueMove::Kind::kDrop;
  m.reason = std::move(reason);
  return m;
}

QueueMove Move(QueueMove::Kind kind, std::string sha, std::string reason = "") {
  QueueMove m;
  m.kind = kind;
  m.sha = std::move(sha);
  m.reason = std::move(reason);
  return m;
}

QueueMove Wait(Time at, std::string reason) {
  QueueMove m;
  m.kind = QueueMove::Kind::kWait;
  m.at = at;
  m.reason = std::move(reason);
  return m;
}

bool Behind(const QueuePull& pr) { return AsciiLower(pr.mergeable_state) == "behind"; }

// GitHub has not computed whether (and how) the PR merges yet.
bool Computing(const QueuePull& pr) {
  const std::string state = AsciiLower(pr.mergeable_state);
  return !pr.mergeable.has_value() || state.empty() || state == "unknown";
}

QueueMove Testing(const QueueHeadEntry& entry, const QueuePull& pr,
                  const std::vector<RequiredCheck>& required, Duration checks_timeout, Time now) {
  if (pr.head_sha != entry.tested_sha) {
    return Drop("new commits were pushed during the test (the head is now " +
                ShortHead(pr.head_sha) + ")");
  }
  if (pr.mergeable == false) return Drop("merge conflicts with the base branch");
  if (Behind(pr)) {
    return Move(QueueMove::Kind::kStartUpdate, pr.head_sha, "the base branch moved during the test");
  }
  const TestedChecks checks =
      EvaluateTestedChecks(required, entry.tested_sha, pr.check_runs, pr.statuses, now);
  switch (checks.outcome) {
    case TestedChecks::Outcome::kFail:
      return Drop("failed on the tested head " + ShortHead(entry.tested_sha) + ": " +
                  checks.reason);
    case TestedChecks::Outcome::kPending:
      if (entry.deadline && now >= *entry.deadline) {
        return Drop("the required checks did not report on " + ShortHead(entry.tested_sha) +
                    " within checks_timeout (" + FormatDuration(checks_timeout) +
                    "): " + checks.reason);
      }
      return Wait(entry.deadline.value_or(now + checks_timeout), checks.reason);
    case TestedChecks::Outcome::kPass:
      break;
  }
  if (Computing(pr)) return Wait(now + kQueueRecheck, "GitHub is computing mergeability");
  return Move(QueueMove::Kind::kStartMerging, entry.tested_sha);
}

}  // namespace

QueueMove NextQueueMove(const QueueHeadEntry& entry, const QueuePull& pr,
                        const std::vector<RequiredCheck>& required, Duration checks_timeout,
                        Time now) {
  if (!pr.found) return Drop("the pull request no longer exists");
  // A merge under way is settled by its ledger action: GitHub's answer, or what it shows.
  if (entry.state == "merging") return Move(QueueMove::Kind::kMerge, entry.tested_sha);
  if (pr.merged) return Drop("merged outside the queue");
  if (pr.state != "open") return Drop("the pull request was closed");
  if (pr.draft) return Drop("the pull request was converted to a draft");

  if (entry.state == "queued") {
    if (pr.head_sha != entry.head_sha) {
      return Drop("new commits were pushed (the head is now " + ShortHead(pr.head_sha) + ")");
    }
    if (pr.mergeable == false) return Drop("merge conflicts with the base branch");
    if (Behind(pr)) return Move(QueueMove::Kind::kStartUpdate, pr.head_sha);
    if (Computing(pr)) return Wait(now + kQueueRecheck, "GitHub is computing mergeability");
    return Move(QueueMove::Kind::kStartTesting, pr.head_sha, "already up to date");
  }
  if (entry.state == "updating") {
    // The head moved away from where the update started: that is the update's head.
    if (pr.head_sha != entry.tested_sha) {
      return Move(QueueMove::Kind::kStartTesting, pr.head_sha, "updated");
    }
    if (entry.deadline && now >= *entry.deadline) {
      return Drop("the update of " + ShortHead(entry.tested_sha) +
                  " made no new head within checks_timeout (" + FormatDuration(checks_timeout) +
                  ")");
    }
    if (pr.mergeable == false) return Drop("merge conflicts with the base branch");
    if (Behind(pr)) return Move(QueueMove::Kind::kUpdate, pr.head_sha);
    if (Computing(pr)) return Wait(now + kQueueRecheck, "GitHub is computing mergeability");
    // Not behind after all (nothing new on the base): the head is what gets tested.
    return Move(QueueMove::Kind::kStartTesting, pr.head_sha, "already up to date");
  }
  return Testing(entry, pr, required, checks_timeout, now);
}

TestedChecks EvaluateTestedChecks(const std::vector<RequiredCheck>& required,
                                  const std::string& sha, const std::vector<CheckRun>& runs,
                                  const std::vector<CommitStatus>& statuses, Time now) {
  TestedChecks out;
  if (required.empty()) return out;
  // The gate's own rule, alone: every other rule off, the checks never "missing" (the queue's
  // deadline is what ends a wait).
  Policy only;
  only.required_checks.checks = required;
  only.required_checks.missing_after = Duration::max();
  only.approvals.mode = RuleMode::kOff;
  only.mergeable.mode = RuleMode::kOff;
  only.draft.mode = RuleMode::kOff;
  only.labels.mode = RuleMode::kOff;
  only.size.mode = RuleMode::kOff;
  only.protected_paths.mode = RuleMode::kOff;
  PrSnapshot tested;
  tested.state = "open";
  tested.head_sha = sha;
  tested.check_runs = runs;
  tested.statuses = statuses;
  tested.now = now;
  const GateVerdict v = Evaluate(only, tested);
  if (!v.blockers.empty()) {
    out.outcome = TestedChecks::Outcome::kFail;
    out.reason = v.blockers.front().reason;
  } else if (!v.waiting.empty()) {
    out.outcome = TestedChecks::Outcome::kPending;
    out.reason = v.waiting.front().reason;
  }
  return out;
}

}  // namespace gatehouse::decide
