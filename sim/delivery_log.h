// DeliveryLog: every webhook delivery attempt the simulator's WebhookSender made, as GitHub
// keeps them for an App's webhook (GET /app/hook/deliveries, docs/SIMULATOR.md).
//
// An attempt has its own id (int64, increasing, like GitHub's) and the delivery's guid (the
// X-GitHub-Delivery value, shared by every attempt of one delivery, redeliveries included), the
// outcome — `status_code` and GitHub's `status` text: "OK" for a 2xx, "Invalid HTTP Response:
// 503" for another answer, "failed to connect" (connection refused) or "timed out" with
// status_code 0 when there was none — and the request's headers and payload, so that the
// delivery can be shown in full and sent again.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse::sim {

struct DeliveryAttempt {
  int64_t id = 0;
  std::string guid;
  Time delivered_at;
  bool redelivery = false;
  double duration_s = 0;  // seconds the attempt took
  std::string status;     // GitHub's text, see above
  int status_code = 0;    // 0: no HTTP answer
  std::string event;
  std::string action;           // the payload's "action", "" when none
  int64_t installation_id = 0;  // the payload's installation.id, 0 when none
  int64_t repository_id = 0;    // the payload's repository.id, 0 when none
  std::string url;              // where it was sent
  std::vector<std::pair<std::string, std::string>> request_headers;
  std::string payload;  // the raw body sent
};

// What one POST of a delivery came to.
struct AttemptOutcome {
  int status_code = 0;  // 0: none
  bool connect_failed = false;
  bool timed_out = false;
  std::string error;  // the transport's text when there was no answer
};

class DeliveryLog {
 public:
  // Records one attempt; fills id, status and the payload-derived fields. Returns the id.
  int64_t Record(DeliveryAttempt attempt, const AttemptOutcome& outcome);

  // Up to `per_page` attempts, newest first, starting with the newest whose id is at most
  // `cursor` (all when nullopt); `*next_cursor` is the id to ask for the next page, nullopt
  // after the last.
  std::vector<DeliveryAttempt> Page(std::optional<int64_t> cursor, size_t per_page,
                                    std::optional<int64_t>* next_cursor) const;
  std::optional<DeliveryAttempt> Find(int64_t id) const;
  std::vector<DeliveryAttempt> All() const;  // oldest first

  // GitHub's status text for an outcome.
  static std::string StatusText(const AttemptOutcome& outcome);

 private:
  mutable Mutex mu_;
  std::vector<DeliveryAttempt> attempts_ GUARDED_BY(mu_);  // ascending id
  // GitHub's ids are large; start past 32 bits so that clients must read them as int64.
  int64_t next_id_ GUARDED_BY(mu_) = 12'000'000'000;
};

}  // namespace gatehouse::sim
