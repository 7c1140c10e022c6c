// Resolving unresolved deliveries through GitHub. See engine/delivery_resolver.h.
#include "engine/delivery_resolver.h"

#include <algorithm>
#include <boost/json.hpp>
#include <optional>
#include <utility>

#include "base/log.h"
#include "base/subject.h"
#include "base/thread_name.h"
#include "engine/delivery_audit.h"
#include "engine/router.h"

namespace gatehouse {
namespace {

RouteDecision Decided(const InboxEntry& entry, InboxState state, std::string reason) {
  RouteDecision d;
  d.seq = entry.seq;
  d.claim = entry.claim;
  d.state = state;
  d.reason = std::move(reason);
  return d;
}

}  // namespace

DeliveryResolver::DeliveryResolver(Store& store, GitHub& github, ClockPtr clock,
                                   ResolverOptions options, std::function<void()> on_signalled)
    : store_(store),
      github_(github),
      clock_(std::move(clock)),
      options_(std::move(options)),
      on_signalled_(std::move(on_signalled)),
      loop_(clock_) {}

DeliveryResolver::~DeliveryResolver() { Stop(); }

void DeliveryResolver::Start() {
  loop_.Start([this] { Loop(); });
}

void DeliveryResolver::Stop() { loop_.Stop(); }

void DeliveryResolver::Loop() {
  SetThreadName("gh-resolver");
  while (loop_.WaitUntil(clock_->Now() + options_.interval)) ResolveOnce();
}

ResolveStats DeliveryResolver::ResolveOnce() {
  ResolveStats stats;
  // Accepted deliveries are the router's; this looks at the unresolved ones only (a routing
  // backlog does not hide them), a chunk at a time so that each claim's lease covers only that
  // chunk's lookups. Each ends in a terminal state unless GitHub could not be asked this time.
  size_t looked_at = 0;
  while (looked_at < options_.batch && !loop_.Stopping()) {
    const size_t chunk = std::min(options_.chunk, options_.batch - looked_at);
    auto open = store_.inbox().ClaimDeliveries(options_.owner, chunk, Inbox::Open::kUnresolved,
                                               options_.lease, clock_->Now());
    if (!open.ok() || open->empty()) break;
    looked_at += open->size();
    const int64_t resolved = ResolveChunk(*open);
    if (resolved < 0) break;
    stats.resolved += resolved;
    // Nothing in this chunk could be decided (GitHub refused, rate limits): the rest waits for
    // the next round instead of being claimed again at once.
    if (resolved == 0) break;
  }
  if (stats.resolved > 0) {
    Log(LogLevel::kInfo, "resolver.done").Field("deliveries", stats.resolved);
    if (on_signalled_) on_signalled_();
  }
  return stats;
}

int64_t DeliveryResolver::ResolveChunk(const std::vector<InboxEntry>& open) {
  std::vector<RouteDecision> decisions;
  decisions.reserve(open.size());
  for (const InboxEntry& entry : open) decisions.push_back(Decide(entry));
  if (decisions.empty()) return 0;
  if (Status s = store_.inbox().ApplyRouting(decisions, clock_->Now()); !s.ok()) {
    Log(LogLevel::kWarn, "resolver.apply").Field("error", s.ToString());
    return -1;
  }
  for (size_t i = 0; i < open.size() && i < decisions.size(); ++i) LogRouted(open[i], decisions[i]);
  return std::count_if(decisions.begin(), decisions.end(),
                       [](const RouteDecision& x) { return x.state != InboxState::kUnresolved; });
}

RouteDecision DeliveryResolver::Decide(const InboxEntry& entry) {
  // Released, not held for the claim's lease: another resolver may take it at once.
  if (loop_.Stopping()) return Decided(entry, InboxState::kUnresolved, entry.state_reason);
  boost::system::error_code ec;
  boost::json::value payload =
      entry.body_error.empty() ? boost::json::parse(entry.body, ec) : boost::json::value();
  if (!entry.body_error.empty() || ec) {
    return Decided(
        entry, InboxState::kDead,
        "undecodable body: " + (entry.body_error.empty() ? ec.message() : entry.body_error));
  }
  // A delivery this round cannot decide stays unresolved, and its claim is released (by
  // applying `unresolved` again), so that the next round — here or in another process — looks
  // at it again.
  const RouteResult route = RouteWebhook(entry.event, payload);
  RepoRef repo;
  if (route.kind != RouteResult::Kind::kResolveBySha || !ParseRepoFullName(route.repo, &repo)) {
    // The router routes it differently now; it will pick it up.
    return Decided(entry, InboxState::kUnresolved, entry.state_reason);
  }
  CallContext ctx{0, /*background=*/true};
  if (options_.app_mode) {
    std::optional<int64_t> id = entry.installation_id;
    if (!id) {
      auto known = store_.repos().GetRepository(route.repo);
      if (known.ok() && *known) id = (*known)->installation_id;
    }
    if (!id) {
      return Decided(entry, InboxState::kIgnored,
                     "no installation known for " + route.repo + " to look up " + route.sha);
    }
    ctx.installation_id = *id;
  }
  auto prs = github_.ListPullRequestsForCommit(ctx, repo, route.sha);
  if (!prs.ok()) {
    if (prs.error().kind == GitHubErrorKind::kNotFound) {
      return Decided(entry, InboxState::kIgnored, "commit " + route.sha + " not found on GitHub");
    }
    Log(LogLevel::kInfo, "resolver.later")
        .Field("delivery", entry.delivery_id)
        .Field("error", prs.error().ToString());
    return Decided(entry, InboxState::kUnresolved,
                   "looking up " + route.sha + " later: " + prs.error().ToString());
  }
  RouteDecision d = Decided(entry, InboxState::kRouted, "");
  for (const PullRequest& pr : *prs) {
    if (pr.state != "open") continue;
    const std::optional<Subject> subject = Subject::PullRequest(route.repo, pr.number);
    if (!subject) continue;
    const std::string& key = subject->key();
    d.signals.push_back(Signal{key, route.reason, options_.debounce});
    if (!pr.head_sha.empty()) d.heads.emplace_back(key, pr.head_sha);
  }
  if (d.signals.empty()) {
    d.state = InboxState::kIgnored;
    d.reason = "no open pull request contains " + route.sha;
  } else {
    d.reason = "resolved through GitHub: " + std::to_string(d.signals.size()) + " PR(s)";
    AuditSignals(entry, d, clock_->Now());
  }
  return d;
}

}  // namespace gatehouse
