#include "store/store.h"

#include <algorithm>

namespace gatehouse {

std::string FormatHeaderLines(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out;
  for (const auto& [name, value] : headers) {
    out += name;
    out += ": ";
    for (char c : value) out += (c == '\r' || c == '\n') ? ' ' : c;
    out += '\n';
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ParseHeaderLines(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    const size_t colon = line.find(": ");
    if (colon != std::string_view::npos) {
      out.emplace_back(std::string(line.substr(0, colon)), std::string(line.substr(colon + 2)));
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

std::string_view ActionStateName(ActionState state) {
  switch (state) {
    case ActionState::kIntent:
      return "intent";
    case ActionState::kDone:
      return "done";
    case ActionState::kFailed:
      return "failed";
    case ActionState::kSuperseded:
      return "superseded";
  }
  return "intent";
}

ActionState ParseActionState(std::string_view s) {
  if (s == "done") return ActionState::kDone;
  if (s == "failed") return ActionState::kFailed;
  if (s == "superseded") return ActionState::kSuperseded;
  return ActionState::kIntent;
}

std::string_view WorkStateName(WorkState state) {
  switch (state) {
    case WorkState::kIdle:
      return "idle";
    case WorkState::kPending:
      return "pending";
    case WorkState::kRunning:
      return "running";
    case WorkState::kDead:
      return "dead";
  }
  return "idle";
}

bool ParseWorkState(std::string_view text, WorkState* out) {
  for (WorkState s :
       {WorkState::kIdle, WorkState::kPending, WorkState::kRunning, WorkState::kDead}) {
    if (text == WorkStateName(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

std::string_view InboxStateName(InboxState state) {
  switch (state) {
    case InboxState::kAccepted:
      return "accepted";
    case InboxState::kUnresolved:
      return "unresolved";
    case InboxState::kRouted:
      return "routed";
    case InboxState::kIgnored:
      return "ignored";
    case InboxState::kDead:
      return "dead";
  }
  return "accepted";
}

InboxState ParseInboxState(std::string_view text) {
  for (InboxState s :
       {InboxState::kUnresolved, InboxState::kRouted, InboxState::kIgnored, InboxState::kDead}) {
    if (text == InboxStateName(s)) return s;
  }
  return InboxState::kAccepted;
}

bool IsTerminal(InboxState state) {
  return state == InboxState::kRouted || state == InboxState::kIgnored ||
         state == InboxState::kDead;
}

Status ValidateRouteDecisions(std::span<const RouteDecision> decisions) {
  for (const RouteDecision& d : decisions) {
    for (const Signal& sig : d.signals) GH_RETURN_IF_ERROR(ValidateSignal(sig));
    if (d.state == InboxState::kAccepted) {
      return InvalidArgument("routing must move delivery " + std::to_string(d.seq) +
                             " out of 'accepted'");
    }
    for (const RepoInstallation& r : d.repos) {
      if (r.repo.empty()) return InvalidArgument("a learned repository needs a name");
    }
    for (const PrFact& f : d.facts) {
      if (f.subject.empty() || f.name.empty()) {
        return InvalidArgument("a pull request fact needs a subject and a name");
      }
    }
    for (const AuditEntry& e : d.audit) GH_RETURN_IF_ERROR(ValidateAuditEntry(e));
  }
  return Status::Ok();
}

Status ValidateSignal(const Signal& signal) {
  if (signal.key.empty() || signal.key.size() > 512) {
    return InvalidArgument("signal key must be 1..512 bytes, got " +
                           std::to_string(signal.key.size()));
  }
  if (signal.reason.empty() || signal.reason.size() > 64) {
    return InvalidArgument("signal reason must be 1..64 bytes for " + signal.key);
  }
  for (char c : signal.reason) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                    c == ':' || c == '-';
    if (!ok)
      return InvalidArgument("signal reason '" + signal.reason +
                             "' has a character outside [a-z0-9_.:-]");
  }
  if (signal.debounce.count() < 0) return InvalidArgument("negative debounce for " + signal.key);
  return Status::Ok();
}

std::vector<std::string> SplitReasons(std::string_view joined) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < joined.size()) {
    size_t comma = joined.find(',', start);
    if (comma == std::string_view::npos) comma = joined.size();
    if (comma > start) out.emplace_back(joined.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string JoinReasons(const std::vector<std::string>& reasons) {
  std::vector<std::string> sorted = reasons;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (const auto& r : sorted) {
    if (r.empty()) continue;
    if (!out.empty()) out.push_back(',');
    out += r;
  }
  return out;
}

std::string UnionReasons(std::string_view a, std::string_view b) {
  if (b.empty() || a == b) return std::string(a);
  if (a.empty()) return std::string(b);
  std::vector<std::string> all = SplitReasons(a);
  for (auto& r : SplitReasons(b)) all.push_back(std::move(r));
  return JoinReasons(all);
}

Status ValidateAuditEntry(const AuditEntry& e) {
  if (e.subject.empty()) return InvalidArgument("an audit entry needs a subject");
  const bool kind_ok = !e.kind.empty() && e.kind.size() <= 64 &&
                       std::all_of(e.kind.begin(), e.kind.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
  if (!kind_ok) {
    return InvalidArgument("audit kind '" + e.kind.substr(0, 64) + "' of " + e.subject +
                           " is not [a-z_]+");
  }
  return Status::Ok();
}

}  // namespace gatehouse
