#include "act/settle_intents.h"

#include <set>
#include <string>
#include <utility>

#include "decide/generations.h"

namespace gatehouse::act {

namespace {

// The planned action an open intent stands for; nullopt for a kind this gatehouse does not know.
std::optional<decide::PlannedAction> ActionOf(const ActionKey& key) {
  auto kind = decide::ParseActionKind(key.kind);
  if (!kind) return std::nullopt;
  decide::PlannedAction a;
  a.kind = *kind;
  a.head_sha = key.head_sha;
  a.head_occurrence = key.head_occurrence;
  a.detail = key.detail;
  a.why = "open intent of an earlier pass";
  if (*kind == decide::ActionKind::kLabel || *kind == decide::ActionKind::kUnlabel) {
    a.label = decide::BaseDetail(key.detail);
  }
  return a;
}

ExecResult ReconcileOne(Store& store, GitHub& github, const Clock& clock, const Target& target,
                        int64_t fence, decide::PlannedAction action, const ExecutorOptions& how) {
  decide::Plan one;
  one.actions.push_back(std::move(action));
  return Execute(store, github, clock, target, fence, one, how);
}

}  // namespace

LookResult LookAtOpenIntents(Store& store, GitHub& github, const Clock& clock, const Target& target,
                             int64_t fence, const std::vector<ActionKey>& open,
                             const ExecutorOptions& executor, PassAudit& audit) {
  ExecutorOptions look = executor;
  look.reconcile_only = true;
  look.leave_absent_open = true;
  look.after_call = nullptr;
  LookResult out;
  for (const ActionKey& key : open) {
    std::optional<decide::PlannedAction> a = ActionOf(key);
    if (!a) continue;
    ExecResult looked = ReconcileOne(store, github, clock, target, fence, std::move(*a), look);
    ExecResult settled;
    for (const ActionReport& r : looked.actions) {
      if (r.result == ActionReport::Result::kReconciled ||
          r.result == ActionReport::Result::kSuperseded) {
        settled.actions.push_back(r);
      }
    }
    out.settled_any = out.settled_any || !settled.actions.empty();
    audit.Settled(settled);
    if (looked.stop) {
      audit.Flush();
      out.stop = looked.stop;
      return out;
    }
  }
  return out;
}

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
    std::optional<decide::PlannedAction> a = ActionOf(key);
    if (!a || planned.count(a->Key())) continue;
    ExecResult settled = ReconcileOne(store, github, clock, target, fence, std::move(*a), settle);
    audit.Settled(settled);
    if (settled.stop) {
      audit.Flush();
      return settled.stop;
    }
  }
  return std::nullopt;
}

}  // namespace gatehouse::act
