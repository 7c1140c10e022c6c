// InboxWriter: the DeliverySink that makes webhook acceptance durable, with group commit.
//
// The HTTP threads never touch the store: Accept() queues the delivery and returns. One writer
// thread takes everything queued (up to max_batch), stores it in one fsync'd transaction
// (Inbox::AcceptDeliveries), and only then calls each delivery's `done`, so a 2xx always
// follows durability. Every request that arrives during a commit rides on the next one: the
// more concurrent webhooks, the more share each fsync.
//
// Rejected-request counts are buffered and written with the next batch (or within a second
// on the writer's Clock when no delivery comes), so a flood of bad signatures costs no fsync
// per request.
//
// Thread-safe. Start() once; Stop() drains what is queued, then joins.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <thread>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "engine/inbox.h"
#include "engine/ingest_pressure.h"

namespace gatehouse {

class InboxWriter final : public DeliverySink {
 public:
  // `on_accepted` runs after each commit that stored at least one new delivery (the app
  // wires it to the router's Wake()). `pressure`, if set, learns each commit's size (the
  // router reads it: RouterOptions::ingest).
  InboxWriter(Store& store, ClockPtr clock, std::function<void()> on_accepted,
              size_t max_batch = 512, std::shared_ptr<IngestPressure> pressure = nullptr);
  ~InboxWriter() override;

  void Start();
  void Stop();

  void Accept(Delivery delivery, std::function<void(Result<AcceptOutcome>)> done) override;
  void CountRejected(std::string_view reason) override;
  Status CheckWritable() override;

  // Transactions committed so far (for benchmarks: deliveries per fsync).
  size_t commits() const;

 private:
  struct Pending {
    Delivery delivery;
    std::function<void(Result<AcceptOutcome>)> done;
  };
  void Loop();

  Store& store_;
  ClockPtr clock_;
  std::function<void()> on_accepted_;
  const size_t max_batch_;
  const std::shared_ptr<IngestPressure> pressure_;

  mutable Mutex mu_;
  CondVar cv_;
  std::deque<Pending> queue_ GUARDED_BY(mu_);
  Counters rejected_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  size_t commits_ GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace gatehouse
