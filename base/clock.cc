#include "base/clock.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <string_view>
#include <thread>
#include <vector>

namespace gatehouse {
namespace {

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

Time RealClock::Now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

void RealClock::SleepUntil(Time deadline) {
  for (Duration left = deadline - Now(); left > Duration::zero(); left = deadline - Now()) {
    std::this_thread::sleep_for(left);
  }
}

bool RealClock::WaitUntil(Mutex* mu, CondVar* cv, Time deadline) {
  const Duration left = deadline - Now();
  if (left <= Duration::zero()) return false;
  // Measured on the monotonic clock; a very far deadline wakes once a day, which the
  // contract allows (a spurious wakeup).
  cv->WaitFor(mu, std::min(left, Duration(std::chrono::hours(24))));
  return Now() < deadline;
}

void SimClock::SleepUntil(Time deadline) {
  Mutex mu;
  CondVar cv;
  MutexLock lock(&mu);
  while (WaitUntil(&mu, &cv, deadline)) {
  }
}

bool SimClock::WaitUntil(Mutex* mu, CondVar* cv, Time deadline) {
  const Waiter self{mu, cv, deadline};
  {
    MutexLock lock(&mu_);
    // Read under mu_: a Set/Advance either finds this waiter registered or moved the time
    // before this read.
    if (Now() >= deadline) return false;
    waiters_.insert(&self);
    changed_.SignalAll();
  }
  // Set/Advance signal `cv` holding `mu`, which this thread holds from its caller's check of
  // its condition until Wait releases it, so no wakeup falls in between.
  cv->Wait(mu);
  bool being_woken;
  {
    MutexLock lock(&mu_);
    waiters_.erase(&self);
    being_woken = waking_.count(&self) > 0;
    changed_.SignalAll();
  }
  if (being_woken) {
    // A Set/Advance listed this waiter and is about to lock `mu` to signal `cv`: let it,
    // and return only once it is done with them.
    mu->Unlock();
    {
      MutexLock lock(&mu_);
      while (waking_.count(&self) > 0) changed_.Wait(&mu_);
    }
    mu->Lock();
  }
  return Now() < deadline;
}

void SimClock::Set(Time t) {
  now_us_.store(ToMicros(t), std::memory_order_release);
  WakeDue();
}

void SimClock::Advance(Duration d) {
  now_us_.fetch_add(d.count(), std::memory_order_acq_rel);
  WakeDue();
}

void SimClock::WakeDue() {
  const Time now = Now();
  std::vector<const Waiter*> due;
  {
    MutexLock lock(&mu_);
    for (const Waiter* w : waiters_) {
      if (w->deadline > now) continue;
      due.push_back(w);
      waking_.insert(w);
    }
  }
  if (due.empty()) return;
  // Outside mu_: a waiter takes mu_ while holding its own mutex, so the other order here
  // could deadlock.
  for (const Waiter* w : due) {
    MutexLock lock(w->mu);
    w->cv->SignalAll();
  }
  MutexLock lock(&mu_);
  for (const Waiter* w : due) waking_.erase(waking_.find(w));
  changed_.SignalAll();
}

size_t SimClock::waiters() const {
  MutexLock lock(&mu_);
  return waiters_.size();
}

void SimClock::AwaitWaiters(size_t n) const {
  MutexLock lock(&mu_);
  while (waiters_.size() < n) changed_.Wait(&mu_);
}

std::string FormatDuration(Duration d) {
  const int64_t total_s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  const int64_t h = total_s / 3600;
  const int64_t m = (total_s % 3600) / 60;
  const int64_t s = total_s % 60;
  std::string out;
  if (h > 0) out += std::to_string(h) + "h";
  if (m > 0) out += std::to_string(m) + "m";
  if (s > 0 || out.empty()) out += std::to_string(s) + "s";
  return out;
}

std::string FormatTime(Time t) {
  const int64_t us = ToMicros(t);
  int64_t secs = us / 1'000'000;
  int64_t rem = us % 1'000'000;
  if (rem < 0) {
    rem += 1'000'000;
    secs -= 1;
  }
  const std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(rem / 1000));
  return buf;
}

std::optional<Time> ParseTime(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff...]Z
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text.back() != 'Z') {
    return std::nullopt;
  }
  auto field = [&](size_t pos, size_t len) { return ParseInt(text.substr(pos, len)); };
  auto y = field(0, 4), mo = field(5, 2), d = field(8, 2), h = field(11, 2), mi = field(14, 2),
       s = field(17, 2);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  int64_t micros = 0;
  std::string_view rest = text.substr(19, text.size() - 20);
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2) return std::nullopt;
    std::string digits(rest.substr(1, 6));
    auto frac = ParseInt(digits);
    if (!frac) return std::nullopt;
    micros = *frac;
    for (size_t i = digits.size(); i < 6; ++i) micros *= 10;
  }
  std::tm tm{};
  tm.tm_year = static_cast<int>(*y - 1900);
  tm.tm_mon = static_cast<int>(*mo - 1);
  tm.tm_mday = static_cast<int>(*d);
  tm.tm_hour = static_cast<int>(*h);
  tm.tm_min = static_cast<int>(*mi);
  tm.tm_sec = static_cast<int>(*s);
  time_t secs = timegm(&tm);
  return Time(std::chrono::seconds(secs)) + Duration(micros);
}

}  // namespace gatehouse
