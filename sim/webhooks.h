// WebhookSender: delivers the simulator's webhooks to gatehouse, signed like GitHub's.
//
// Enqueue() is cheap and never blocks on the network (the model calls it under its lock);
// one background thread POSTs deliveries in order with libcurl, each with X-GitHub-Event, a
// unique X-GitHub-Delivery and X-Hub-Signature-256 (HMAC-SHA256 of the body under the
// secret). A failed delivery is logged and counted, not retried: GitHub does not redeliver
// by itself either.
//
// The target URL may be set or changed at any time (SetUrl, from PUT /_sim/webhook-url);
// each delivery goes to the URL current when it is POSTed. The URL may be a comma-separated
// list: then the sender plays a load balancer in front of several gatehouse nodes, sending
// deliveries round-robin, and a delivery whose node refuses the connection (it is down) goes
// to the next node, as a balancer's health check would route it; one that reached a node and
// got no 2xx is failed, as GitHub counts it. While there is no URL, Enqueue
// drops deliveries (counted as dropped): nobody is listening, as for an App without a
// webhook URL.
//
// Delivery faults (sim/faults.h) duplicate, reorder and delay deliveries; webhook rules
// withhold chosen ones (never sent, counted as withheld) or send them late while the
// deliveries after them go on, so they arrive out of order. Stop sends what is held or
// delayed at once. Delays are real time (the steady clock), as a network's are.
//
// Every attempt is recorded in a DeliveryLog (sim/delivery_log.h) with its outcome — the status
// code, or "failed to connect" / "timed out" when gatehouse was down — which the REST API serves
// as GitHub's App webhook deliveries; Redeliver sends a recorded delivery again (same guid,
// `redelivery` true), as POST /app/hook/deliveries/{id}/attempts does. A delivery sent to
// several nodes (a refused node skipped) is one attempt, as behind a balancer. Deliveries never
// sent (no URL, withheld by a rule) are not attempts.
//
// Thread-safety: Enqueue, Redeliver, log() and the counters from any thread; Stop from one
// controlling thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "sim/delivery_log.h"
#include "sim/faults.h"

namespace gatehouse::sim {

struct WebhookSenderOptions {
  std::string url;  // e.g. http://127.0.0.1:8080/webhook; "" until SetUrl

  std::string secret;  // GATEHOUSE_WEBHOOK_SECRET; empty sends no signature header
  long timeout_ms = 10'000;
  // Stamps attempts' delivered_at; null: the real clock.
  ClockPtr clock{};
};

class WebhookSender {
 public:
  explicit WebhookSender(WebhookSenderOptions options);
  // Stops (after the queue drains) if Stop was not called.
  ~WebhookSender();
  WebhookSender(const WebhookSender&) = delete;
  WebhookSender& operator=(const WebhookSender&) = delete;

  // Queues one delivery; returns its X-GitHub-Delivery id ("" when dropped: no URL yet).
  // `meta` is what webhook rules match on.
  std::string Enqueue(std::string event, std::string body, const DeliveryMeta& meta = {});
  // Sets (or changes) the target URL for deliveries not yet POSTed.
  void SetUrl(std::string url);
  std::string url() const;
  // Whether deliveries are signed (GET /app/hook/config shows the secret masked, as GitHub).
  bool has_secret() const { return !options_.secret.empty(); }
  // Waits until SetUrl has been called at least once (the constructor's URL does not
  // count), Stop is called, or `timeout` passes; true in the first case.
  bool WaitForSetUrl(std::chrono::milliseconds timeout);
  // Delivers what is queued, then joins the thread. Idempotent.
  void Stop();

  // Queues delivery attempt `attempt_id` again: same guid, event and payload, recorded with
  // `redelivery` true; webhook faults and rules do not apply. False when there is no such
  // attempt or no URL.
  bool Redeliver(int64_t attempt_id);
  // Every attempt made so far.
  const DeliveryLog& log() const { return log_; }

  void SetFaults(DeliveryFaults faults);
  DeliveryFaults faults() const;

  // Deliveries POSTed (a duplicate counts) with a 2xx answer, and without one.
  uint64_t delivered() const;
  uint64_t failed() const;
  // Deliveries dropped because there was no URL.
  uint64_t dropped() const;
  // Deliveries a webhook rule withheld (`drop`).
  uint64_t withheld() const;

 private:
  struct Delivery {
    std::string id;
    std::string event;
    std::string body;
    bool redelivery = false;
  };
  using SteadyTime = std::chrono::steady_clock::time_point;
  void Run();
  // Moves deliveries whose delay is over (all of them when stopping) to the queue's front,
  // earliest first.
  void ReleaseDueLocked(SteadyTime now) REQUIRES(mu_);
  // POSTs `d` to `url`; the outcome's connect_failed says nothing was sent.
  AttemptOutcome Post(const Delivery& d, const std::string& url,
                      std::vector<std::pair<std::string, std::string>>* sent_headers);
  // Round-robin over the comma-separated `urls`, skipping nodes that refuse the connection;
  // records the attempt. True for a 2xx.
  bool PostBalanced(const Delivery& d, const std::string& urls);
  size_t next_target_ = 0;  // the sender thread's round-robin position

  const WebhookSenderOptions options_;  // .url is the first URL only; url_ is the current one
  mutable Mutex mu_;
  CondVar cv_;
  std::string url_ GUARDED_BY(mu_);
  std::deque<Delivery> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  uint64_t next_ GUARDED_BY(mu_) = 0;
  DeliveryFaults faults_ GUARDED_BY(mu_);
  std::vector<Delivery> held_ GUARDED_BY(mu_);  // a delivery being reordered (and its copy)
  std::multimap<SteadyTime, Delivery> delayed_ GUARDED_BY(mu_);  // by a rule, until due
  uint64_t delivered_ GUARDED_BY(mu_) = 0;
  uint64_t failed_ GUARDED_BY(mu_) = 0;
  uint64_t dropped_ GUARDED_BY(mu_) = 0;
  uint64_t withheld_ GUARDED_BY(mu_) = 0;
  uint64_t url_sets_ GUARDED_BY(mu_) = 0;  // SetUrl calls
  std::string run_id_;
  ClockPtr clock_;
  DeliveryLog log_;
  std::thread thread_;
};

}  // namespace gatehouse::sim
