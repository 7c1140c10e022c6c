#include "admin/admin_api.h"

#include <boost/json.hpp>
#include <charconv>
#include <optional>
#include <utility>

#include "act/review_pass.h"
#include "admin/queue_view.h"
#include "admin/views.h"
#include "base/log.h"
#include "base/subject.h"
#include "github/signature.h"
#include "http/query.h"
#include "store/review_runs.h"

namespace gatehouse::admin {
namespace {

namespace json = boost::json;
using Query = std::map<std::string, std::string>;

HttpResponse Ok(const json::value& v) { return JsonResponse(200, json::serialize(v)); }

int HttpStatusOf(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kFenceLost:
      return 409;
    case StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

HttpResponse Error(const Status& s) { return JsonError(HttpStatusOf(s.code()), s.message()); }

template <typename T>
HttpResponse OkOrError(const Result<T>& r) {
  return r.ok() ? Ok(*r) : Error(r.status());
}

// `name` as an integer in [1, max], `fallback` when absent.
Result<size_t> LimitParam(const Query& q, size_t fallback, size_t max) {
  auto it = q.find("limit");
  if (it == q.end()) return fallback;
  size_t v = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > max) {
    return InvalidArgument("limit must be an integer from 1 to " + std::to_string(max));
  }
  return v;
}

std::string Param(const Query& q, const std::string& name) {
  auto it = q.find(name);
  return it == q.end() ? std::string() : it->second;
}

// The PR a work key belongs to: a review run's mailbox ("o/r#1/review/role") is its PR's.
std::string SubjectOfKey(const std::string& key) {
  std::string subject, role;
  if (ParseReviewWorkKey(key, &subject, &role)) return subject;
  return key;
}

}  // namespace

AdminApi::AdminApi(Store& store, ClockPtr clock, std::vector<ReviewerConfig> reviewers)
    : store_(store),
      clock_(clock ? std::move(clock) : std::make_shared<RealClock>()),
      reviewers_(std::move(reviewers)) {}

bool AdminApi::Owns(std::string_view path) { return path.starts_with("/api/"); }

HttpResponse AdminApi::Serve(const HttpRequest& request) {
  const std::vector<std::string> parts = PathSegments(request.target);
  if (parts.size() < 3 || parts[0] != "api" || parts[1] != "v1") {
    return JsonError(404, "no such endpoint (docs/ADMIN_API.md lists them)");
  }
  const std::vector<std::string> rest(parts.begin() + 2, parts.end());
  const Query query = ParseQuery(request.target);
  if (request.method == "GET") return Get(rest, query);
  if (request.method == "POST") return Post(rest, query);
  HttpResponse r = JsonError(405, "the admin API takes GET and POST");
  r.headers.emplace_back("Allow", "GET, POST");
  return r;
}

HttpResponse AdminApi::Get(const std::vector<std::string>& p, const Query& q) {
  const Time now = clock_->Now();
  const size_t n = p.size();
  if (n == 1 && p[0] == "status") return OkOrError(StatusView(store_, now));
  if (n == 1 && (p[0] == "work" || p[0] == "dead")) {
    auto limit = LimitParam(q, 100, kMaxPage);
    if (!limit.ok()) return Error(limit.status());
    WorkFilter filter;
    filter.limit = *limit;
    filter.after = Param(q, "after");
    if (p[0] == "dead") {
      filter.state = WorkState::kDead;
    } else if (const std::string state = Param(q, "state"); !state.empty()) {
      WorkState s;
      if (!ParseWorkState(state, &s)) {
        return JsonError(400, "state must be idle, pending, running or dead");
      }
      filter.state = s;
    }
    return OkOrError(WorkPageView(store_, filter));
  }
  if (n == 2 && p[0] == "work" && p[1] == "item") {
    const std::string key = Param(q, "key");
    if (key.empty()) return JsonError(400, "key is required: /api/v1/work/item?key=OWNER/REPO%23N");
    auto item = store_.work().GetWorkItem(key);
    if (!item.ok()) return Error(item.status());
    if (!*item) return JsonError(404, "no work item " + key);
    return Ok(WorkItemJson(**item));
  }
  if (n == 2 && p[0] == "deliveries") {
    const std::string body = Param(q, "body");
    return OkOrError(DeliveryView(store_, p[1], body == "1" || body == "true"));
  }
  if (n == 5 && p[0] == "prs" && p[4] == "timeline") {
    int number = 0;
    auto [end, ec] = std::from_chars(p[3].data(), p[3].data() + p[3].size(), number);
    std::optional<Subject> subject;
    if (ec == std::errc() && end == p[3].data() + p[3].size()) {
      subject = Subject::PullRequest(p[1] + "/" + p[2], number);
    }
    if (!subject) return JsonError(400, "expected /api/v1/prs/OWNER/REPO/NUMBER/timeline");
    auto limit = LimitParam(q, 200, 100'000);
    if (!limit.ok()) return Error(limit.status());
    return OkOrError(TimelineView(store_, subject->key(), *limit));
  }
  if (n == 1 && p[0] == "reviewers") return OkOrError(ReviewersView(store_, now, reviewers_));
  if (n == 1 && p[0] == "queues") return OkOrError(QueuesView(store_, now));
  if (n == 2 && p[0] == "ledger" && p[1] == "intents") {
    auto limit = LimitParam(q, 100, kMaxPage);
    if (!limit.ok()) return Error(limit.status());
    return OkOrError(IntentsView(store_, *limit));
  }
  return JsonError(404, "no such endpoint (docs/ADMIN_API.md lists them)");
}

HttpResponse AdminApi::Post(const std::vector<std::string>& p, const Query& q) {
  const size_t n = p.size();
  if (n == 2 && p[0] == "work" && p[1] == "rearm") {
    const std::string key = Param(q, "key");
    if (key.empty()) return JsonError(400, "key is required: /api/v1/work/rearm?key=KEY");
    return RearmOne(key);
  }
  if (n == 2 && p[0] == "dead" && p[1] == "rearm") return RearmMatching(Param(q, "prefix"));
  if (n == 3 && p[0] == "deliveries" && p[2] == "replay") return Replay(p[1]);
  if (n == 3 && p[0] == "reviewers" && (p[2] == "pause" || p[2] == "resume")) {
    return SetPaused(p[1], p[2] == "pause");
  }
  return JsonError(404, "no such endpoint (docs/ADMIN_API.md lists them)");
}

void AdminApi::AuditOperator(const std::string& subject, const std::string& summary, Time now) {
  AuditEntry e;
  e.subject = subject;
  e.at = now;
  e.kind = "operator";
  e.summary = summary;
  if (Status s = store_.audit().AppendAudit({&e, 1}, Durability::kRecoverable); !s.ok()) {
    Log(LogLevel::kWarn, "admin.audit_failed")
        .Field("subject", subject)
        .Field("error", s.ToString());
  }
}

HttpResponse AdminApi::RearmOne(const std::string& key) {
  const Time now = clock_->Now();
  Status s = store_.work().Rearm(key, now);
  if (!s.ok()) return Error(s);
  Log(LogLevel::kInfo, "admin.rearmed").Field("subject", key);
  AuditOperator(SubjectOfKey(key), "re-armed " + key + " (admin API)", now);
  return Ok(json::object{{"rearmed", json::array{json::value(key)}}});
}

HttpResponse AdminApi::RearmMatching(const std::string& prefix) {
  const Time now = clock_->Now();
  json::array rearmed, failed;
  auto rearm = [&](const std::string& key) {
    Status s = store_.work().Rearm(key, now);
    if (s.ok()) {
      rearmed.emplace_back(key);
      AuditOperator(SubjectOfKey(key), "re-armed " + key + " (admin API, all dead)", now);
    } else if (s.code() != StatusCode::kFailedPrecondition) {  // re-armed meanwhile: fine
      failed.push_back(json::object{{"key", key}, {"error", s.ToString()}});
    }
  };
  // Keys with the prefix sort right after it; `after` is exclusive, so the prefix itself as a
  // key is looked at first.
  if (!prefix.empty()) {
    auto exact = store_.work().GetWorkItem(prefix);
    if (!exact.ok()) return Error(exact.status());
    if (*exact && (*exact)->state == WorkState::kDead) rearm(prefix);
  }
  WorkFilter filter;
  filter.state = WorkState::kDead;
  filter.limit = kMaxPage;
  filter.after = prefix;
  bool past_prefix = false;
  while (!past_prefix) {
    auto page = store_.work().ListWorkItems(filter);
    if (!page.ok()) return Error(page.status());
    for (const WorkItem& w : *page) {
      if (!w.key.starts_with(prefix)) {
        past_prefix = true;
        break;
      }
      rearm(w.key);
    }
    if (page->size() < filter.limit) break;
    filter.after = page->back().key;
  }
  Log(LogLevel::kInfo, "admin.rearmed_matching")
      .Field("prefix", prefix)
      .Field("count", static_cast<int64_t>(rearmed.size()));
  return Ok(json::object{{"rearmed", std::move(rearmed)}, {"failed", std::move(failed)}});
}

HttpResponse AdminApi::Replay(const std::string& delivery_id) {
  auto found = store_.inbox().GetDelivery(delivery_id);
  if (!found.ok()) return Error(found.status());
  if (!*found) return JsonError(404, "the inbox holds no delivery " + delivery_id);
  const InboxEntry& e = **found;
  if (!e.body_error.empty()) {
    return JsonError(409, "delivery " + delivery_id + " has an unreadable body: " + e.body_error);
  }
  const Time now = clock_->Now();
  // A replay is a new delivery with the same payload, so the original keeps its history and
  // the funnel stays whole: received counts it once more, and it is routed like any other.
  for (int n = 1; n <= 1000; ++n) {
    Delivery d;
    d.delivery_id = delivery_id + ".replay-" + std::to_string(n);
    // Look first: accepting an id the inbox holds would count a duplicate in the funnel.
    auto held = store_.inbox().GetDelivery(d.delivery_id);
    if (!held.ok()) return Error(held.status());
    if (*held) continue;
    d.event = e.event;
    d.action = e.action;
    d.installation_id = e.installation_id;
    d.body = e.body;
    d.body_sha256 = Sha256Hex(e.body);
    d.received_at = now;
    d.headers = e.headers;
    d.headers.emplace_back("X-Gatehouse-Replay-Of", delivery_id);
    auto outcome = store_.inbox().AcceptDeliveries({&d, 1}, {}, now);
    if (!outcome.ok()) return Error(outcome.status());
    if ((*outcome)[0] != AcceptOutcome::kAccepted) continue;  // another replay took it: next
    Log(LogLevel::kInfo, "admin.replayed")
        .Field("delivery", delivery_id)
        .Field("replay", d.delivery_id);
    return Ok(json::object{{"delivery_id", d.delivery_id}, {"replay_of", delivery_id}});
  }
  return JsonError(409, "delivery " + delivery_id + " was replayed 1000 times already");
}

HttpResponse AdminApi::SetPaused(const std::string& reviewer, bool paused) {
  const Time now = clock_->Now();
  Status s = store_.reviews().SetPaused(reviewer, paused, now);
  if (!s.ok()) {
    if (s.code() == StatusCode::kNotFound) return JsonError(404, "no reviewer " + reviewer);
    return Error(s);
  }
  if (!paused) act::WakeWaitingRuns(store_, now);
  Log(LogLevel::kInfo, paused ? "admin.reviewer_paused" : "admin.reviewer_resumed")
      .Field("reviewer", reviewer);
  return Ok(json::object{{"reviewer", reviewer}, {"paused", paused}});
}

}  // namespace gatehouse::admin
