#include "engine/retry_policy.h"

#include <gtest/gtest.h>

namespace gatehouse {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kT0 = FromMicros(1'800'000'000'000'000);

Lease MakeLease(int attempts = 0, std::optional<Time> since = std::nullopt) {
  Lease l;
  l.key = "acme/app#1";
  l.fence = 4;
  l.attempts = attempts;
  l.availability_since = since;
  return l;
}

TEST(RetryPolicyTest, FullJitterStaysUnderTheExponentialCeiling) {
  std::mt19937_64 rng(1);
  for (int attempt = 1; attempt <= 12; ++attempt) {
    const Duration ceiling = std::min<Duration>(seconds(2) * (1 << (attempt - 1)), minutes(10));
    Duration max_seen{0};
    for (int i = 0; i < 2000; ++i) {
      Duration d = FullJitterBackoff(seconds(2), minutes(10), attempt, rng);
      ASSERT_GE(d.count(), 0);
      ASSERT_LE(d, ceiling);
      max_seen = std::max(max_seen, d);
    }
    // Full jitter spreads over the whole range, not just near zero.
    EXPECT_GT(max_seen, ceiling / 2) << "attempt " << attempt;
  }
}

TEST(RetryPolicyTest, SuccessResetsBothBudgets) {
  std::mt19937_64 rng(1);
  PassFinish f =
      DecideFinish(RetryPolicy{}, MakeLease(5, kT0 - hours(1)), PassOutcome::Done(), kT0, rng);
  EXPECT_EQ(f.kind, PassFinish::Kind::kCompleted);
  EXPECT_EQ(f.attempts, 0);
  EXPECT_FALSE(f.availability_since.has_value());
  EXPECT_EQ(f.fence, 4);
}

TEST(RetryPolicyTest, TransientConsumesAttemptsThenDies) {
  RetryPolicy p;
  p.max_attempts = 3;
  std::mt19937_64 rng(7);
  PassFinish f1 = DecideFinish(p, MakeLease(0), PassOutcome::Transient("502"), kT0, rng);
  EXPECT_EQ(f1.kind, PassFinish::Kind::kRetry);
  EXPECT_EQ(f1.attempts, 1);
  EXPECT_GE(f1.retry_at, kT0);
  EXPECT_LE(f1.retry_at, kT0 + p.transient_base);
  EXPECT_EQ(f1.error, "transient: 502");
  PassFinish f2 = DecideFinish(p, MakeLease(1), PassOutcome::Transient("502"), kT0, rng);
  EXPECT_EQ(f2.kind, PassFinish::Kind::kRetry);
  EXPECT_LE(f2.retry_at, kT0 + 2 * p.transient_base);
  PassFinish f3 = DecideFinish(p, MakeLease(2), PassOutcome::Transient("502"), kT0, rng);
  EXPECT_EQ(f3.kind, PassFinish::Kind::kDead);
  EXPECT_EQ(f3.attempts, 3);
  EXPECT_EQ(f3.error, "transient, gave up after 3 attempts: 502");
}

TEST(RetryPolicyTest, RateLimitWaitsForTheResetAndConsumesNoAttempt) {
  RetryPolicy p;
  std::mt19937_64 rng(3);
  PassFinish f =
      DecideFinish(p, MakeLease(2), PassOutcome::RateLimited(kT0 + minutes(20), "403"), kT0, rng);
  EXPECT_EQ(f.kind, PassFinish::Kind::kRetry);
  EXPECT_EQ(f.attempts, 2);
  EXPECT_GE(f.retry_at, kT0 + minutes(20));
  EXPECT_LE(f.retry_at, kT0 + minutes(20) + p.rate_limit_jitter);
  // A reset already in the past means "now".
  PassFinish g =
      DecideFinish(p, MakeLease(0), PassOutcome::RateLimited(kT0 - minutes(1), "429"), kT0, rng);
  EXPECT_GE(g.retry_at, kT0);
}

TEST(RetryPolicyTest, UnavailableUsesAWallClockBudget) {
  RetryPolicy p;
  p.unavailable_budget = hours(6);
  std::mt19937_64 rng(5);
  PassFinish first =
      DecideFinish(p, MakeLease(1), PassOutcome::Unavailable("reviewer paused"), kT0, rng);
  EXPECT_EQ(first.kind, PassFinish::Kind::kRetry);
  EXPECT_EQ(first.availability_since, kT0);
  EXPECT_EQ(first.attempts, 1) << "unavailability does not consume transient attempts";
  EXPECT_LE(first.retry_at, kT0 + p.unavailable_base);

  PassFinish later =
      DecideFinish(p, MakeLease(1, kT0), PassOutcome::Unavailable("paused"), kT0 + hours(5), rng);
  EXPECT_EQ(later.kind, PassFinish::Kind::kRetry);
  EXPECT_EQ(later.availability_since, kT0);
  EXPECT_LE(later.retry_at, kT0 + hours(5) + p.unavailable_cap);

  PassFinish spent =
      DecideFinish(p, MakeLease(1, kT0), PassOutcome::Unavailable("paused"), kT0 + hours(6), rng);
  EXPECT_EQ(spent.kind, PassFinish::Kind::kDead);
  EXPECT_NE(spent.error.find("budget spent"), std::string::npos) << spent.error;
}

// An outcome's own budget replaces the policy's, longer or shorter, for that outcome only.
TEST(RetryPolicyTest, AnUnavailableOutcomeMayCarryItsOwnBudget) {
  RetryPolicy p;
  p.unavailable_budget = hours(6);
  std::mt19937_64 rng(9);
  const Lease waiting = MakeLease(2, kT0);
  PassFinish longer =
      DecideFinish(p, waiting, PassOutcome::Unavailable("paused", hours(24)), kT0 + hours(7), rng);
  EXPECT_EQ(longer.kind, PassFinish::Kind::kRetry) << "7 h is within its own 24 h budget";
  EXPECT_TRUE(longer.unavailable) << "a wait, which a Wake may hurry";
  EXPECT_FALSE(DecideFinish(p, waiting, PassOutcome::Transient("503"), kT0, rng).unavailable);
  EXPECT_FALSE(
      DecideFinish(p, waiting, PassOutcome::RateLimited(kT0 + hours(1), "429"), kT0, rng).unavailable);
  EXPECT_EQ(longer.availability_since, kT0);
  EXPECT_EQ(longer.attempts, 2);
  EXPECT_LE(longer.retry_at, kT0 + hours(7) + p.unavailable_cap);
  PassFinish longer_spent =
      DecideFinish(p, waiting, PassOutcome::Unavailable("paused", hours(24)), kT0 + hours(24), rng);
  EXPECT_EQ(longer_spent.kind, PassFinish::Kind::kDead);
  EXPECT_NE(longer_spent.error.find("budget spent"), std::string::npos) << longer_spent.error;

  PassFinish shorter = DecideFinish(p, waiting, PassOutcome::Unavailable("at capacity", hours(1)),
                                    kT0 + minutes(61), rng);
  EXPECT_EQ(shorter.kind, PassFinish::Kind::kDead) << "61 min is past its own 1 h budget";
  PassFinish shorter_ok = DecideFinish(
      p, waiting, PassOutcome::Unavailable("at capacity", hours(1)), kT0 + minutes(59), rng);
  EXPECT_EQ(shorter_ok.kind, PassFinish::Kind::kRetry);

  PassFinish policy =
      DecideFinish(p, waiting, PassOutcome::Unavailable("paused"), kT0 + hours(7), rng);
  EXPECT_EQ(policy.kind, PassFinish::Kind::kDead) << "without its own budget the policy's rules";
}

TEST(RetryPolicyTest, PermanentDiesAtOnce) {
  std::mt19937_64 rng(1);
  PassFinish f =
      DecideFinish(RetryPolicy{}, MakeLease(0), PassOutcome::Permanent("404 repo gone"), kT0, rng);
  EXPECT_EQ(f.kind, PassFinish::Kind::kDead);
  EXPECT_EQ(f.error, "permanent: 404 repo gone");
}

TEST(RetryPolicyTest, ValidationRejectsNonsense) {
  RetryPolicy p;
  EXPECT_TRUE(ValidateRetryPolicy(p).ok());
  p.max_attempts = 0;
  EXPECT_FALSE(ValidateRetryPolicy(p).ok());
  p = RetryPolicy{};
  p.transient_cap = p.transient_base / 2;
  EXPECT_FALSE(ValidateRetryPolicy(p).ok());
}

}  // namespace
}  // namespace gatehouse
