#include "engine/inbox_writer.h"

#include <vector>

#include "base/compress.h"
#include "base/log.h"
#include "base/thread_name.h"

namespace gatehouse {

InboxWriter::InboxWriter(Store& store, ClockPtr clock, std::function<void()> on_accepted,
                         size_t max_batch, std::shared_ptr<IngestPressure> pressure)
    : store_(store),
      clock_(std::move(clock)),
      on_accepted_(std::move(on_accepted)),
      max_batch_(max_batch == 0 ? 1 : max_batch),
      pressure_(std::move(pressure)) {}

InboxWriter::~InboxWriter() { Stop(); }

void InboxWriter::Start() {
  thread_ = std::thread([this] {
    SetThreadName("gh-inbox");
    Loop();
  });
}

void InboxWriter::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void InboxWriter::Accept(Delivery delivery, std::function<void(Result<AcceptOutcome>)> done) {
  // Compress here, on the caller's (HTTP) thread, so the single writer only writes.
  if (delivery.encoding == Delivery::Encoding::kIdentity && delivery.body.size() >= 1024) {
    std::string packed = ZlibCompress(delivery.body);
    if (!packed.empty() && packed.size() < delivery.body.size()) {
      delivery.body = std::move(packed);
      delivery.encoding = Delivery::Encoding::kZlib;
    }
  }
  {
    MutexLock lock(&mu_);
    if (!stopping_) {
      queue_.push_back(Pending{std::move(delivery), std::move(done)});
      cv_.Signal();
      return;
    }
  }
  // After Stop() began nothing new is queued, so the loop can drain and exit safely.
  done(Unavailable("shutting down"));
}

void InboxWriter::CountRejected(std::string_view reason) {
  MutexLock lock(&mu_);
  rejected_[std::string(reason)] += 1;
}

Status InboxWriter::CheckWritable() { return store_.CheckWritable(); }

size_t InboxWriter::commits() const {
  MutexLock lock(&mu_);
  return commits_;
}

void InboxWriter::Loop() {
  while (true) {
    std::vector<Pending> batch;
    Counters rejected;
    {
      // Deliveries go at once; counters alone wait up to a second (on the Clock) for company.
      const Time company = clock_->Now() + std::chrono::seconds(1);
      MutexLock lock(&mu_);
      while (queue_.empty() && !stopping_ && clock_->WaitUntil(&mu_, &cv_, company)) {
      }
      if (queue_.empty() && rejected_.empty()) {
        if (stopping_) return;
        continue;
      }
      const size_t n = std::min(queue_.size(), max_batch_);
      batch.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      rejected.swap(rejected_);
    }
    std::vector<Delivery> deliveries;
    deliveries.reserve(batch.size());
    for (Pending& p : batch) deliveries.push_back(std::move(p.delivery));
    auto outcomes = store_.inbox().AcceptDeliveries(deliveries, rejected, clock_->Now());
    if (pressure_ && !batch.empty()) pressure_->RecordCommit(batch.size(), clock_->Now());
    bool any_new = false;
    {
      MutexLock lock(&mu_);
      ++commits_;
      if (!outcomes.ok()) {
        for (const auto& [reason, n] : rejected) rejected_[reason] += n;  // try again later
      }
    }
    if (!outcomes.ok()) {
      Log(LogLevel::kError, "inbox.accept_failed")
          .Field("error", outcomes.status().ToString())
          .Field("deliveries", static_cast<int64_t>(batch.size()));
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!outcomes.ok()) {
        batch[i].done(outcomes.status());
        continue;
      }
      any_new |= (*outcomes)[i] == AcceptOutcome::kAccepted;
      batch[i].done((*outcomes)[i]);
    }
    if (any_new && on_accepted_) on_accepted_();
  }
}

}  // namespace gatehouse
