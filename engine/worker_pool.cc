#include "engine/worker_pool.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <thread>

#include "base/log.h"
#include "base/thread_name.h"

namespace gatehouse {
namespace {

// Failed attempts to record finishes during Stop() before they are given up (their leases
// then run out and the items are reclaimed).
constexpr int kStopRetries = 5;

}  // namespace

std::string DefaultOwnerId() {
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "host");
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%06x", rd() & 0xffffffu);
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + suffix;
}

Status ValidateEngineOptions(const EngineOptions& o) {
  if (o.workers == 0 || o.workers > 1024) return InvalidArgument("engine: workers must be 1..1024");
  if (o.lease < std::chrono::milliseconds(10)) return InvalidArgument("engine: lease below 10ms");
  if (o.max_pass.count() <= 0) return InvalidArgument("engine: max_pass must be positive");
  if (o.poll_interval.count() <= 0) return InvalidArgument("engine: poll_interval must be > 0");
  if (o.prefetch > 1024) return InvalidArgument("engine: prefetch must be 0..1024");
  return ValidateRetryPolicy(o.retry);
}

WorkerPool::WorkerPool(Store& store, ClockPtr clock, PassFn pass, EngineOptions options,
                       PassObserver observer)
    : store_(store),
      clock_(std::move(clock)),
      pass_(std::move(pass)),
      options_(std::move(options)),
      observer_(std::move(observer)) {
  if (options_.owner.empty()) options_.owner = DefaultOwnerId();
  if (options_.seed == 0) options_.seed = std::random_device{}();
}

WorkerPool::~WorkerPool() { Stop(); }

Status WorkerPool::Start() {
  GH_RETURN_IF_ERROR(ValidateEngineOptions(options_));
  if (started_) return FailedPrecondition("worker pool already started");
  started_ = true;
  for (size_t i = 0; i < options_.workers; ++i) {
    workers_.emplace_back([this, i] {
      SetThreadName("gh-worker-" + std::to_string(i));
      WorkerLoop(options_.seed + 1 + i);
    });
  }
  dispatcher_ = std::thread([this] {
    SetThreadName("gh-dispatch");
    DispatcherLoop();
  });
  // New work committed anywhere the store can tell us about: look now, not at the next poll.
  wakeup_ = store_.wakeups().Subscribe(Wakeups::Topic::kWork, [this] { Wake(); });
  Log(LogLevel::kInfo, "engine.started")
      .Field("owner", options_.owner)
      .Field("workers", static_cast<int64_t>(options_.workers))
      .Field("lease_ms",
             static_cast<int64_t>(
                 std::chrono::duration_cast<std::chrono::milliseconds>(options_.lease).count()));
  return Status::Ok();
}

