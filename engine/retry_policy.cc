#include "engine/retry_policy.h"

#include <algorithm>

namespace gatehouse {
namespace {

Duration Uniform(Duration hi, std::mt19937_64& rng) {
  if (hi.count() <= 0) return Duration(0);
  std::uniform_int_distribution<int64_t> dist(0, hi.count());
  return Duration(dist(rng));
}

}  // namespace

Status ValidateRetryPolicy(const RetryPolicy& p) {
  if (p.max_attempts < 1) return InvalidArgument("retry: max_attempts must be >= 1");
  if (p.transient_base.count() <= 0 || p.transient_cap < p.transient_base) {
    return InvalidArgument("retry: need 0 < transient_base <= transient_cap");
  }
  if (p.unavailable_base.count() <= 0 || p.unavailable_cap < p.unavailable_base) {
    return InvalidArgument("retry: need 0 < unavailable_base <= unavailable_cap");
  }
  if (p.unavailable_budget.count() <= 0) return InvalidArgument("retry: unavailable_budget <= 0");
  if (p.rate_limit_jitter.count() < 0) return InvalidArgument("retry: rate_limit_jitter < 0");
  return Status::Ok();
}

Duration FullJitterBackoff(Duration base, Duration cap, int attempt, std::mt19937_64& rng) {
  Duration ceiling = base;
  for (int i = 1; i < attempt && ceiling < cap; ++i) ceiling *= 2;
  return Uniform(std::min(ceiling, cap), rng);
}

PassFinish DecideFinish(const RetryPolicy& policy, const Lease& lease, const PassOutcome& outcome,
                        Time now, std::mt19937_64& rng) {
  PassFinish f;
  f.key = lease.key;
  f.fence = lease.fence;
  f.attempts = lease.attempts;
  f.availability_since = lease.availability_since;
  if (outcome.ok) {
    f.kind = PassFinish::Kind::kCompleted;
    f.attempts = 0;
    f.availability_since.reset();
    return f;
  }
  switch (outcome.failure) {
    case FailureClass::kPermanent:
      f.kind = PassFinish::Kind::kDead;
      f.error = "permanent: " + outcome.error;
      return f;
    case FailureClass::kRateLimited:
      f.kind = PassFinish::Kind::kRetry;
      f.retry_at = std::max(outcome.until, now) + Uniform(policy.rate_limit_jitter, rng);
      f.error = "rate limited: " + outcome.error;
      return f;
    case FailureClass::kUnavailable: {
      const Time since = lease.availability_since.value_or(now);
      f.availability_since = since;
      const Duration elapsed = now - since;
      const Duration budget = outcome.budget.value_or(policy.unavailable_budget);
      if (elapsed >= budget) {
        f.kind = PassFinish::Kind::kDead;
        f.error =
            "unavailable for " +
            std::to_string(std::chrono::duration_cast<std::chrono::minutes>(elapsed).count()) +
            " min, budget spent: " + outcome.error;
        return f;
      }
      const Duration ceiling = std::clamp(elapsed, policy.unavailable_base, policy.unavailable_cap);
      f.kind = PassFinish::Kind::kRetry;
      f.retry_at = now + Uniform(ceiling, rng);
      f.error = "unavailable: " + outcome.error;
      f.unavailable = true;
      return f;
    }
    case FailureClass::kTransient:
      f.attempts = lease.attempts + 1;
      if (f.attempts >= policy.max_attempts) {
        f.kind = PassFinish::Kind::kDead;
        f.error = "transient, gave up after " + std::to_string(f.attempts) +
                  " attempts: " + outcome.error;
        return f;
      }
      f.kind = PassFinish::Kind::kRetry;
      f.retry_at =
          now + FullJitterBackoff(policy.transient_base, policy.transient_cap, f.attempts, rng);
      f.error = "transient: " + outcome.error;
      return f;
  }
  return f;
}

}  // namespace gatehouse
