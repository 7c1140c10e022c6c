// Inbox: the webhook deliveries gatehouse accepted (DESIGN.md §4). A delivery is stored durably
// before GitHub gets its 2xx; routing then moves it, in one transaction with its signals and
// what it taught, to exactly one terminal state (routed, ignored, dead) — or to `unresolved`
// while the PR of a commit is looked up. The funnel counts every request.
//
// Every method is one atomic transaction; implementations are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/counters.h"
#include "store/repo_directory.h"
#include "store/work_queue.h"

namespace gatehouse {

// One webhook delivery as received (DESIGN.md §4).
struct Delivery {
  std::string delivery_id;  // X-GitHub-Delivery
  std::string event;        // X-GitHub-Event
  std::string action;       // the payload's "action", or ""
  std::optional<int64_t> installation_id;
  std::string body;         // the raw body, exactly as signed (or its zlib form, see below)
  std::string body_sha256;  // lower-case hex, of the raw body
  Time received_at;
  // kZlib: `body` holds ZlibCompress(raw body). Compression happens on the caller's thread
  // (base/compress.h), outside the store's single writer; the store keeps the encoding and
  // hands back the raw body.
  enum class Encoding { kIdentity, kZlib };
  Encoding encoding = Encoding::kIdentity;
};

enum class AcceptOutcome {
  kAccepted,   // new: stored, to be routed
  kDuplicate,  // same id, same body hash: stored before, nothing to do
  kConflict,   // same id, different body: recorded as a conflict, not stored
};

enum class InboxState { kAccepted, kUnresolved, kRouted, kIgnored, kDead };
std::string_view InboxStateName(InboxState state);

// A stored delivery, as routing and the CLI see it.
struct InboxEntry {
  int64_t seq = 0;
  std::string delivery_id;
  std::string event;
  std::string action;
  std::optional<int64_t> installation_id;
  std::string body;        // the raw body (decompressed)
  std::string body_error;  // non-empty when the stored body could not be decoded
  InboxState state = InboxState::kAccepted;
  std::string state_reason;
  int attempts = 0;
  Time received_at;
};

// What routing decided for one delivery; applied atomically with its signals.
struct RouteDecision {
  int64_t seq = 0;
  InboxState state = InboxState::kRouted;  // kRouted, kIgnored, kUnresolved or kDead
  std::string reason;                      // why ignored / unresolved / dead, or a summary
  std::vector<Signal> signals;             // folded into work items in the same transaction
  // PR heads learned from the payload: (subject key, head SHA), remembered so that a later
  // check or status with an empty PR list can be resolved by its SHA.
  std::vector<std::pair<std::string, std::string>> heads;
  // Repositories learned from the payload, upserted. A known installation id is never
  // overwritten by an absent one (a payload without `installation` knows nothing about it).
  std::vector<RepoInstallation> repos;
  // Repositories no longer covered by the App (uninstalled, removed from the installation):
  // forgotten, after `repos` is applied.
  std::vector<std::string> repos_removed;
  // PR facts learned from the payload; per (subject, name) the later `at` wins.
  std::vector<PrFact> facts;
};

// The ingress funnel: received = routed + ignored + duplicate + rejected + dead + in_flight.
struct Funnel {
  int64_t received = 0;
  int64_t routed = 0;
  int64_t ignored = 0;
  int64_t duplicate = 0;
  int64_t rejected = 0;
  int64_t dead = 0;
  int64_t in_flight = 0;   // accepted or unresolved, not yet terminal
  int64_t unresolved = 0;  // part of in_flight: waiting for a SHA → PR lookup
  int64_t conflicts = 0;   // part of rejected
};

class Inbox {
 public:
  virtual ~Inbox() = default;

  // Stores new deliveries durably (Durability::kAcknowledged: on return they survive power
  // loss, so the caller may answer 2xx) and classifies each. `rejected` are counts of
  // requests refused before reaching the inbox (bad signature, headers, JSON, size), by
  // reason, added to the funnel in the same transaction. One outcome per delivery.
  virtual Result<std::vector<AcceptOutcome>> AcceptDeliveries(std::span<const Delivery> deliveries,
                                                              const Counters& rejected,
                                                              Time now) = 0;

  // Deliveries not yet in a terminal state, oldest first: `accepted` ones, and `unresolved`
  // ones too when `include_unresolved`.
  virtual Result<std::vector<InboxEntry>> OpenDeliveries(size_t limit, bool include_unresolved) = 0;

  // Only the `unresolved` deliveries, oldest first, for the resolver (a backlog of accepted
  // deliveries must not hide them).
  virtual Result<std::vector<InboxEntry>> UnresolvedDeliveries(size_t limit) = 0;

  // Applies routing decisions, each with its signals and what it learned (heads, repos,
  // removed repos, facts), in one transaction. A decision for a delivery that is no longer
  // open is skipped entirely (another router got there).
  virtual Status ApplyRouting(std::span<const RouteDecision> decisions, Time now) = 0;

  virtual Result<Funnel> GetFunnel() = 0;

  // One stored delivery by its X-GitHub-Delivery id; nullopt when unknown.
  virtual Result<std::optional<InboxEntry>> GetDelivery(std::string_view delivery_id) = 0;
};

}  // namespace gatehouse
