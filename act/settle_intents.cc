#include "act/settle_intents.h"

#include <set>
#include <string>
#include <utility>

#include "decide/generations.h"

namespace gatehouse::act {

std::optional<PassOutcome> SettleOpenIntents(Store& store, GitHub& github, const Clock& clock,
                                             const Target& target, int64_t fence,
                                             const std::vector<ActionKey>& open,
                                             const decide::Plan& plan,
                                             const ExecutorOptions& executor, PassAudit& audit) {
  std::set<std::string> planned;
  for (const auto& a : plan.actions) planned.insert(a.Key());
  ExecutorOptions settle = executor;
  settle.reconcile_only = true;
  settle.after_call = nullptr;
  for (const ActionKey& key : open) {
    auto kind = decide::ParseActionKind(key.kind);
    if (!kind) continue;
    decide::PlannedAction a;
    a.kind = *kind;
    a.head_sha = key.head_sha;
    a.head_occurrence = key.head_occurrence;
    a.detail = key.detail;
    if (planned.count(a.Key())) continue;
    a.why = "open intent of an earlier pass";
    if (*kind == decide::ActionKind::kLabel || *kind == decide::ActionKind::kUnlabel) {
      a.label = decide::BaseDetail(key.detail);
    }
    decide::Plan one;
    one.actions.push_back(std::move(a));
    ExecResult settled = Execute(store, github, clock, target, fence, one, settle);
    audit.Settled(settled);
    if (settled.stop) {
      audit.Flush();
      return settled.stop;
    }
  }
  return std::nullopt;
}

}  // namespace gatehouse::act
