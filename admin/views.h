// Views: what the store holds, as the JSON documents the admin API serves, `gatehouse`'s
// `--json` output prints and the dashboard renders (docs/ADMIN_API.md). One function per
// document, each reading the store once per part it shows; none writes.
//
// Times are RFC 3339 UTC strings (FormatTime); absent times are null. Nothing here ever puts a
// secret in a document: the store holds none (webhook secrets, tokens and keys live in the
// process's configuration only).
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/store.h"

namespace gatehouse::admin {

// The funnel, the review funnel, the work summary and the store's counters:
//   {"received", "recovered", "routed", "ignored", "duplicate", "rejected", "dead",
//    "in_flight", "unresolved", "conflicts", "balanced",
//    "reviews": {"requested", "done", "cancelled", "superseded", "dead", "in_flight",
//                "balanced"},
//    "work": {"idle", "pending", "running", "dead", "oldest_due",
//             "oldest_pending_age_seconds"},
//    "counters": {name: value}, "now"}
// oldest_pending_age_seconds is how long the earliest-due pending item has been due (0 when
// it is not due yet, null when nothing is pending): "is gatehouse behind?".
Result<boost::json::object> StatusView(Store& store, Time now);

// One work item: {"key", "state", "requested_gen", "claimed_gen", "done_gen", "reasons",
// "claimed_reasons", "due_at", "backoff_until", "lease_owner", "lease_until", "fence",
// "attempts", "availability_since", "last_error", "created_at", "updated_at"}.
boost::json::object WorkItemJson(const WorkItem& w);

// A page of work items: {"items": [...], "next": key | null}; `next` is the `after` of the
// following page, null on the last one.
Result<boost::json::object> WorkPageView(Store& store, const WorkFilter& filter);

// One line of the audit log; `detail` embedded as JSON when it parses, as a string otherwise.
boost::json::object AuditEntryJson(const AuditEntry& e);
// One ledger row: {"id", "subject", "kind", "detail", "head_sha", "head_occurrence", "state",
// "fence", "attempts", "result", "created_at", "updated_at"}.
boost::json::object ActionJson(const ActionRecord& a);

// A PR's history: {"subject", "work": item | null, "audit": [the last `limit` lines, oldest
// first; 0: all], "actions": [the ledger], "review_runs": [each run with its role mailbox and
// its posts]}. The audit lines include the deliveries that signalled it (kind "delivery"),
// each pass's verdict and what it did.
Result<boost::json::object> TimelineView(Store& store, std::string_view subject, size_t limit);

// A stored delivery: {"delivery_id", "seq", "event", "action", "installation_id", "state",
// "state_reason", "attempts", "received_at", "headers": {"X-GitHub-Delivery",
// "X-GitHub-Event"}, "routing": what the router makes of the body now ({"kind": "route" |
// "ignore" | "resolve_by_sha", "why", "signals": [{"key", "reason"}], "repo", "sha"}),
// "body_bytes", and "body" (the payload as JSON, or the raw text when it does not parse) only
// when `with_body`}. kNotFound when the inbox does not hold it.
Result<boost::json::object> DeliveryView(Store& store, std::string_view delivery_id,
                                         bool with_body);

// What this process's reviewers file says of one reviewer: the roles it serves and its slots.
struct ReviewerConfig {
  std::string name;
  std::vector<std::string> roles;
  int concurrency = 1;
};

// The reviewers: {"reviewers": [{"name", "paused", "busy", "updated_at", "slots", "roles",
// "running", "queued"}], "waiting": [work keys of runs waiting for a reviewer]}. `slots` and
// `roles` come from `configs` (this process's reviewers file; null and [] for a reviewer it
// does not name); `running` counts the runs assigned to the reviewer and under way, `queued`
// the runs of its roles no reviewer has taken yet (its queue, shared with the other reviewers
// of those roles).
Result<boost::json::object> ReviewersView(Store& store, Time now,
                                          const std::vector<ReviewerConfig>& configs = {});

// The ledger's open intents, oldest first: {"intents": [action...]}.
Result<boost::json::object> IntentsView(Store& store, size_t limit);

}  // namespace gatehouse::admin
