// The action vocabulary of decide/planner.h: kinds by name, their autonomy classes, the check
// run an action writes, and the ledger key of a planned action.
#include <optional>
#include <string>
#include <string_view>

#include "decide/planner.h"

namespace gatehouse::decide {

std::string_view ActionKindName(ActionKind kind) {
  switch (kind) {
    case ActionKind::kMerge:
      return "merge";
    case ActionKind::kApprove:
      return "approve";
    case ActionKind::kRequestChanges:
      return "request_changes";
    case ActionKind::kClose:
      return "close";
    case ActionKind::kReopenReclose:
      return "reopen_reclose";
    case ActionKind::kDraftDodgeClose:
      return "draft_dodge_close";
    case ActionKind::kLabel:
      return "label";
    case ActionKind::kUnlabel:
      return "unlabel";
    case ActionKind::kComment:
      return "comment";
    case ActionKind::kCheckRun:
      return "check_run";
    case ActionKind::kUpdateBranch:
      return "update_branch";
    case ActionKind::kReviewRun:
      return "review_run";
    case ActionKind::kReaction:
      return "reaction";
    case ActionKind::kQueueEnter:
      return "queue_enter";
    case ActionKind::kQueueLeave:
      return "queue_leave";
    case ActionKind::kLandBatch:
      return "land_batch";
  }
  return "unknown";
}

std::optional<ActionKind> ParseActionKind(std::string_view name) {
  for (ActionKind k :
       {ActionKind::kMerge, ActionKind::kApprove, ActionKind::kRequestChanges, ActionKind::kClose,
        ActionKind::kReopenReclose, ActionKind::kDraftDodgeClose, ActionKind::kLabel,
        ActionKind::kUnlabel, ActionKind::kComment, ActionKind::kCheckRun,
        ActionKind::kUpdateBranch, ActionKind::kReviewRun, ActionKind::kReaction,
        ActionKind::kQueueEnter, ActionKind::kQueueLeave, ActionKind::kLandBatch}) {
    if (ActionKindName(k) == name) return k;
  }
  return std::nullopt;
}

ActionClass ClassOf(ActionKind kind) {
  switch (kind) {
    case ActionKind::kCheckRun:
    case ActionKind::kComment:
    case ActionKind::kReviewRun:
    case ActionKind::kReaction:
      return ActionClass::kReport;
    case ActionKind::kLabel:
    case ActionKind::kUnlabel:
      return ActionClass::kLabel;
    case ActionKind::kApprove:
    case ActionKind::kRequestChanges:
      return ActionClass::kReview;
    case ActionKind::kMerge:
    case ActionKind::kUpdateBranch:
    case ActionKind::kQueueEnter:
    case ActionKind::kQueueLeave:
    case ActionKind::kLandBatch:
      return ActionClass::kMerge;
    case ActionKind::kClose:
    case ActionKind::kReopenReclose:
    case ActionKind::kDraftDodgeClose:
      return ActionClass::kClose;
  }
  return ActionClass::kClose;
}

std::string CheckRunNameOf(const PlannedAction& a) {
  if (!a.check_name.empty()) return a.check_name;
  const std::string queue = std::string(kQueueCheckRunName) + ":";
  if (a.detail.starts_with(queue)) return std::string(kQueueCheckRunName);
  return std::string(kCheckRunName);
}

std::string PlannedAction::Key() const {
  std::string head = head_sha;
  if (head_occurrence > 1) head += "@" + std::to_string(head_occurrence);
  return std::string(ActionKindName(kind)) + "|" + head + "|" + detail;
}

}  // namespace gatehouse::decide
