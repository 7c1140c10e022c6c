#include "engine/delivery_audit.h"

#include <boost/json.hpp>
#include <set>
#include <string>

#include "base/log.h"

namespace gatehouse {

void AuditSignals(const InboxEntry& entry, RouteDecision& decision, Time now) {
  std::set<std::string_view> seen;
  for (const Signal& s : decision.signals) {
    if (!seen.insert(s.key).second) continue;
    AuditEntry a;
    a.subject = s.key;
    a.at = now;
    a.kind = "delivery";
    const std::string event = entry.action.empty() ? entry.event : entry.event + "." + entry.action;
    a.summary = event + " " + entry.delivery_id + ": " + s.reason;
    boost::json::object d;
    d["delivery_id"] = entry.delivery_id;
    d["event"] = entry.event;
    d["action"] = entry.action;
    d["reason"] = s.reason;
    d["received_at"] = FormatTime(entry.received_at);
    a.detail = boost::json::serialize(d);
    decision.audit.push_back(std::move(a));
  }
}

void LogRouted(const InboxEntry& entry, const RouteDecision& decision) {
  for (const AuditEntry& a : decision.audit) {
    if (a.kind != "delivery") continue;
    Log(LogLevel::kInfo, "delivery.routed")
        .Field("delivery", entry.delivery_id)
        .Field("subject", a.subject)
        .Field("github_event",
               entry.action.empty() ? entry.event : entry.event + "." + entry.action)
        .Field("state", std::string(InboxStateName(decision.state)));
  }
}

}  // namespace gatehouse
