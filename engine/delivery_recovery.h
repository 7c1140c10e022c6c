// DeliveryRecovery: gets back the webhook deliveries GitHub attempted while gatehouse could not
// take them (restarting, deploying, unreachable), without a sweep (DESIGN.md §8, issue 13).
//
// GitHub never redelivers by itself; it only keeps the App's delivery attempts for a few days
// (github/hook_deliveries.h). One round:
//
//   1. lists the attempts newer than the store's high-water mark (Inbox::GetRecoveryMark),
//      newest first, 100 per page, stopping at the mark, at the retention window (on the first
//      run, with no mark) or after `max_pages`;
//   2. groups them by guid (the delivery), and keeps the guids none of whose listed attempts
//      got a 2xx;
//   3. asks the inbox, in one read, which of those it holds (a timeout GitHub counted as a
//      failure may still have been stored) and drops them — nothing is fetched for a guid that
//      needs no recovery;
//   4. fetches each remaining delivery (GET /app/hook/deliveries/{id}, the latest attempt) and
//      accepts it into the inbox as if delivered, under its guid, marked `recovered`
//      (Delivery::recovered): routed like any other, counted as `inbox.recovered`, and a real
//      redelivery arriving later is a duplicate;
//   5. raises the mark to the newest attempt listed — only when the round got through: a
//      round ended by a rate limit (RateLimited ends it at once) or by failed fetches leaves
//      the mark, and the next round lists the same attempts again (what it recovered since is
//      held by then, so nothing is done twice).
//
// Why accept rather than ask GitHub to redeliver: docs/INGRESS.md, "Recovering missed
// deliveries". Several nodes may each run it: the inbox's de-duplication by delivery id makes a
// delivery two nodes recover at once one delivery (docs/POSTGRES.md).
//
// Every call is background work (the App client keeps a reserve); one log line per round with
// its counts. Time is the injected Clock: the loop waits `interval` on it between rounds.
//
// Thread-safe: Start() once, Stop() joins. RunOnce() runs a round on the caller's thread.
#pragma once

#include <cstdint>
#include <string>

#include "base/clock.h"
#include "base/loop_thread.h"
#include "github/hook_deliveries.h"
#include "store/inbox.h"

namespace gatehouse {

struct DeliveryRecoveryOptions {
  Duration interval = std::chrono::seconds(60);  // between rounds; must be positive to Start
  // How far back the first round (no mark yet) looks; GitHub keeps attempts about 3 days.
  Duration retention = std::chrono::hours(72);
  int per_page = 100;  // GitHub's maximum
  int max_pages = 50;  // a round lists at most this many pages (5000 attempts)
};

// What one round saw and did.
struct RecoveryRound {
  int64_t listed = 0;     // attempts listed (newer than the mark, within the window)
  int64_t failed = 0;     // guids none of whose listed attempts got a 2xx
  int64_t held = 0;       // of those, already in the inbox: nothing fetched
  int64_t recovered = 0;  // fetched and accepted as new deliveries
  int64_t duplicate = 0;  // fetched, but the inbox had it by then (another node, a redelivery)
  int64_t gone = 0;       // GitHub no longer had the attempt (404)
  int64_t errors = 0;     // fetches or store writes that failed (retried next round)
  bool rate_limited = false;
  bool truncated = false;  // stopped at max_pages before the mark or the window
  bool complete = false;   // the mark was raised
  int64_t mark = 0;        // the mark after the round
};

class DeliveryRecovery {
 public:
  // `inbox` and `github` must outlive the recovery.
  DeliveryRecovery(Inbox& inbox, AppWebhookDeliveries& github, ClockPtr clock,
                   DeliveryRecoveryOptions options);
  ~DeliveryRecovery();
  DeliveryRecovery(const DeliveryRecovery&) = delete;
  DeliveryRecovery& operator=(const DeliveryRecovery&) = delete;

  // A round now, then one every `interval`, on a thread of its own.
  void Start();
  void Stop();

  RecoveryRound RunOnce();

 private:
  struct Listed;
  // Step 1; false when the listing ended early (rate limit, error): the round stops.
  bool ListNewAttempts(int64_t mark, Listed* listed, RecoveryRound* round);
  // Step 4 for one guid.
  void Recover(const std::string& guid, int64_t attempt_id, RecoveryRound* round);
  void Loop();

  Inbox& inbox_;
  AppWebhookDeliveries& github_;
  ClockPtr clock_;
  const DeliveryRecoveryOptions options_;
  LoopThread loop_;  // last: stopped before the members its loop uses go
};

}  // namespace gatehouse
