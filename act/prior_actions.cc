#include "act/prior_actions.h"

namespace gatehouse::act {
namespace {

decide::PriorAction::State StateOf(ActionState state) {
  switch (state) {
    case ActionState::kIntent:
      return decide::PriorAction::State::kIntent;
    case ActionState::kDone:
      return decide::PriorAction::State::kDone;
    case ActionState::kFailed:
      return decide::PriorAction::State::kFailed;
    case ActionState::kSuperseded:
      return decide::PriorAction::State::kSuperseded;
  }
  return decide::PriorAction::State::kIntent;
}

}  // namespace

std::vector<decide::PriorAction> PriorActions(const std::vector<ActionRecord>& ledger) {
  std::vector<decide::PriorAction> out;
  out.reserve(ledger.size());
  for (const ActionRecord& r : ledger) {
    auto kind = decide::ParseActionKind(r.key.kind);
    if (!kind) continue;
    decide::PriorAction a;
    a.id = r.id;
    a.kind = *kind;
    a.head_sha = r.key.head_sha;
    a.head_occurrence = r.key.head_occurrence;
    a.detail = r.key.detail;
    a.state = StateOf(r.state);
    a.result = r.result;
    a.created_at = r.created_at;
    a.updated_at = r.updated_at;
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace gatehouse::act
