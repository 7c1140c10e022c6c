#include "decide/generations.h"

#include <algorithm>

namespace gatehouse::decide {
namespace {

// A detail's generation follows this mark: "pending-closure#2". (Not a subject key's '#':
// details name labels, check runs and summaries, never subjects.)
constexpr char kGenerationMark = '#';

// An open intent counts as a write: its effect may have happened (it is settled, and the state
// checked again by the planner's live read, before anything is called).
bool Written(const PriorAction& r) {
  return r.state == PriorAction::State::kDone || r.state == PriorAction::State::kIntent;
}

bool SameOccurrence(const PriorAction& r, const PlannedAction& a) {
  return r.head_sha == a.head_sha && r.head_occurrence == a.head_occurrence;
}

void NumberLabel(PlannedAction& a, const std::vector<PriorAction>& ledger) {
  const ActionKind opposite =
      a.kind == ActionKind::kLabel ? ActionKind::kUnlabel : ActionKind::kLabel;
  int64_t n = 0;
  for (const PriorAction& r : ledger) {
    if (Written(r) && r.kind == opposite && SameOccurrence(r, a) &&
        BaseDetail(r.detail) == a.label) {
      ++n;
    }
  }
  if (n > 0) a.detail = a.label + kGenerationMark + std::to_string(n + 1);
}

// The slot of a state-setting action: the rows that wrote the same object.
bool InSlot(const PriorAction& r, const PlannedAction& a, std::string_view prefix) {
  return r.kind == a.kind && SameOccurrence(r, a) &&
         r.detail.compare(0, prefix.size(), prefix) == 0;
}

void NumberSlot(PlannedAction& a, const std::vector<PriorAction>& ledger, std::string_view prefix) {
  std::vector<const PriorAction*> writes;
  for (const PriorAction& r : ledger) {
    if (Written(r) && InSlot(r, a, prefix)) writes.push_back(&r);
  }
  if (writes.empty()) return;
  std::stable_sort(writes.begin(), writes.end(), [](const PriorAction* x, const PriorAction* y) {
    return x->updated_at != y->updated_at ? x->updated_at < y->updated_at : x->id < y->id;
  });
  if (BaseDetail(writes.back()->detail) == a.detail) {
    a.detail = writes.back()->detail;
    return;
  }
  const auto earlier = std::count_if(writes.begin(), writes.end(), [&](const PriorAction* r) {
    return BaseDetail(r->detail) == a.detail;
  });
  if (earlier > 0) a.detail += kGenerationMark + std::to_string(earlier + 1);
}

}  // namespace

std::string BaseDetail(std::string_view detail) {
  const size_t hash = detail.rfind(kGenerationMark);
  if (hash == std::string_view::npos || hash + 1 >= detail.size()) return std::string(detail);
  for (size_t i = hash + 1; i < detail.size(); ++i) {
    if (detail[i] < '0' || detail[i] > '9') return std::string(detail);
  }
  return std::string(detail.substr(0, hash));
}

void NumberGeneration(PlannedAction& a, const std::vector<PriorAction>& ledger) {
  switch (a.kind) {
    case ActionKind::kLabel:
    case ActionKind::kUnlabel:
      return NumberLabel(a, ledger);
    case ActionKind::kCheckRun:
      return NumberSlot(a, ledger, "");
    case ActionKind::kComment:
      // Edits of one comment ("summary:<id>:<digest>"); creating it ("summary:new") is once.
      if (a.comment_id) NumberSlot(a, ledger, "summary:" + std::to_string(*a.comment_id) + ":");
      return;
    default:
      return;
  }
}

std::string CheckRunDetailOf(std::string_view external_id, std::string_view head_sha) {
  const std::string prefix = std::string(ActionKindName(ActionKind::kCheckRun)) + "|";
  if (external_id.substr(0, prefix.size()) != prefix) return "";
  const std::string_view rest = external_id.substr(prefix.size());
  const size_t bar = rest.find('|');
  if (bar == std::string_view::npos) return "";
  std::string_view head = rest.substr(0, bar);
  if (const size_t at = head.find('@'); at != std::string_view::npos) head = head.substr(0, at);
  if (head != head_sha) return "";
  return BaseDetail(rest.substr(bar + 1));
}

}  // namespace gatehouse::decide