void WorkerPool::Stop() {
  if (wakeup_ != 0) {
    store_.wakeups().Unsubscribe(wakeup_);
    wakeup_ = 0;
  }
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  dispatcher_cv_.SignalAll();
  if (dispatcher_.joinable()) dispatcher_.join();
  {
    MutexLock lock(&mu_);
    workers_exit_ = true;
  }
  worker_cv_.SignalAll();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

void WorkerPool::Wake() {
  {
    MutexLock lock(&mu_);
    wake_ = true;
  }
  dispatcher_cv_.Signal();
}

void WorkerPool::WorkerLoop(uint64_t seed) {
  std::mt19937_64 rng(seed);
  while (true) {
    Lease lease;
    std::shared_ptr<LeaseState> state;
    {
      MutexLock lock(&mu_);
      while (ready_.empty() && !workers_exit_) worker_cv_.Wait(&mu_);
      if (ready_.empty()) return;
      lease = std::move(ready_.front());
      ready_.pop_front();
      Running& r = running_.at({lease.key, lease.fence});
      r.started = clock_->Now();  // max_pass counts from here, not from a prefetch claim
      state = r.state;
    }
    Finished f;
    f.report.started = clock_->Now();
    PassOutcome outcome;
    if (lease.reclaimed && lease.attempts >= options_.retry.max_attempts) {
      // Its passes keep losing their lease (a pass that hangs, or crashes its process): the
      // reclaims spent the budget. Running it again would only repeat that.
      f.report.ran = false;
      outcome = PassOutcome::Permanent("gave up after " + std::to_string(lease.attempts) +
                                       " attempts: the lease expired mid-pass each time (the "
                                       "pass hung or its process died)");
    } else {
      PassContext ctx(lease, state, *clock_);
      try {
        outcome = pass_(ctx);
      } catch (const std::exception& e) {
        outcome = PassOutcome::Transient(std::string("pass threw: ") + e.what());
      } catch (...) {
        outcome = PassOutcome::Transient("pass threw a non-standard exception");
      }
    }
    const Time ended = clock_->Now();
    f.report.finish = DecideFinish(options_.retry, lease, outcome, ended, rng);
    if (!f.report.ran) f.report.finish.error = outcome.error;  // no "permanent: " prefix
    f.report.lease = std::move(lease);
    f.report.outcome = std::move(outcome);
    f.report.ended = ended;
    {
      MutexLock lock(&mu_);
      finished_.push_back(std::move(f));
    }
    dispatcher_cv_.Signal();
  }
}

void WorkerPool::DispatcherLoop() {
  while (true) {
    std::vector<Finished> done = std::move(unrecorded_);
    unrecorded_.clear();
    bool stopping;
    size_t idle;
    {
      MutexLock lock(&mu_);
      for (auto& f : finished_) done.push_back(std::move(f));
      finished_.clear();
      stopping = stopping_;
      wake_ = false;
      // Slots free once `done` is recorded: workers plus the prefetch allowance.
      idle = options_.workers + options_.prefetch - busy_ + done.size();
    }
    const Time now = clock_->Now();
    RenewLeases(now);
    // After a failed step, record the finishes alone first, so that a claim that keeps
    // failing cannot keep finished passes from being recorded. With no finish to record, the
    // claim itself is the try: a step of nothing returns without touching the store, so
    // failed_steps_ would never go back to 0 and this pool would never claim again (found by
    // tests/pg_restart_test.cc: every item stayed pending after a database restart).
    const size_t want = stopping || (failed_steps_ > 0 && !done.empty()) ? 0 : idle;
    const size_t claimed = Step(done, want, now);
    if (failed_steps_ > 0) {
      // The store is failing (busy past its timeout, disk full): pause before the next try.
      // A backoff policy, so on the Clock; a Stop() that arrives meanwhile ends the pause.
      const Time until = clock_->Now() + std::min(options_.poll_interval * failed_steps_,
                                                  std::chrono::milliseconds(2000));
      MutexLock lock(&mu_);
      while (!(stopping_ && !stopping) && clock_->WaitUntil(&mu_, &dispatcher_cv_, until)) {
      }
    }
    {
      MutexLock lock(&mu_);
      if (stopping && busy_ == 0 && finished_.empty() && unrecorded_.empty()) break;
    }
    if (want > 0 && claimed == want) continue;  // more may be due right now
    // Sleep until the next poll, or until the earliest pending item comes due when that is
    // sooner (a debounce ending, a backoff or timer expiring): a pass starts when it is due,
    // not up to a poll later. Only when this step had free slots, so every item due by then
    // was claimed and next_due is ahead; with none free, a finishing pass wakes the loop.
    Time poll = clock_->Now() + options_.poll_interval;
    if (want > 0 && next_due_ && *next_due_ > clock_->Now()) poll = std::min(poll, *next_due_);
    MutexLock lock(&mu_);
    while (finished_.empty() && !wake_ && !(stopping_ && !stopping) &&
           clock_->WaitUntil(&mu_, &dispatcher_cv_, poll)) {
    }
  }
  Log(LogLevel::kInfo, "engine.stopped").Field("owner", options_.owner);
}

size_t WorkerPool::Step(std::vector<Finished>& done, size_t want, Time now) {
  next_due_.reset();
  if (done.empty() && want == 0) return 0;
  std::vector<PassFinish> batch;
  batch.reserve(done.size());
  for (auto& f : done) {
    f.report.submitted = now;
    batch.push_back(f.report.finish);
  }
  // Recording the finished passes and claiming their successors share one transaction.
  auto cycle = store_.work().FinishAndClaim(batch, options_.owner, want, options_.lease, now);
  if (!cycle.ok()) {
    ++failed_steps_;
    Log(LogLevel::kWarn, "engine.step_failed")
        .Field("error", cycle.status().ToString())
        .Field("passes", static_cast<int64_t>(done.size()))
        .Field("failures_in_a_row", failed_steps_);
    if (done.empty()) return 0;
    bool stopping;
    {
      MutexLock lock(&mu_);
      stopping = stopping_;
    }
    // Keep the finishes for the next loop. If this outlasts the lease, another worker
    // reclaims the items and these finishes will be rejected by the fence. When stopping,
    // give up after a few tries: the leases will run out and the items be reclaimed.
    if (!stopping || failed_steps_ < kStopRetries) {
      unrecorded_ = std::move(done);
      return 0;
    }
    RecordFinishes(done, std::vector<Status>(done.size(), cycle.status()));
    return 0;
  }
  failed_steps_ = 0;
  next_due_ = cycle->next_due;
  if (!done.empty()) RecordFinishes(done, cycle->finished);
  Dispatch(cycle->claimed, now);
  return cycle->claimed.size();
}

void WorkerPool::RecordFinishes(std::vector<Finished>& done, const std::vector<Status>& results) {
  for (size_t i = 0; i < done.size(); ++i) {
    PassReport& r = done[i].report;
    r.recorded = results[i];
    if (r.recorded.code() == StatusCode::kFenceLost) {
      Log(LogLevel::kWarn, "pass.fence_lost")
          .Field("subject", r.lease.key)
          .Field("fence", r.lease.fence)
          .Field("error", r.recorded.ToString());
    } else if (!r.recorded.ok()) {
      Log(LogLevel::kError, "pass.unrecorded")
          .Field("subject", r.lease.key)
          .Field("fence", r.lease.fence)
          .Field("error", r.recorded.ToString());
    } else if (r.finish.kind == PassFinish::Kind::kDead) {
      Log(LogLevel::kError, "pass.dead")
          .Field("subject", r.lease.key)
          .Field("fence", r.lease.fence)
          .Field("attempts", r.finish.attempts)
          .Field("error", r.finish.error);
    } else if (r.finish.kind == PassFinish::Kind::kRetry) {
      Log(LogLevel::kInfo, "pass.retry")
          .Field("subject", r.lease.key)
          .Field("fence", r.lease.fence)
          .Field("attempts", r.finish.attempts)
          .Field("retry_at", FormatTime(r.finish.retry_at))
          .Field("error", r.finish.error);
    }
    if (observer_) observer_(r);
  }
  MutexLock lock(&mu_);
  for (const auto& f : done) running_.erase({f.report.lease.key, f.report.lease.fence});
  busy_ -= done.size();
}

void WorkerPool::RenewLeases(Time now) {
  std::vector<LeaseRenewal> renewals;
  std::vector<std::shared_ptr<LeaseState>> states;
  {
    MutexLock lock(&mu_);
    for (auto& [id, r] : running_) {
      if (r.state->lost.load()) continue;
      if (r.lease.lease_until - now > options_.lease / 2) continue;  // not yet at half-life
      if (now - r.started >= options_.max_pass) continue;            // hung: let it expire
      if (options_.skip_renewal && options_.skip_renewal(r.lease)) continue;
      renewals.push_back(LeaseRenewal{id.first, id.second, now + options_.lease});
      states.push_back(r.state);
    }
  }
  if (renewals.empty()) return;
  auto results = store_.work().Renew(renewals, now);
  if (!results.ok()) {
    Log(LogLevel::kWarn, "engine.renew_failed").Field("error", results.status().ToString());
    return;
  }
  MutexLock lock(&mu_);
  for (size_t i = 0; i < renewals.size(); ++i) {
    if ((*results)[i].ok()) {
      auto it = running_.find({renewals[i].key, renewals[i].fence});
      if (it != running_.end()) it->second.lease.lease_until = renewals[i].lease_until;
      states[i]->until_us.store(ToMicros(renewals[i].lease_until), std::memory_order_release);
    } else {
      states[i]->lost.store(true, std::memory_order_release);
      Log(LogLevel::kWarn, "pass.lease_lost")
          .Field("subject", renewals[i].key)
          .Field("fence", renewals[i].fence);
    }
  }
}

void WorkerPool::Dispatch(std::vector<Lease>& leases, Time now) {
  if (leases.empty()) return;
  {
    MutexLock lock(&mu_);
    for (Lease& l : leases) {
      if (l.reclaimed) {
        Log(LogLevel::kInfo, "pass.reclaimed").Field("subject", l.key).Field("fence", l.fence);
      }
      auto state = std::make_shared<LeaseState>();
      state->until_us.store(ToMicros(l.lease_until));
      running_[{l.key, l.fence}] = Running{l, now, std::move(state)};
      ready_.push_back(std::move(l));
      ++busy_;
    }
  }
  worker_cv_.SignalAll();
}

}  // namespace gatehouse
