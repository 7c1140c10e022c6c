#include "act/queue_check_run.h"

#include <string>

#include "base/clock.h"
#include "decide/queue_standing.h"

namespace gatehouse::act {

std::optional<decide::PlannedAction> QueueCheckRunOf(const QueueEntry& e,
                                                     const QueueCheckRunSetting& setting) {
  const bool serial = setting.method == decide::QueueMethod::kUpdateBranch;
  const bool on_tested = serial && !e.tested_sha.empty() && e.state != EntryState::kQueued &&
                         e.state != EntryState::kUpdating;
  decide::PlannedAction a;
  a.kind = decide::ActionKind::kCheckRun;
  a.head_sha = on_tested ? e.tested_sha : e.key.head_sha;
  a.head_occurrence = 1;
  a.check_name = std::string(decide::kQueueCheckRunName);
  a.detail = std::string(decide::kQueueCheckRunName) + ":" + std::string(EntryStateName(e.state)) +
             ":entry:" + std::to_string(e.id) +
             (e.state == EntryState::kTesting ? ":" + decide::ShortHead(e.tested_sha) : "");
  a.why = "merge queue " + setting.queue.key();
  const std::optional<Time>& eta = setting.eta;
  const std::string eta_text = eta ? "ETA " + FormatTime(*eta) + " at the queue's recent pace."
                                   : "ETA not known yet (the queue has not landed twice recently).";
  const std::string base = std::string(setting.queue.base());
  switch (e.state) {
    case EntryState::kQueued:
      a.check_status = "in_progress";
      a.check_title = "Queued: position " + std::to_string(setting.position + 1) + " of " +
                      std::to_string(setting.entries);
      a.check_summary = "In the merge queue of `" + base + "` (entry " + std::to_string(e.id) +
                        ", priority " + std::to_string(e.priority) + "). " + eta_text;
      break;
    case EntryState::kTesting:
      a.check_status = "in_progress";
      a.check_title =
          (e.batch != 0 ? "Testing in batch " + std::to_string(e.batch) : std::string("Testing")) +
          " at " + decide::ShortHead(e.tested_sha);
      a.check_summary = "The required checks run on `" + e.tested_sha + "`" +
                        (e.deadline ? " and must report by " + FormatTime(*e.deadline) : "") +
                        ". " + e.reason + ". " + eta_text;
      break;
    case EntryState::kMerged:
      a.check_status = "completed";
      a.check_conclusion = "success";
      a.check_title = "Merged by the merge queue";
      a.check_summary = e.reason;
      break;
    case EntryState::kDropped:
      a.check_status = "completed";
      a.check_conclusion = "neutral";
      a.check_title = "Left the merge queue";
      a.check_summary = e.reason;
      break;
    default:
      return std::nullopt;  // updating, merging: moments, not worth a write
  }
  return a;
}

}  // namespace gatehouse::act
