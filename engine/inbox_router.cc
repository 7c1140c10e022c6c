#include "engine/inbox_router.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <map>

#include "base/log.h"
#include "base/subject.h"
#include "base/thread_name.h"
#include "engine/delivery_audit.h"
#include "engine/router.h"

namespace gatehouse {

namespace {

// gatehouse's login for RouteStamp::own_login; "" while it is not known.
std::string OwnLogin(const std::function<std::optional<std::string>()>& own_login) {
  if (!own_login) return "";
  return own_login().value_or("");
}

int64_t Millis(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

std::string DefaultOwner() {
  static std::atomic<int> next{0};
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return "router@" + std::string(host) + ":" + std::to_string(getpid()) + ":" +
         std::to_string(next.fetch_add(1));
}

}  // namespace

InboxRouter::InboxRouter(Store& store, ClockPtr clock, RouterOptions options,
                         std::function<void()> on_routed)
    : store_(store),
      clock_(std::move(clock)),
      options_(std::move(options)),
      on_routed_(std::move(on_routed)) {
  if (options_.owner.empty()) options_.owner = DefaultOwner();
}

InboxRouter::~InboxRouter() { Stop(); }

void InboxRouter::Start() {
  wakeup_ = store_.wakeups().Subscribe(Wakeups::Topic::kDeliveries, [this] { Wake(); });
  thread_ = std::thread([this] {
    SetThreadName("gh-router");
    Loop();
  });
}

void InboxRouter::Stop() {
  if (wakeup_ != 0) {
    store_.wakeups().Unsubscribe(wakeup_);
    wakeup_ = 0;
  }
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void InboxRouter::Wake() {
  {
    MutexLock lock(&mu_);
    wake_ = true;
  }
  cv_.Signal();
}

Status InboxRouter::SignalWatchingQueues(const RouteResult& r, RouteDecision* d,
                                         QueuesBySha* watching) {
  if (r.watch_shas.empty() || d->state == InboxState::kIgnored || d->state == InboxState::kDead) {
    return Status::Ok();
  }
  const std::string reason = d->signals.empty() ? r.reason : d->signals.front().reason;
  size_t found = 0;
  for (const std::string& sha : r.watch_shas) {
    auto [it, added] = watching->try_emplace({r.watch_repo, sha});
    if (added) {
      auto queues = store_.queues().QueuesWatching(r.watch_repo, sha);
      if (!queues.ok()) {
        watching->erase(it);
        return queues.status();
      }
      it->second = std::move(queues).value();
    }
    for (const std::string& q : it->second) {
      const bool seen = std::any_of(d->signals.begin(), d->signals.end(),
                                    [&](const Signal& s) { return s.key == q; });
      if (seen) continue;
      d->signals.push_back(Signal{q, reason, options_.debounce});
      ++found;
    }
  }
  if (found > 0 && d->state == InboxState::kUnresolved) {
    d->state = InboxState::kRouted;
    d->reason = "resolved by the merge queue testing " + r.sha;
  }
  return Status::Ok();
}

Result<size_t> InboxRouter::RouteOnce(bool include_unresolved) {
  GH_ASSIGN_OR_RETURN(auto entries,
                      store_.inbox().ClaimDeliveries(
                          options_.owner, options_.batch,
                          include_unresolved ? Inbox::Open::kAny : Inbox::Open::kAccepted,
                          options_.claim_lease, clock_->Now()));
  if (entries.empty()) return size_t{0};
  std::vector<RouteDecision> decisions;
  decisions.reserve(entries.size());
  // Heads learned earlier in this batch, for checks that follow their PR's push closely.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> batch_heads;
  QueuesBySha watching;  // the merge queues watching a commit, asked once per batch
  bool any_signal = false;
  std::vector<std::string> rearm;
  const std::string own_login = OwnLogin(options_.own_login);
  for (const InboxEntry& e : entries) {
    RouteDecision d;
    d.seq = e.seq;
    d.claim = e.claim;
    if (!e.body_error.empty()) {
      d.state = InboxState::kDead;
      d.reason = "stored body unreadable: " + e.body_error;
      decisions.push_back(std::move(d));
      continue;
    }
    boost::system::error_code ec;
    boost::json::monotonic_resource arena;  // one arena per payload: no malloc per node
    boost::json::value payload = boost::json::parse(e.body, ec, &arena);
    if (ec) {
      d.state = InboxState::kDead;
      d.reason = "body is not valid JSON: " + ec.message();
      decisions.push_back(std::move(d));
      continue;
    }
    RouteResult r =
        RouteWebhook(e.event, payload, RouteStamp{e.received_at, options_.debounce, own_login});
    for (const auto& [key, sha] : r.heads) {
      if (!sha.empty()) batch_heads[{RepoOfSubjectKey(key), sha}].push_back(key);
    }
    d.heads = std::move(r.heads);
    d.repos = std::move(r.repos);
    d.repos_removed = std::move(r.repos_removed);
    d.facts = std::move(r.facts);
    rearm.insert(rearm.end(), r.rearm.begin(), r.rearm.end());
    switch (r.kind) {
      case RouteResult::Kind::kRoute:
        d.state = InboxState::kRouted;
        d.reason = r.why;
        d.signals = std::move(r.signals);
        break;
      case RouteResult::Kind::kIgnore:
        d.state = InboxState::kIgnored;
        d.reason = r.why;
        break;
      case RouteResult::Kind::kResolveBySha: {
        GH_ASSIGN_OR_RETURN(auto keys, store_.repos().PullRequestsWithHead(r.repo, r.sha));
        auto it = batch_heads.find({r.repo, r.sha});
        if (it != batch_heads.end()) keys.insert(keys.end(), it->second.begin(), it->second.end());
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        if (keys.empty()) {
          d.state = InboxState::kUnresolved;
          d.reason = "no known open pull request of " + r.repo + " has head " + r.sha;
        } else {
          d.state = InboxState::kRouted;
          d.reason = "resolved by head " + r.sha;
          for (auto& k : keys) d.signals.push_back(Signal{k, r.reason, options_.debounce});
        }
        break;
      }
    }
    GH_RETURN_IF_ERROR(SignalWatchingQueues(r, &d, &watching));
    any_signal |= !d.signals.empty();
    AuditSignals(e, d, clock_->Now());
    decisions.push_back(std::move(d));
  }
  const Time decided_at = clock_->Now();
  GH_RETURN_IF_ERROR(store_.inbox().ApplyRouting(decisions, decided_at));
  for (size_t i = 0; i < entries.size() && i < decisions.size(); ++i) {
    LogRouted(entries[i], decisions[i]);
  }
  if (options_.routing_lag != nullptr) {
    for (size_t i = 0; i < entries.size() && i < decisions.size(); ++i) {
      if (decisions[i].state == InboxState::kUnresolved) continue;
      const double lag = std::chrono::duration<double>(decided_at - entries[i].received_at).count();
      options_.routing_lag->Observe(lag > 0 ? lag : 0.0);
    }
  }
  RearmRefreshed(rearm, decided_at);
  if ((any_signal || !rearm.empty()) && on_routed_) on_routed_();
  return decisions.size();
}

void InboxRouter::RearmRefreshed(const std::vector<std::string>& keys, Time now) {
  for (const std::string& key : keys) {
    const Status s = store_.work().Rearm(key, now);
    if (s.ok()) {
      Log(LogLevel::kInfo, "router.rearmed").Field("subject", key).Field("why", "refresh command");
    } else if (s.code() != StatusCode::kFailedPrecondition && s.code() != StatusCode::kNotFound) {
      // Best effort: the command's signal is routed whatever happens here; asking again re-arms.
      Log(LogLevel::kWarn, "router.rearm_failed")
          .Field("subject", key)
          .Field("error", s.ToString());
    }
  }
}

void InboxRouter::SetHeld(bool held) {
  if (options_.held != nullptr) options_.held->Set(held ? 1.0 : 0.0);
}

bool InboxRouter::YieldToIngest(Time now, Deferral* deferral) {
  if (!options_.ingest || options_.defer_while_saturated <= Duration::zero()) return false;
  const Time saturated_until = options_.ingest->SaturatedUntil();
  if (saturated_until <= now) {
    if (deferral->since && !deferral->limit_reached) {
      Log(LogLevel::kInfo, "router.resumed")
          .Field("why", "the webhook door is no longer saturated")
          .Field("held_ms", Millis(now - *deferral->since));
      SetHeld(false);
    }
    *deferral = Deferral{};
    return false;
  }
  if (deferral->limit_reached) return false;  // routing until caught up
  if (!deferral->since) {
    deferral->since = now;
    Log(LogLevel::kInfo, "router.deferring")
        .Field("why", "the webhook door is saturated")
        .Field("limit_ms", Millis(options_.defer_while_saturated));
    SetHeld(true);
    if (options_.holds != nullptr) options_.holds->Inc();
  }
  const Time limit = *deferral->since + options_.defer_while_saturated;
  if (now >= limit) {
    deferral->limit_reached = true;
    Log(LogLevel::kInfo, "router.resumed")
        .Field("why", "held back as long as allowed; routing until caught up")
        .Field("held_ms", Millis(now - *deferral->since));
    SetHeld(false);
    return false;
  }
  // Each commit wakes the loop to look again; the door's saturation lapsing wakes it here.
  const Time until = std::min(limit, saturated_until);
  MutexLock lock(&mu_);
  while (!wake_ && !stopping_ && clock_->WaitUntil(&mu_, &cv_, until)) {
  }
  return true;
}

void InboxRouter::Loop() {
  Time next_recheck = clock_->Now();
  Deferral deferral;
  while (true) {
    {
      MutexLock lock(&mu_);
      if (stopping_) break;
      wake_ = false;
    }
    const Time now = clock_->Now();
    if (YieldToIngest(now, &deferral)) continue;
    const bool recheck = now >= next_recheck;
    if (recheck) next_recheck = now + options_.unresolved_recheck;
    auto routed = RouteOnce(recheck);
    if (options_.on_batch) options_.on_batch();
    if (!routed.ok()) {
      Log(LogLevel::kWarn, "router.failed").Field("error", routed.status().ToString());
    } else if (*routed == options_.batch) {
      // More may be waiting. A full recheck batch may be unresolved deliveries alone, so it
      // does not loop by itself, unless routing is catching up after a hold.
      if (!recheck || deferral.limit_reached) continue;
    } else {
      deferral = Deferral{};  // caught up: the door may be given the machine again
    }
    const Time poll = clock_->Now() + options_.poll_interval;
    MutexLock lock(&mu_);
    while (!wake_ && !stopping_ && clock_->WaitUntil(&mu_, &cv_, poll)) {
    }
  }
  SetHeld(false);  // a stop during a hold
  // Route what was accepted before the stop (the inbox writer drains first), so a clean
  // shutdown leaves nothing in flight. Bounded: a store error ends it; the rest waits in
  // the inbox for the next start.
  for (int i = 0; i < 1000; ++i) {
    auto routed = RouteOnce(false);
    if (!routed.ok() || *routed < options_.batch) break;
  }
}

}  // namespace gatehouse
