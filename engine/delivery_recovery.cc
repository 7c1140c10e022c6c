#include "engine/delivery_recovery.h"

#include <algorithm>
#include <map>
#include <unordered_set>
#include <vector>

#include "base/ascii.h"
#include "base/compress.h"
#include "base/log.h"
#include "github/signature.h"

namespace gatehouse {

// The attempts of one round, by guid, oldest guid first.
struct DeliveryRecovery::Listed {
  struct Guid {
    bool succeeded = false;
    int64_t latest = 0;  // the newest attempt of the guid: the one fetched
    int64_t oldest = 0;  // orders the guids as GitHub first attempted them
  };
  std::map<std::string, Guid> guids;
  int64_t newest = 0;
};

DeliveryRecovery::DeliveryRecovery(Inbox& inbox, AppWebhookDeliveries& github, ClockPtr clock,
                                   DeliveryRecoveryOptions options)
    : inbox_(inbox), github_(github), clock_(clock), options_(options), loop_(clock) {}

DeliveryRecovery::~DeliveryRecovery() { Stop(); }

void DeliveryRecovery::Start() {
  loop_.Start([this] { Loop(); });
}

void DeliveryRecovery::Stop() { loop_.Stop(); }

void DeliveryRecovery::Loop() {
  while (!loop_.Stopping()) {
    RunOnce();
    if (!loop_.WaitUntil(clock_->Now() + options_.interval)) return;
  }
}

bool DeliveryRecovery::ListNewAttempts(int64_t mark, Listed* listed, RecoveryRound* round) {
  const Time oldest_kept = clock_->Now() - options_.retention;
  std::string cursor;
  for (int page = 0;; ++page) {
    if (page == options_.max_pages) {
      round->truncated = true;
      return true;
    }
    auto got = github_.ListDeliveries(options_.per_page, cursor);
    if (!got.ok()) {
      round->rate_limited = got.error().kind == GitHubErrorKind::kRateLimited;
      if (!round->rate_limited) ++round->errors;
      Log(LogLevel::kWarn, "recovery.list_failed").Field("error", got.error().ToString());
      return false;
    }
    for (const HookDelivery& d : got->deliveries) {
      // Newest first: the first attempt at or below the mark, or older than GitHub keeps
      // (what bounds the first run, which has no mark), ends the listing.
      if (d.id <= mark || (d.delivered_time && *d.delivered_time < oldest_kept)) {
        return true;
      }
      ++round->listed;
      listed->newest = std::max(listed->newest, d.id);
      Listed::Guid& g = listed->guids[d.guid];
      g.succeeded = g.succeeded || d.Succeeded();
      g.latest = std::max(g.latest, d.id);
      g.oldest = g.oldest == 0 ? d.id : std::min(g.oldest, d.id);
    }
    if (got->next_cursor.empty()) return true;
    cursor = got->next_cursor;
  }
}

void DeliveryRecovery::Recover(const std::string& guid, int64_t attempt_id, RecoveryRound* round) {
  auto detail = github_.GetDelivery(attempt_id);
  if (!detail.ok()) {
    const GitHubError& e = detail.error();
    if (e.kind == GitHubErrorKind::kRateLimited) {
      round->rate_limited = true;
    } else if (e.kind == GitHubErrorKind::kNotFound) {
      ++round->gone;
    } else {
      ++round->errors;
      Log(LogLevel::kWarn, "recovery.fetch_failed")
          .Field("delivery", guid)
          .Field("error", e.ToString());
    }
    return;
  }
  Delivery d;
  d.delivery_id = guid;
  d.event = detail->delivery.event;
  for (const auto& [name, value] : detail->request_headers) {
    if (EqualsIgnoreCase(name, "X-GitHub-Event")) d.event = value;
  }
  d.action = detail->delivery.action;
  d.installation_id = detail->delivery.installation_id;
  d.body = std::move(detail->payload);
  d.body_sha256 = Sha256Hex(d.body);
  d.received_at = clock_->Now();
  d.recovered = true;
  // An empty result means the compressor failed (out of memory): store the raw body then.
  if (std::string packed = ZlibCompress(d.body); !packed.empty() && packed.size() < d.body.size()) {
    d.body = std::move(packed);
    d.encoding = Delivery::Encoding::kZlib;
  }
  auto accepted = inbox_.AcceptDeliveries(std::span<const Delivery>(&d, 1), {}, clock_->Now());
  if (!accepted.ok() || accepted->size() != 1) {
    ++round->errors;
    Log(LogLevel::kWarn, "recovery.accept_failed")
        .Field("delivery", guid)
        .Field("error", accepted.ok() ? "no outcome" : accepted.status().ToString());
    return;
  }
  if ((*accepted)[0] == AcceptOutcome::kAccepted) {
    ++round->recovered;
    Log(LogLevel::kInfo, "recovery.recovered")
        .Field("delivery", guid)
        .Field("github_event", d.event)
        .Field("attempt", attempt_id);
  } else {
    ++round->duplicate;
  }
}

RecoveryRound DeliveryRecovery::RunOnce() {
  RecoveryRound round;
  auto mark = inbox_.GetRecoveryMark();
  if (!mark.ok()) {
    ++round.errors;
    Log(LogLevel::kWarn, "recovery.round_failed").Field("error", mark.status().ToString());
    return round;
  }
  round.mark = *mark;
  Listed listed;
  if (ListNewAttempts(*mark, &listed, &round)) {
    std::vector<std::pair<int64_t, std::string>> failed;  // (first attempt, guid)
    for (const auto& [guid, g] : listed.guids) {
      if (!g.succeeded) failed.emplace_back(g.oldest, guid);
    }
    std::sort(failed.begin(), failed.end());  // recover in the order GitHub first sent them
    round.failed = static_cast<int64_t>(failed.size());
    std::vector<std::string> ids;
    for (const auto& f : failed) ids.push_back(f.second);
    auto held = inbox_.HeldDeliveryIds(ids);
    if (!held.ok()) {
      ++round.errors;
      Log(LogLevel::kWarn, "recovery.round_failed").Field("error", held.status().ToString());
    } else {
      const std::unordered_set<std::string> have(held->begin(), held->end());
      round.held = static_cast<int64_t>(have.size());
      for (const auto& [first, guid] : failed) {
        if (round.rate_limited) break;  // the rest waits for the next round
        if (have.count(guid) == 0) Recover(guid, listed.guids[guid].latest, &round);
      }
    }
    if (!round.rate_limited && round.errors == 0 && listed.newest > *mark) {
      Status raised = inbox_.RaiseRecoveryMark(listed.newest, clock_->Now());
      if (raised.ok()) {
        round.mark = listed.newest;
      } else {
        ++round.errors;
      }
    }
    round.complete = !round.rate_limited && round.errors == 0;
  }
  Log(round.complete ? LogLevel::kInfo : LogLevel::kWarn, "recovery.round")
      .Field("listed", round.listed)
      .Field("failed", round.failed)
      .Field("held", round.held)
      .Field("recovered", round.recovered)
      .Field("duplicate", round.duplicate)
      .Field("gone", round.gone)
      .Field("errors", round.errors)
      .Field("rate_limited", round.rate_limited ? "true" : "false")
      .Field("truncated", round.truncated ? "true" : "false")
      .Field("mark", round.mark);
  return round;
}

}  // namespace gatehouse
