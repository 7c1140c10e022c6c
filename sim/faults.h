// Fault settings: what `PUT /_sim/faults` sets (docs/SIMULATOR.md, "Faults"). REST faults
// (Faults) are applied by SimHandler to REST calls; delivery faults (DeliveryFaults) by
// WebhookSender to webhooks. This file parses and validates a settings body, renders the
// current settings for `GET /_sim/faults`, and matches aimed rules to calls and deliveries.
//
// Pure values and functions; callers synchronize access to the settings they hold.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gatehouse::sim {

// A REST fault aimed at the calls one method and path glob match, `count` times.
struct AimedFault {
  std::string method;  // upper case; "" matches any
  // fnmatch(3) glob over the request path without the query; `*` also matches `/`.
  std::string path;
  // server_error, connection_reset, secondary_rate_limit: the call is refused (no effect);
  // lost_answer_reset, lost_answer_502: the call takes effect, then its answer is lost;
  // graphql_timeout (POST /graphql only): the query is charged, and answered 200 with GitHub's
  // execution error instead of its data.
  std::string fault;
  int64_t count = 1;                 // calls left to fault; a rule is dropped when it reaches 0
  int status = 502;                  // server_error: the status answered
  int64_t retry_after_seconds = 60;  // secondary_rate_limit: the Retry-After header

  bool Matches(std::string_view method, std::string_view path) const;
};

// How the answer of a call that took effect is lost (the lost-answer faults): the connection
// is reset once the call's effect is applied, or a 502 is answered in its place.
enum class LostAnswer { kNone, kReset, kBadGateway };

// The lost answer an aimed rule's fault asks for; kNone for the faults that refuse the call.
LostAnswer LostAnswerOf(const AimedFault& rule);

// Whether a call with this method may change GitHub (everything but GET and HEAD): the
// lost-answer counters spend themselves on those only.
bool IsMutatingMethod(std::string_view method);

// Injected REST faults; each counter is consumed by one REST request.
struct Faults {
  int64_t connection_resets = 0;  // reset the connection of the next N requests (no answer)
  int64_t server_errors = 0;      // answer the next N requests with `server_error_status`
  int server_error_status = 502;
  int64_t secondary_rate_limits = 0;  // answer the next N with 403 + Retry-After
  int64_t retry_after_seconds = 60;
  bool primary_exhausted = false;  // 403 with X-RateLimit-Remaining: 0 until cleared
  // Epoch seconds: until then every call is refused as with primary_exhausted, with this as
  // its X-RateLimit-Reset; when it passes, every installation's window starts afresh. 0: none.
  int64_t primary_exhausted_until_s = 0;
  int64_t latency_ms = 0;  // delay every REST response by this much
  // The next N merge calls find that the author pushed a new commit just before they
  // arrived (a `synchronize` webhook, mergeable unknown again), so a merge bound to the old
  // head is refused with 409: the stale-plan race, made deterministic.
  int64_t push_on_merge = 0;
  // The next N review calls (POST .../pulls/N/reviews) on an open PR find that the author
  // pushed just before they arrived. GitHub takes a review for any commit of the PR, so the
  // review is made, on a head that is gone: the race after the last read, deterministic.
  int64_t push_on_review = 0;
  // The next N mutating calls (IsMutatingMethod) that are admitted take effect, and then their
  // answer is lost: the connection is reset (lost_answer_resets) or a 502 answered in its
  // place (lost_answer_502s). Resets are taken first.
  int64_t lost_answer_resets = 0;
  int64_t lost_answer_502s = 0;
  // Checked before every counter above, first matching rule first.
  std::vector<AimedFault> aimed{};
};

// What a delivery is about, for WebhookRule to match on.
struct DeliveryMeta {
  std::string action{};    // the payload's `action`; "" for events without one (status)
  std::vector<int> prs{};  // the pull request, or every PR a check run / suite / status lists
};

// Withholds or delays the deliveries it matches, `count` times.
struct WebhookRule {
  std::string event;     // X-GitHub-Event; required
  std::string action;    // "" matches any
  int pr = 0;            // 0 matches any; else one of the delivery's PRs
  bool drop = false;     // never send it (counted as withheld)
  int64_t delay_ms = 0;  // else: send it this much later; later deliveries go on meanwhile
  int64_t count = 1;

  bool Matches(std::string_view event, const DeliveryMeta& meta) const;
};

// Delivery faults, to exercise a receiver's de-duplication and ordering assumptions.
struct DeliveryFaults {
  int64_t duplicates = 0;  // send each of the next N deliveries twice, same id and body
  int64_t reorders = 0;    // N times: hold one delivery back until the next one has been sent
  int64_t delay_ms = 0;    // wait this long before each POST
  // Checked before the counters above; a delivery a rule matched takes no part in them.
  std::vector<WebhookRule> rules{};
};

struct FaultSettings {
  Faults rest;
  DeliveryFaults delivery;
};

// Parses a `PUT /_sim/faults` body; absent fields keep their defaults. `now_epoch_s` anchors
// `primary_exhausted_seconds`. InvalidArgument, naming the field, for an unknown field, a
// value of the wrong type or range, or a malformed `aimed` or `webhook_rules` rule.
Result<FaultSettings> ParseFaultSettings(const boost::json::object& body, int64_t now_epoch_s);

// The settings as `GET /_sim/faults` shows them, with what is left of each counter and rule.
boost::json::object RenderFaultSettings(const Faults& rest, const DeliveryFaults& delivery,
                                        int64_t now_epoch_s);

// The first rule that matches, with one of its `count` consumed (a rule at 0 is removed);
// nullopt when none matches.
std::optional<AimedFault> TakeAimedFault(std::vector<AimedFault>* rules, std::string_view method,
                                         std::string_view path);
std::optional<WebhookRule> TakeWebhookRule(std::vector<WebhookRule>* rules, std::string_view event,
                                           const DeliveryMeta& meta);

}  // namespace gatehouse::sim
