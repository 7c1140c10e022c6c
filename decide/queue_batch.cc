#include "decide/queue_batch.h"

#include "decide/queue_standing.h"

namespace gatehouse::decide {
namespace {

BatchMove Make(BatchMove::Kind kind, std::string reason = "", Time at = {}) {
  BatchMove m;
  m.kind = kind;
  m.reason = std::move(reason);
  m.at = at;
  return m;
}

// A failed batch is split; a failed single entry is dropped.
BatchMove Failed(size_t size, std::string why) {
  return Make(size > 1 ? BatchMove::Kind::kSplit : BatchMove::Kind::kDrop, std::move(why));
}

}  // namespace

BatchMove NextBatchMove(const QueueBatchFacts& batch, const std::vector<RequiredCheck>& required,
                        Duration checks_timeout, Time now) {
  if (batch.state == "updating") return Make(BatchMove::Kind::kBuild, "building the batch");
  if (batch.state == "merging") return Make(BatchMove::Kind::kLand);
  if (batch.lost_member) {
    return Make(BatchMove::Kind::kBuild, "a pull request left the batch: building it again");
  }
  const std::string tested = ShortHead(batch.tested_sha);
  const TestedChecks checks =
      EvaluateTestedChecks(required, batch.tested_sha, batch.check_runs, batch.statuses, now);
  switch (checks.outcome) {
    case TestedChecks::Outcome::kFail:
      return Failed(batch.size, "failed on the integration SHA " + tested + ": " + checks.reason);
    case TestedChecks::Outcome::kPending:
      if (batch.deadline && now >= *batch.deadline) {
        return Failed(batch.size, "the required checks did not report on the integration SHA " +
                                      tested + " within checks_timeout (" +
                                      FormatDuration(checks_timeout) + "): " + checks.reason);
      }
      return Make(BatchMove::Kind::kWait, checks.reason,
                  batch.deadline.value_or(now + checks_timeout));
    case TestedChecks::Outcome::kPass:
      break;
  }
  return Make(BatchMove::Kind::kStartMerging, "the required checks passed on " + tested);
}

std::string WhyMemberCannotLand(const std::string& queued_head, const QueuePull& pr) {
  if (!pr.found) return "the pull request no longer exists";
  if (pr.merged) return "merged outside the queue";
  if (pr.state != "open") return "the pull request was closed";
  if (pr.draft) return "the pull request was converted to a draft";
  if (pr.head_sha != queued_head) {
    return "new commits were pushed during the test (the head is now " + ShortHead(pr.head_sha) +
           ")";
  }
  return "";
}

size_t FirstHalf(size_t size) { return (size + 1) / 2; }

std::optional<Time> BatchFormsAt(size_t queued, size_t batch_size, Time lead_entered_at,
                                 Time now) {
  if (batch_size <= 1 || queued >= batch_size) return std::nullopt;
  const Time at = lead_entered_at + kBatchGather;
  if (now >= at) return std::nullopt;
  return at;
}

std::string IntegrationBranch(const std::string& base) { return "gatehouse/queue/" + base; }

}  // namespace gatehouse::decide
