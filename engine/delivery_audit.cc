#include "engine/delivery_audit.h"

#include <boost/json.hpp>
#include <set>
#include <string>

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

}  // namespace gatehouse
