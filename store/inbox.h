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
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/audit_log.h"
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
  // True for a delivery gatehouse fetched from GitHub's list of failed deliveries
  // (engine/delivery_recovery.h) instead of receiving it: its body is GitHub's parsed payload
  // re-serialized, so its hash is not that of the bytes GitHub signed. The same id arriving
  // later for real (a redelivery), or recovered again, is a duplicate whatever its hash.
  bool recovered = false;
  // The request headers worth keeping (GitHub's X-GitHub-*, X-Hub-Signature-256, User-Agent,
  // Content-Type: the handler picks them), shown by the admin API's delivery view. Stored as
  // FormatHeaderLines text; read back only by GetDelivery.
  std::vector<std::pair<std::string, std::string>> headers;
};

// "Name: value\n" per header (a value's CR and LF become spaces), and back.
std::string FormatHeaderLines(const std::vector<std::pair<std::string, std::string>>& headers);
std::vector<std::pair<std::string, std::string>> ParseHeaderLines(std::string_view text);

enum class AcceptOutcome {
  kAccepted,   // new: stored, to be routed
  kDuplicate,  // same id, same body hash: stored before, nothing to do
  kConflict,   // same id, different body: recorded as a conflict, not stored
};

enum class InboxState { kAccepted, kUnresolved, kRouted, kIgnored, kDead };
// The state as both backends store it ("accepted", "unresolved", ...).
std::string_view InboxStateName(InboxState state);
// The state stored as `text`; an unknown text is `accepted`, which routing picks up again
// (a delivery is never lost to a name it cannot read).
InboxState ParseInboxState(std::string_view text);
// Routed, ignored or dead: the delivery is done with. Accepted and unresolved are open.
bool IsTerminal(InboxState state);

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
  // The token of the claim this entry was handed out under (Inbox::ClaimDeliveries); a routing
  // decision for it must carry it. 0 for entries read without a claim (GetDelivery).
  int64_t claim = 0;
  // Delivery::headers as stored; filled by GetDelivery only (claims do not read them).
  std::vector<std::pair<std::string, std::string>> headers;
};

// What routing decided for one delivery; applied atomically with its signals.
struct RouteDecision {
  int64_t seq = 0;
  int64_t claim = 0;                       // the InboxEntry::claim the delivery was routed under
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
  // Audit lines (e.g. "this delivery signalled this PR"), appended in the same transaction,
  // only when the decision applies (the delivery was still open under `claim`).
  std::vector<AuditEntry> audit;
};

// What every backend's ApplyRouting checks before it writes anything: each decision moves its
// delivery out of `accepted`, and its signals, learned repositories, facts and audit lines are
// well-formed. InvalidArgument naming the first that is not.
Status ValidateRouteDecisions(std::span<const RouteDecision> decisions);

// The ingress funnel: received = routed + ignored + duplicate + rejected + dead + in_flight.
// `recovered` is part of `received`: the deliveries that entered through recovery
// (Delivery::recovered) rather than a webhook request; they then go through the same states.
struct Funnel {
  int64_t received = 0;
  int64_t recovered = 0;  // part of received (accepted through recovery)
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

  // Which open deliveries ClaimDeliveries takes: `accepted` ones (to route), `unresolved` ones
  // (to resolve through GitHub), or both.
  enum class Open { kAccepted, kUnresolved, kAny };

  // Claims up to `limit` open deliveries of `which` that no live claim holds, oldest first,
  // for `owner` until now + `lease`, in one transaction; each gets a new claim token
  // (InboxEntry::claim). Several routers — threads or processes — therefore never work on the
  // same delivery at once, and none routes one twice. A claim not applied within its lease (its
  // router died or stalled) can be claimed again, under a new token. Recoverable durability: a
  // claim lost in a crash only makes its deliveries claimable again.
  virtual Result<std::vector<InboxEntry>> ClaimDeliveries(std::string_view owner, size_t limit,
                                                          Open which, Duration lease, Time now) = 0;

  // Applies routing decisions, each with its signals and what it learned (heads, repos,
  // removed repos, facts), in one transaction. A decision is applied only while its delivery
  // is open and its claim token is still the delivery's latest (decision.claim); otherwise it
  // is skipped entirely — another router claimed the delivery since, and decides it. Applying
  // releases the claim, so a delivery left `unresolved` can be claimed by the resolver at once.
  virtual Status ApplyRouting(std::span<const RouteDecision> decisions, Time now) = 0;

  virtual Result<Funnel> GetFunnel() = 0;

  // One stored delivery by its X-GitHub-Delivery id; nullopt when unknown.
  virtual Result<std::optional<InboxEntry>> GetDelivery(std::string_view delivery_id) = 0;

  // --- recovering missed deliveries (engine/delivery_recovery.h) ---

  // Which of `delivery_ids` the inbox holds, in one read (no per-id round trip); in no
  // particular order.
  virtual Result<std::vector<std::string>> HeldDeliveryIds(
      std::span<const std::string> delivery_ids) = 0;
  // The high-water mark of recovery: the newest GitHub delivery attempt id (the API's `id`, not
  // the guid) whose round completed; 0 before the first. Shared by every node on the store.
  virtual Result<int64_t> GetRecoveryMark() = 0;
  // Raises the mark to `attempt_id`; a lower value leaves it as it is (two nodes finishing
  // rounds out of order never move it back). Recoverable durability: a lost raise only makes
  // the next round list a little more.
  virtual Status RaiseRecoveryMark(int64_t attempt_id, Time now) = 0;
};

}  // namespace gatehouse
