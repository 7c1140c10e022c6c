#include "admin/dashboard.h"

#include <boost/json.hpp>
#include <optional>
#include <sstream>
#include <utility>

#include "admin/dashboard_assets.h"
#include "admin/queue_view.h"
#include "admin/views.h"
#include "base/subject.h"
#include "http/query.h"

namespace gatehouse::admin {
namespace {

namespace json = boost::json;

// A JSON value as page text: strings as they are, null as "-", anything else serialized.
std::string Text(const json::value& v) {
  if (v.is_string()) return std::string(v.as_string());
  if (v.is_null()) return "-";
  return json::serialize(v);
}

std::string Field(const json::object& o, std::string_view name) {
  auto it = o.find(name);
  return it == o.end() ? std::string("-") : Text(it->value());
}

std::string E(std::string_view s) { return HtmlEscape(s); }

std::string Short(const std::string& sha) { return sha.size() > 7 ? sha.substr(0, 7) : sha; }

std::string Page(const std::string& title, const std::string& body) {
  std::ostringstream o;
  o << "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << E(title)
    << " · gatehouse</title><style>" << kDashboardCss << "</style></head><body>"
    << "<header><h1>gatehouse</h1><a href=\"/\">Overview</a><a href=\"/work\">Work</a>"
    << "<a href=\"/dead\">Dead</a><a href=\"/reviewers\">Reviewers</a>"
    << "<a href=\"/queues\">Queues</a>"
    << "<form action=\"/pr\" method=\"get\"><input name=\"subject\" id=\"pr-search\" "
    << "placeholder=\"owner/repo#123\" size=\"24\"> <button type=\"submit\">Timeline</button>"
    << "</form><form action=\"/logout\" method=\"post\"><button type=\"submit\">Log out</button>"
    << "</form></header><main>" << body
    << "<pre id=\"result\" class=\"muted\"></pre></main><script>" << kDashboardJs
    << "</script></body></html>";
  return o.str();
}

HttpResponse Html(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'none'; style-src 'unsafe-inline'; script-src "
                         "'unsafe-inline'; connect-src 'self'; form-action 'self'");
  return r;
}

std::string ErrorSection(const Status& s) {
  return "<section><h2>Error</h2><p class=\"bad\">" + E(s.ToString()) + "</p></section>";
}

std::string RearmButton(const std::string& key) {
  return "<button class=\"rearm\" data-post=\"/api/v1/work/rearm?key=" + E(PercentEncode(key)) +
         "\">Re-arm</button>";
}

std::string PrLink(const std::string& key) {
  std::string subject = key;
  const size_t review = key.find("/review/");
  if (review != std::string::npos) subject = key.substr(0, review);
  if (!Subject::Parse(subject)) return E(key);
  return "<a href=\"/pr?subject=" + E(PercentEncode(subject)) + "\">" + E(key) + "</a>";
}

// The dead items, with their reasons and a re-arm button each.
std::string DeadTable(const json::array& items) {
  if (items.empty()) return "<p class=\"ok\" id=\"no-dead\">No dead items.</p>";
  std::ostringstream o;
  o << "<table id=\"dead\"><tr><th>Item</th><th>Attempts</th><th>Covers</th><th>Last error</th>"
       "<th></th></tr>";
  for (const json::value& v : items) {
    const json::object& w = v.as_object();
    const std::string key = Field(w, "key");
    o << "<tr class=\"dead-item\" data-key=\"" << E(key) << "\"><td>" << PrLink(key)
      << "</td><td class=\"n\">" << E(Field(w, "attempts")) << "</td><td>"
      << E(Field(w, "claimed_reasons")) << "</td><td>" << E(Field(w, "last_error")) << "</td><td>"
      << RearmButton(key) << "</td></tr>";
  }
  o << "</table>";
  return o.str();
}

std::string Row(std::string_view label, std::string_view id, const std::string& value) {
  return "<tr><th>" + E(label) + "</th><td class=\"n\" id=\"" + E(id) + "\">" + E(value) +
         "</td></tr>";
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

Dashboard::Dashboard(Store& store, ClockPtr clock, std::vector<ReviewerConfig> reviewers)
    : store_(store),
      clock_(clock ? std::move(clock) : std::make_shared<RealClock>()),
      reviewers_(std::move(reviewers)) {}

HttpResponse Dashboard::Serve(const HttpRequest& request) const {
  if (request.method != "GET") return JsonError(405, "dashboard pages take GET");
  const std::string_view path = request.Path();
  const auto query = ParseQuery(request.target);
  auto param = [&](const char* name) {
    auto it = query.find(name);
    return it == query.end() ? std::string() : it->second;
  };
  if (path == "/") return Html(200, Overview());
  if (path == "/work") return Html(200, WorkPage(param("state"), param("after")));
  if (path == "/dead") return Html(200, DeadPage());
  if (path == "/pr") return Html(200, PrPage(param("subject")));
  if (path == "/reviewers") return Html(200, ReviewersPage());
  if (path == "/queues") return Html(200, QueuesPage());
  return Html(404, Page("Not found", "<section><p>No such page.</p></section>"));
}

HttpResponse Dashboard::LoginPage(bool failed) const {
  std::ostringstream o;
  o << "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Log in · "
       "gatehouse</title><style>"
    << kDashboardCss << "</style></head><body><header><h1>gatehouse</h1></header><main><section>"
    << "<h2>Log in</h2>" << (failed ? "<p class=\"bad\" id=\"login-failed\">Wrong token.</p>" : "")
    << "<form method=\"post\" action=\"/login\"><label>Admin token "
       "<input type=\"password\" name=\"token\" id=\"token\" autocomplete=\"current-password\" "
       "size=\"40\"></label> <button type=\"submit\" id=\"login\">Log in</button></form>"
    << "<p class=\"muted\">The token is GATEHOUSE_ADMIN_TOKEN (or the file "
       "GATEHOUSE_ADMIN_TOKEN_FILE names) of the running gatehouse.</p>"
    << "</section></main></body></html>";
  return Html(200, o.str());
}

std::string Dashboard::Overview() const {
  auto status = StatusView(store_, clock_->Now());
  if (!status.ok()) return Page("Overview", ErrorSection(status.status()));
  const json::object& s = *status;
  std::ostringstream o;
  o << "<section><h2>Webhook funnel</h2><table id=\"funnel\">";
  for (const char* name : {"received", "recovered", "routed", "ignored", "duplicate", "rejected",
                           "dead", "in_flight", "unresolved"}) {
    o << Row(name, std::string("funnel-") + name, Field(s, name));
  }
  const bool balanced = s.at("balanced").as_bool();
  o << "</table><p id=\"funnel-balanced\" class=\"" << (balanced ? "ok" : "bad") << "\">"
    << (balanced ? "balanced: every delivery received is accounted for"
                 : "NOT balanced: deliveries unaccounted for")
    << "</p></section>";
  o << "<section id=\"rates\"><h2>Rates per minute (since this page loaded)</h2><table>"
    << Row("deliveries received", "rate-received", "…") << Row("signals", "rate-signals", "…")
    << Row("passes completed", "rate-passes", "…") << "</table></section>";
  const json::object& work = s.at("work").as_object();
  o << "<section><h2>Work items</h2><table id=\"work\">";
  for (const char* name : {"idle", "pending", "running", "dead"}) {
    o << "<tr><th><a href=\"/work?state=" << name << "\">" << name
      << "</a></th><td class=\"n\" id=\"work-" << name << "\">" << E(Field(work, name))
      << "</td></tr>";
  }
  const json::value& age = work.at("oldest_pending_age_seconds");
  o << Row("oldest pending, due for (s)", "work-oldest-age",
           age.is_null() ? "-" : std::to_string(static_cast<int64_t>(age.to_number<double>())))
    << "</table></section>";
  WorkFilter dead_filter;
  dead_filter.state = WorkState::kDead;
  dead_filter.limit = 20;
  auto dead = WorkPageView(store_, dead_filter);
  o << "<section><h2>Dead items</h2>"
    << (dead.ok() ? DeadTable(dead->at("items").as_array()) : ErrorSection(dead.status()))
    << "<p><a href=\"/dead\">All dead items</a></p></section>";
  const json::object& r = s.at("reviews").as_object();
  o << "<section><h2>Review runs</h2><table id=\"reviews\">";
  for (const char* name : {"requested", "done", "cancelled", "superseded", "dead", "in_flight"}) {
    o << Row(name, std::string("reviews-") + name, Field(r, name));
  }
  o << "</table></section>";
  return Page("Overview", o.str());
}

std::string Dashboard::WorkPage(const std::string& state, const std::string& after) const {
  WorkFilter filter;
  filter.limit = 100;
  filter.after = after;
  WorkState parsed;
  if (!state.empty()) {
    if (!ParseWorkState(state, &parsed)) {
      return Page("Work", ErrorSection(InvalidArgument("unknown state " + state)));
    }
    filter.state = parsed;
  }
  auto page = WorkPageView(store_, filter);
  if (!page.ok()) return Page("Work", ErrorSection(page.status()));
  std::ostringstream o;
  o << "<section><h2>Work items" << (state.empty() ? "" : " (" + E(state) + ")")
    << "</h2><table id=\"items\"><tr><th>Item</th><th>State</th><th>Due</th><th>Reasons</th>"
       "<th>Attempts</th><th>Lease</th><th>Last error</th></tr>";
  for (const json::value& v : page->at("items").as_array()) {
    const json::object& w = v.as_object();
    const std::string key = Field(w, "key");
    o << "<tr><td>" << PrLink(key) << "</td><td>" << E(Field(w, "state")) << "</td><td>"
      << E(Field(w, "due_at")) << "</td><td>" << E(Field(w, "reasons")) << "</td><td class=\"n\">"
      << E(Field(w, "attempts")) << "</td><td>" << E(Field(w, "lease_owner")) << "</td><td>"
      << E(Field(w, "last_error")) << "</td></tr>";
  }
  o << "</table>";
  const json::value& next = page->at("next");
  if (!next.is_null()) {
    o << "<p><a id=\"next\" href=\"/work?state=" << E(PercentEncode(state))
      << "&amp;after=" << E(PercentEncode(Text(next))) << "\">Next page</a></p>";
  }
  o << "</section>";
  return Page("Work", o.str());
}

std::string Dashboard::DeadPage() const {
  WorkFilter filter;
  filter.state = WorkState::kDead;
  filter.limit = 500;
  auto page = WorkPageView(store_, filter);
  if (!page.ok()) return Page("Dead", ErrorSection(page.status()));
  std::ostringstream o;
  o << "<section><h2>Dead items</h2>" << DeadTable(page->at("items").as_array());
  if (!page->at("items").as_array().empty()) {
    o << "<p><button id=\"rearm-all\" data-post=\"/api/v1/dead/rearm\">Re-arm all</button></p>";
  }
  o << "</section>";
  return Page("Dead", o.str());
}

std::string Dashboard::PrPage(const std::string& subject_text) const {
  const std::optional<Subject> subject = Subject::Parse(subject_text);
  if (!subject) {
    return Page("Timeline", ErrorSection(InvalidArgument(
                                "'" + subject_text + "' is not a pull request (owner/repo#123)")));
  }
  auto t = TimelineView(store_, subject->key(), 500);
  if (!t.ok()) return Page("Timeline", ErrorSection(t.status()));
  std::ostringstream o;
  o << "<section><h2 id=\"timeline-subject\">" << E(subject->key()) << "</h2>";
  const json::value& work = t->at("work");
  if (work.is_object()) {
    const json::object& w = work.as_object();
    o << "<p>work item: <b id=\"timeline-state\">" << E(Field(w, "state")) << "</b>, fence "
      << E(Field(w, "fence")) << ", attempts " << E(Field(w, "attempts"))
      << (Field(w, "state") == "dead" ? " " + RearmButton(subject->key()) : "") << "</p>";
  } else {
    o << "<p class=\"muted\" id=\"timeline-state\">no work item</p>";
  }
  o << "</section><section><h2>Timeline</h2><table id=\"timeline\"><tr><th>At</th><th>Kind</th>"
       "<th>Head</th><th>What</th></tr>";
  for (const json::value& v : t->at("audit").as_array()) {
    const json::object& e = v.as_object();
    const std::string kind = Field(e, "kind");
    o << "<tr class=\"audit-" << E(kind) << "\"><td>" << E(Field(e, "at")) << "</td><td>" << E(kind)
      << "</td><td><code>" << E(Short(Field(e, "head_sha"))) << "</code></td><td>"
      << E(Field(e, "summary"));
    const json::value& detail = e.at("detail");
    const json::value* blockers = kind == "verdict" && detail.is_object()
                                      ? detail.as_object().if_contains("blockers")
                                      : nullptr;
    if (blockers != nullptr && blockers->is_array()) {
      for (const json::value& b : blockers->as_array()) {
        o << "<br><span class=\"bad blocker\">blocker " << E(Field(b.as_object(), "rule")) << ": "
          << E(Field(b.as_object(), "reason")) << "</span>";
      }
    }
    o << "</td></tr>";
  }
  o << "</table></section><section><h2>Actions (ledger)</h2><table id=\"actions\"><tr>"
       "<th>Kind</th><th>Detail</th><th>Head</th><th>Outcome</th><th>Tries</th><th>Result</th>"
       "</tr>";
  for (const json::value& v : t->at("actions").as_array()) {
    const json::object& a = v.as_object();
    o << "<tr class=\"action\"><td>" << E(Field(a, "kind")) << "</td><td>" << E(Field(a, "detail"))
      << "</td><td><code>" << E(Short(Field(a, "head_sha"))) << "</code></td><td>"
      << E(Field(a, "state")) << "</td><td class=\"n\">" << E(Field(a, "attempts")) << "</td><td>"
      << E(Field(a, "result")) << "</td></tr>";
  }
  o << "</table></section><section><h2>Review runs</h2><table id=\"review-runs\"><tr>"
       "<th>Id</th><th>Role</th><th>Head</th><th>State</th><th>Reviewer</th><th>Starts</th>"
       "<th>Reason</th></tr>";
  for (const json::value& v : t->at("review_runs").as_array()) {
    const json::object& r = v.as_object();
    o << "<tr class=\"review-run\"><td>" << E(Field(r, "id")) << "</td><td>" << E(Field(r, "role"))
      << "</td><td><code>" << E(Short(Field(r, "head_sha"))) << "</code></td><td>"
      << E(Field(r, "state")) << "</td><td>" << E(Field(r, "reviewer")) << "</td><td class=\"n\">"
      << E(Field(r, "starts")) << "</td><td>" << E(Field(r, "reason")) << "</td></tr>";
  }
  o << "</table></section>";
  return Page(subject->key(), o.str());
}

std::string Dashboard::ReviewersPage() const {
  auto v = ReviewersView(store_, clock_->Now(), reviewers_);
  if (!v.ok()) return Page("Reviewers", ErrorSection(v.status()));
  std::ostringstream o;
  o << "<section><h2>Reviewers</h2>";
  const json::array& reviewers = v->at("reviewers").as_array();
  if (reviewers.empty()) {
    o << "<p class=\"muted\">No reviewers are registered (gatehouse serve --reviewers).</p>";
  } else {
    o << "<table id=\"reviewers\"><tr><th>Reviewer</th><th>Roles</th><th>State</th>"
         "<th>Busy / slots</th><th>Running</th><th>Queued</th><th></th></tr>";
    for (const json::value& rv : reviewers) {
      const json::object& r = rv.as_object();
      const std::string name = Field(r, "name");
      const bool paused = r.at("paused").as_bool();
      std::string roles;
      for (const json::value& role : r.at("roles").as_array()) {
        roles += (roles.empty() ? "" : ", ") + Text(role);
      }
      o << "<tr class=\"reviewer\" data-name=\"" << E(name) << "\"><td>" << E(name) << "</td><td>"
        << E(roles.empty() ? "-" : roles) << "</td><td class=\"reviewer-state\">"
        << (paused ? "paused" : "active") << "</td><td class=\"n\">" << E(Field(r, "busy")) << " / "
        << E(Field(r, "slots")) << "</td><td class=\"n\">" << E(Field(r, "running"))
        << "</td><td class=\"n reviewer-queued\">" << E(Field(r, "queued"))
        << "</td><td><button data-post=\""
        << "/api/v1/reviewers/" << E(PercentEncode(name)) << (paused ? "/resume" : "/pause")
        << "\">" << (paused ? "Resume" : "Pause") << "</button></td></tr>";
    }
    o << "</table>";
  }
  o << "</section><section><h2>Runs waiting for a reviewer</h2>";
  const json::array& waiting = v->at("waiting").as_array();
  if (waiting.empty()) o << "<p class=\"muted\">None.</p>";
  for (const json::value& k : waiting) o << "<div>" << PrLink(Text(k)) << "</div>";
  o << "</section>";
  return Page("Reviewers", o.str());
}

// Each merge queue: its open entries in the queue's order (position, PR, state, batch, the
// SHA under test, ETA, what the last step said), then the latest ended ones.
std::string Dashboard::QueuesPage() const {
  auto v = QueuesView(store_, clock_->Now());
  if (!v.ok()) return Page("Queues", ErrorSection(v.status()));
  std::ostringstream o;
  const json::array& queues = v->at("queues").as_array();
  if (queues.empty()) {
    o << "<section><h2>Merge queues</h2><p class=\"muted\">No merge queue has run yet "
         "(merge_queue: in .github/gatehouse.yml, docs/MERGE_QUEUE.md).</p></section>";
  }
  for (const json::value& qv : queues) {
    const json::object& q = qv.as_object();
    const std::string name = Field(q, "queue");
    o << "<section class=\"queue\" data-queue=\"" << E(name) << "\"><h2>" << E(name)
      << "</h2><p class=\"muted\">work item " << E(Field(q, "work_state"))
      << "; a landing every " << E(Field(q, "landing_interval_seconds")) << " s, "
      << E(Field(q, "per_landing")) << " PRs each</p>";
    o << "<table class=\"queue-open\"><tr><th>#</th><th>Pull request</th><th>State</th>"
         "<th>Batch</th><th>Tested</th><th>ETA</th><th>Last step</th></tr>";
    for (const json::value& ev : q.at("open").as_array()) {
      const json::object& e = ev.as_object();
      o << "<tr class=\"entry\" data-subject=\"" << E(Field(e, "subject")) << "\"><td class=\"n\">"
        << E(Field(e, "position")) << "</td><td>" << PrLink(Field(e, "subject"))
        << "</td><td class=\"entry-state\">" << E(Field(e, "state")) << "</td><td class=\"n\">"
        << E(Field(e, "batch")) << "</td><td>" << E(Short(Field(e, "tested_sha"))) << "</td><td>"
        << E(Field(e, "eta")) << "</td><td>" << E(Field(e, "reason")) << "</td></tr>";
    }
    o << "</table><h3>Ended</h3><table class=\"queue-ended\"><tr><th>Pull request</th>"
         "<th>State</th><th>At</th><th>Why</th></tr>";
    for (const json::value& ev : q.at("ended").as_array()) {
      const json::object& e = ev.as_object();
      o << "<tr class=\"ended\"><td>" << PrLink(Field(e, "subject")) << "</td><td>"
        << E(Field(e, "state")) << "</td><td>" << E(Field(e, "updated_at")) << "</td><td>"
        << E(Field(e, "reason")) << "</td></tr>";
    }
    o << "</table></section>";
  }
  return Page("Queues", o.str());
}

}  // namespace gatehouse::admin
