// DeliveryResolver: routes through GitHub the deliveries the inbox router could not
// (DESIGN.md §4: every accepted delivery ends in a terminal state).
//
// A check or status that carries no PR list (statuses never do; checks on fork PRs have an
// empty one) is resolved by its commit. The inbox router (engine/inbox_router.h) tries the PR
// heads the store knows; a delivery whose commit none of them has stays `unresolved`. Every
// `interval` (default 30 s) the resolver asks GitHub which PRs contain the commit of each
// unresolved delivery (GET /repos/{o}/{r}/commits/{sha}/pulls) and routes the delivery to the
// open ones, remembering their heads; it marks it `ignored` when no open PR has the commit (or
// when no installation is known to ask with), `dead` when its body cannot be decoded. A
// delivery GitHub cannot be asked about this time (rate limit, 5xx) stays `unresolved` for the
// next round. Every call is a background call (it stays out of the reserve kept for passes).
//
// Several resolvers (threads or processes) may share one store: each claims the deliveries it
// looks up (Inbox::ClaimDeliveries, Inbox::Open::kUnresolved) a chunk at a time, each chunk for
// long enough for its GitHub lookups, so none looks up a delivery another holds; one that dies
// leaves its chunk to another (or to itself, restarted) after the lease.
//
// The interval is measured on the injected Clock: on a SimClock a round comes due when the test
// moves the time past it.
//
// Thread-safe. Start() once, Stop() joins (after at most the GitHub call in progress).
// ResolveOnce() runs one round on the caller's thread (tests, tools).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/loop_thread.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse {

struct ResolverOptions {
  Duration interval = std::chrono::seconds(30);  // between rounds
  Duration debounce = std::chrono::seconds(1);   // for every signal a resolved delivery routes
  // App mode: each lookup is made as the delivery's installation (or the one the store knows
  // for its repository). Personal-token mode: every lookup under installation 0.
  bool app_mode = true;
  size_t batch = 100;  // deliveries looked at per round, at most
  // Who claims (Inbox::ClaimDeliveries), how many deliveries at a time, and for how long.
  std::string owner = "resolver";
  size_t chunk = 10;
  Duration lease = std::chrono::seconds(20);
};

struct ResolveStats {
  int64_t resolved = 0;  // unresolved deliveries that reached a terminal state
};

class DeliveryResolver {
 public:
  // `on_signalled` runs after a round that resolved deliveries (wired to WorkerPool::Wake).
  DeliveryResolver(Store& store, GitHub& github, ClockPtr clock, ResolverOptions options,
                   std::function<void()> on_signalled = nullptr);
  ~DeliveryResolver();

  void Start();
  void Stop();

  // Resolves the currently unresolved deliveries once (at most `batch` of them).
  ResolveStats ResolveOnce();

 private:
  // Decides one claimed chunk and applies the decisions; returns how many reached a terminal
  // state, or -1 when applying failed.
  int64_t ResolveChunk(const std::vector<InboxEntry>& open);
  // The decision for one claimed delivery; `unresolved` (which releases the claim) when it
  // cannot be decided this round.
  RouteDecision Decide(const InboxEntry& entry);
  void Loop();

  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  ResolverOptions options_;
  std::function<void()> on_signalled_;

  LoopThread loop_;  // last: stopped (in ~DeliveryResolver) before the members its loop uses go
};

}  // namespace gatehouse
