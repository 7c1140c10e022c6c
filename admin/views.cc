#include "admin/views.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "engine/router.h"
#include "store/review_runs.h"

namespace gatehouse::admin {
namespace {

namespace json = boost::json;

json::array StringArray(const std::vector<std::string>& v) {
  json::array a;
  a.reserve(v.size());
  for (const std::string& s : v) a.emplace_back(s);
  return a;
}

json::value OptTime(const std::optional<Time>& t) {
  if (!t) return nullptr;
  return json::value(FormatTime(*t));
}

json::value OptText(const std::string& s) {
  if (s.empty()) return nullptr;
  return json::value(s);
}

// JSON text embedded as JSON when it parses, as a string otherwise.
json::value EmbeddedJson(std::string_view text) {
  if (text.empty()) return nullptr;
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return json::value(text);
  return v;
}

json::object WorkJson(const WorkSummary& w, Time now) {
  json::object o;
  o["idle"] = w.idle;
  o["pending"] = w.pending;
  o["running"] = w.running;
  o["dead"] = w.dead;
  o["oldest_due"] = OptTime(w.oldest_due);
  if (w.oldest_due) {
    const double age = std::chrono::duration<double>(now - *w.oldest_due).count();
    o["oldest_pending_age_seconds"] = std::max(0.0, age);
  } else {
    o["oldest_pending_age_seconds"] = nullptr;
  }
  return o;
}

json::object RunJson(Store& store, const ReviewRun& r, Status* error) {
  json::object o;
  o["id"] = r.id;
  o["role"] = r.key.role;
  o["head_sha"] = r.key.head_sha;
  o["trigger"] = r.key.trigger;
  o["state"] = std::string(RunStateName(r.state));
  o["reviewer"] = r.reviewer;
  o["starts"] = r.starts;
  o["reason"] = r.reason;
  o["review_id"] = r.review_id;
  o["created_at"] = FormatTime(r.created_at);
  o["updated_at"] = FormatTime(r.updated_at);
  const std::string key = ReviewWorkKey(r.key.subject, r.key.role);
  auto mailbox = store.work().GetWorkItem(key);
  auto rows = store.ledger().ListActions(key);
  if (!mailbox.ok() || !rows.ok()) {
    *error = !mailbox.ok() ? mailbox.status() : rows.status();
    return o;
  }
  if (*mailbox) {
    o["mailbox"] = json::object{{"key", (*mailbox)->key},
                                {"state", std::string(WorkStateName((*mailbox)->state))},
                                {"attempts", (*mailbox)->attempts},
                                {"last_error", (*mailbox)->last_error}};
  } else {
    o["mailbox"] = nullptr;
  }
  json::array posts;
  const std::string detail = "run:" + std::to_string(r.id);
  for (const ActionRecord& a : *rows) {
    if (a.key.detail == detail) posts.push_back(ActionJson(a));
  }
  o["posts"] = std::move(posts);
  return o;
}

json::object RoutingJson(const InboxEntry& e) {
  json::object o;
  if (!e.body_error.empty()) {
    o["kind"] = "unreadable";
    o["why"] = e.body_error;
    return o;
  }
  boost::system::error_code ec;
  json::value payload = json::parse(e.body, ec);
  if (ec) {
    o["kind"] = "malformed";
    o["why"] = "body is not valid JSON: " + ec.message();
    return o;
  }
  const RouteResult r = RouteWebhook(e.event, payload, RouteStamp{e.received_at, Duration{0}});
  switch (r.kind) {
    case RouteResult::Kind::kRoute:
      o["kind"] = "route";
      break;
    case RouteResult::Kind::kIgnore:
      o["kind"] = "ignore";
      break;
    case RouteResult::Kind::kResolveBySha:
      o["kind"] = "resolve_by_sha";
      break;
  }
  o["why"] = r.why;
  json::array signals;
  for (const Signal& s : r.signals) {
    signals.push_back(json::object{{"key", s.key}, {"reason", s.reason}});
  }
  o["signals"] = std::move(signals);
  if (r.kind == RouteResult::Kind::kResolveBySha) {
    o["repo"] = r.repo;
    o["sha"] = r.sha;
    o["reason"] = r.reason;
  }
  return o;
}

}  // namespace

Result<json::object> StatusView(Store& store, Time now) {
  GH_ASSIGN_OR_RETURN(Funnel f, store.inbox().GetFunnel());
  GH_ASSIGN_OR_RETURN(ReviewFunnel rf, store.reviews().GetReviewFunnel());
  GH_ASSIGN_OR_RETURN(WorkSummary work, store.work().SummarizeWork());
  GH_ASSIGN_OR_RETURN(Counters counters, store.GetCounters());
  json::object o;
  o["received"] = f.received;
  o["recovered"] = f.recovered;
  o["routed"] = f.routed;
  o["ignored"] = f.ignored;
  o["duplicate"] = f.duplicate;
  o["rejected"] = f.rejected;
  o["dead"] = f.dead;
  o["in_flight"] = f.in_flight;
  o["unresolved"] = f.unresolved;
  o["conflicts"] = f.conflicts;
  o["balanced"] =
      f.received == f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight;
  json::object r;
  r["requested"] = rf.requested;
  r["done"] = rf.done;
  r["cancelled"] = rf.cancelled;
  r["superseded"] = rf.superseded;
  r["dead"] = rf.dead;
  r["in_flight"] = rf.in_flight;
  r["balanced"] = rf.requested == rf.done + rf.cancelled + rf.superseded + rf.dead + rf.in_flight;
  o["reviews"] = std::move(r);
  o["work"] = WorkJson(work, now);
  json::object c;
  for (const auto& [name, value] : counters) c[name] = value;
  o["counters"] = std::move(c);
  o["now"] = FormatTime(now);
  return o;
}

json::object WorkItemJson(const WorkItem& w) {
  json::object o;
  o["key"] = w.key;
  o["state"] = std::string(WorkStateName(w.state));
  o["requested_gen"] = w.requested_gen;
  o["claimed_gen"] = w.claimed_gen;
  o["done_gen"] = w.done_gen;
  o["reasons"] = StringArray(w.reasons);
  o["claimed_reasons"] = StringArray(w.claimed_reasons);
  o["due_at"] = OptTime(w.due_at);
  o["backoff_until"] = OptTime(w.backoff_until);
  o["lease_owner"] = OptText(w.lease_owner);
  o["lease_until"] = OptTime(w.lease_until);
  o["fence"] = w.fence;
  o["attempts"] = w.attempts;
  o["availability_since"] = OptTime(w.availability_since);
  o["last_error"] = w.last_error;
  o["created_at"] = FormatTime(w.created_at);
  o["updated_at"] = FormatTime(w.updated_at);
  return o;
}

Result<json::object> WorkPageView(Store& store, const WorkFilter& filter) {
  // One more than the page, to know whether another follows.
  WorkFilter probe = filter;
  probe.limit = filter.limit + 1;
  GH_ASSIGN_OR_RETURN(std::vector<WorkItem> items, store.work().ListWorkItems(probe));
  const bool more = items.size() > filter.limit;
  if (more) items.resize(filter.limit);
  json::array a;
  a.reserve(items.size());
  for (const WorkItem& w : items) a.push_back(WorkItemJson(w));
  json::object o;
  o["items"] = std::move(a);
  o["next"] = more && !items.empty() ? json::value(items.back().key) : json::value(nullptr);
  return o;
}

json::object AuditEntryJson(const AuditEntry& e) {
  json::object o;
  o["id"] = e.id;
  o["at"] = FormatTime(e.at);
  o["kind"] = e.kind;
  o["fence"] = e.fence;
  o["head_sha"] = e.head_sha;
  o["summary"] = e.summary;
  o["detail"] = EmbeddedJson(e.detail);
  return o;
}

json::object ActionJson(const ActionRecord& a) {
  json::object o;
  o["id"] = a.id;
  o["subject"] = a.key.subject;
  o["kind"] = a.key.kind;
  o["detail"] = a.key.detail;
  o["head_sha"] = a.key.head_sha;
  o["head_occurrence"] = a.key.head_occurrence;
  o["state"] = std::string(ActionStateName(a.state));
  o["fence"] = a.fence;
  o["attempts"] = a.attempts;
  o["result"] = a.result;
  o["created_at"] = FormatTime(a.created_at);
  o["updated_at"] = FormatTime(a.updated_at);
  return o;
}

Result<json::object> TimelineView(Store& store, std::string_view subject, size_t limit) {
  GH_ASSIGN_OR_RETURN(std::optional<WorkItem> work, store.work().GetWorkItem(subject));
  GH_ASSIGN_OR_RETURN(std::vector<AuditEntry> audit, store.audit().ListAudit(subject, limit));
  GH_ASSIGN_OR_RETURN(std::vector<ActionRecord> actions, store.ledger().ListActions(subject));
  GH_ASSIGN_OR_RETURN(std::vector<ReviewRun> runs, store.reviews().ListRuns(subject));
  json::object o;
  o["subject"] = std::string(subject);
  o["work"] = work ? json::value(WorkItemJson(*work)) : json::value(nullptr);
  json::array lines, ledger, review_runs;
  for (const AuditEntry& e : audit) lines.push_back(AuditEntryJson(e));
  for (const ActionRecord& a : actions) ledger.push_back(ActionJson(a));
  Status error;
  for (const ReviewRun& r : runs) {
    review_runs.push_back(RunJson(store, r, &error));
    GH_RETURN_IF_ERROR(error);
  }
  o["audit"] = std::move(lines);
  o["actions"] = std::move(ledger);
  o["review_runs"] = std::move(review_runs);
  return o;
}

Result<json::object> DeliveryView(Store& store, std::string_view delivery_id, bool with_body) {
  GH_ASSIGN_OR_RETURN(std::optional<InboxEntry> found, store.inbox().GetDelivery(delivery_id));
  if (!found) return NotFound("the inbox holds no delivery " + std::string(delivery_id));
  const InboxEntry& e = *found;
  json::object o;
  o["delivery_id"] = e.delivery_id;
  o["seq"] = e.seq;
  o["event"] = e.event;
  o["action"] = e.action;
  o["installation_id"] = e.installation_id ? json::value(*e.installation_id) : json::value(nullptr);
  o["state"] = std::string(InboxStateName(e.state));
  o["state_reason"] = e.state_reason;
  o["attempts"] = e.attempts;
  o["received_at"] = FormatTime(e.received_at);
  // As received (Delivery::headers); a delivery stored before they were kept, or recovered
  // from GitHub's list, shows the two its row always had.
  json::object headers;
  for (const auto& [name, value] : e.headers) headers[name] = value;
  if (headers.empty()) {
    headers["X-GitHub-Delivery"] = e.delivery_id;
    headers["X-GitHub-Event"] = e.event;
  }
  o["headers"] = std::move(headers);
  o["routing"] = RoutingJson(e);
  o["body_bytes"] = static_cast<int64_t>(e.body.size());
  if (with_body) o["body"] = EmbeddedJson(e.body);
  return o;
}

Result<json::object> ReviewersView(Store& store, Time now,
                                   const std::vector<ReviewerConfig>& configs) {
  GH_ASSIGN_OR_RETURN(std::vector<ReviewerState> reviewers, store.reviews().ListReviewers(now));
  GH_ASSIGN_OR_RETURN(std::vector<std::string> waiting, store.reviews().WaitingWorkKeys());
  GH_ASSIGN_OR_RETURN(std::vector<ReviewRuns::RunCount> counts, store.reviews().CountRuns());
  // Unassigned queued runs by role; queued runs that wait for one reviewer (assigned before,
  // e.g. retried) and running runs by reviewer.
  std::map<std::string, int64_t> queued_by_role, queued_for, running_by_reviewer;
  for (const ReviewRuns::RunCount& c : counts) {
    if (c.state == RunState::kQueued) {
      (c.reviewer.empty() ? queued_by_role[c.role] : queued_for[c.reviewer]) += c.count;
    } else if (c.state == RunState::kRunning) {
      running_by_reviewer[c.reviewer] += c.count;
    }
  }
  json::array a;
  for (const ReviewerState& r : reviewers) {
    json::object o{{"name", r.name},
                   {"paused", r.paused},
                   {"busy", r.busy},
                   {"updated_at", FormatTime(r.updated_at)}};
    const ReviewerConfig* config = nullptr;
    for (const ReviewerConfig& c : configs) {
      if (c.name == r.name) config = &c;
    }
    o["slots"] = config ? json::value(config->concurrency) : json::value(nullptr);
    int64_t queued = queued_for[r.name];
    json::array roles;
    if (config) {
      for (const std::string& role : config->roles) {
        roles.emplace_back(role);
        queued += queued_by_role[role];
      }
    }
    o["roles"] = std::move(roles);
    o["running"] = running_by_reviewer[r.name];
    o["queued"] = queued;
    a.push_back(std::move(o));
  }
  json::object o;
  o["reviewers"] = std::move(a);
  o["waiting"] = StringArray(waiting);
  return o;
}

Result<json::object> IntentsView(Store& store, size_t limit) {
  GH_ASSIGN_OR_RETURN(std::vector<ActionRecord> open, store.ledger().ListOpenIntents(limit));
  json::array a;
  for (const ActionRecord& r : open) a.push_back(ActionJson(r));
  return json::object{{"intents", std::move(a)}};
}

}  // namespace gatehouse::admin
