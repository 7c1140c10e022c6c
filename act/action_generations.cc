#include "act/action_generations.h"

#include <algorithm>

namespace gatehouse::act {
namespace {

using decide::ActionKind;
using decide::ActionKindName;

bool SameOccurrence(const ActionRecord& r, const decide::PlannedAction& a) {
  return r.key.head_sha == a.head_sha && r.key.head_occurrence == a.head_occurrence;
}

void NumberLabel(decide::PlannedAction& a, const std::vector<ActionRecord>& ledger) {
  const std::string_view opposite =
      ActionKindName(a.kind == ActionKind::kLabel ? ActionKind::kUnlabel : ActionKind::kLabel);
  int64_t n = 0;
  for (const ActionRecord& r : ledger) {
    // An open intent counts as done: its effect may have happened (it is settled, and the
    // label checked again by the planner's live read, before anything is called).
    if ((r.state == ActionState::kDone || r.state == ActionState::kIntent) &&
        r.key.kind == opposite && SameOccurrence(r, a) && BaseDetail(r.key.detail) == a.label) {
      ++n;
    }
  }
  if (n > 0) a.detail = a.label + "#" + std::to_string(n + 1);
}

// The slot of a state-setting action: the rows that wrote the same object.
bool InSlot(const ActionRecord& r, const decide::PlannedAction& a, std::string_view prefix) {
  return r.key.kind == ActionKindName(a.kind) && SameOccurrence(r, a) &&
         r.key.detail.compare(0, prefix.size(), prefix) == 0;
}

void NumberSlot(decide::PlannedAction& a, const std::vector<ActionRecord>& ledger,
                std::string_view prefix) {
  std::vector<const ActionRecord*> writes;
  for (const ActionRecord& r : ledger) {
    if ((r.state == ActionState::kDone || r.state == ActionState::kIntent) &&
        InSlot(r, a, prefix)) {
      writes.push_back(&r);
    }
  }
  if (writes.empty()) return;
  std::stable_sort(writes.begin(), writes.end(), [](const ActionRecord* x, const ActionRecord* y) {
    return x->updated_at != y->updated_at ? x->updated_at < y->updated_at : x->id < y->id;
  });
  if (BaseDetail(writes.back()->key.detail) == a.detail) {
    a.detail = writes.back()->key.detail;
    return;
  }
  const auto earlier = std::count_if(writes.begin(), writes.end(), [&](const ActionRecord* r) {
    return BaseDetail(r->key.detail) == a.detail;
  });
  if (earlier > 0) a.detail += "#" + std::to_string(earlier + 1);
}

}  // namespace

std::string BaseDetail(std::string_view detail) {
  const size_t hash = detail.rfind('#');
  if (hash == std::string_view::npos || hash + 1 >= detail.size()) return std::string(detail);
  for (size_t i = hash + 1; i < detail.size(); ++i) {
    if (detail[i] < '0' || detail[i] > '9') return std::string(detail);
  }
  return std::string(detail.substr(0, hash));
}

void NumberGeneration(decide::PlannedAction& a, const std::vector<ActionRecord>& ledger) {
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

}  // namespace gatehouse::act
