// ObserveHead's rules (act/head_occurrence.h) against a real SqliteStore: which occurrence a
// read of a pull request shows, given the occurrences recorded so far and the latest push GitHub
// reported, and when a read is too old to decide on.
#include "act/head_occurrence.h"

#include <gtest/gtest.h>

#include <string>

#include "store/store_test_util.h"

namespace gatehouse::act {
namespace {

using std::chrono::seconds;

const Time kT0 = Time(seconds(1796040000));  // 2026-11-30T12:00:00Z
constexpr char kPr[] = "acme/app#1";
const std::string kA(40, 'a');
const std::string kX(40, 'e');

class HeadOccurrenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(dir_.File("g.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    Signal s{kPr, "pushed", {}};
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kRecoverable).ok());
    auto leases = store_->work().Claim("w", 1, std::chrono::hours(1), kT0);
    ASSERT_TRUE(leases.ok() && leases->size() == 1u);
    fence_ = (*leases)[0].fence;
  }

  // A read of the PR showing `sha`, last updated on GitHub at `updated` (whole seconds).
  static PullRequest Read(const std::string& sha, Time updated) {
    PullRequest pr;
    pr.number = 1;
    pr.state = "open";
    pr.head_sha = sha;
    pr.updated_at = FormatTime(updated);
    return pr;
  }
  HeadObservation Observe(const PullRequest& pr, std::optional<ReportedPush> push = std::nullopt,
                          Time now = kT0) {
    auto r = ObserveHead(*store_, kPr, fence_, pr, push, now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : HeadObservation{};
  }
  // The occurrence number a read shows, 0 when it is lagging.
  int64_t Occurrence(const PullRequest& pr, std::optional<ReportedPush> push = std::nullopt,
                     Time now = kT0) {
    HeadObservation o = Observe(pr, push, now);
    return o.kind == HeadObservation::Kind::kLagging ? 0 : o.occurrence.occurrence;
  }

  testing::TempDir dir_;
  StorePtr store_;
  int64_t fence_ = 0;
};

TEST_F(HeadOccurrenceTest, TheFirstReadStartsTheFirstOccurrenceAtGitHubsTime) {
  HeadObservation o = Observe(Read(kA, kT0 - seconds(3)), std::nullopt, kT0);
  EXPECT_EQ(o.kind, HeadObservation::Kind::kOccurrence);
  EXPECT_EQ(o.occurrence.head_sha, kA);
  EXPECT_EQ(o.occurrence.occurrence, 1);
  EXPECT_EQ(o.occurrence.github_at, kT0 - seconds(3));
  EXPECT_EQ(o.occurrence.observed_at, kT0);
  // Read again, later, unchanged or updated by something other than a push: the same one.
  EXPECT_EQ(Occurrence(Read(kA, kT0 - seconds(3))), 1);
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(30))), 1);
}

TEST_F(HeadOccurrenceTest, AHeadThatComesBackIsItsNextOccurrenceWithOrWithoutAWebhook) {
  EXPECT_EQ(Occurrence(Read(kA, kT0)), 1);
  EXPECT_EQ(Occurrence(Read(kX, kT0 + seconds(1))), 1);
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(2))), 2);
  EXPECT_EQ(Occurrence(Read(kX, kT0 + seconds(3))), 2);
}

TEST_F(HeadOccurrenceTest, APushReportedAfterTheOccurrenceStartedMeansTheHeadCameBack) {
  EXPECT_EQ(Occurrence(Read(kA, kT0)), 1);
  // X was pushed and A pushed back while no read looked; the webhooks report the pushes.
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(5)), ReportedPush{kA, kT0 + seconds(4)}), 2);
  // That push is now older than the occurrence it started: nothing more.
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(6)), ReportedPush{kA, kT0 + seconds(4)}), 2);
  // The push away, reported before the push back's webhook, tells the same.
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(9)), ReportedPush{kX, kT0 + seconds(7)}), 3);
}

TEST_F(HeadOccurrenceTest, PushesTheReadCannotReflectOrThatAreOlderStartNothing) {
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(10))), 1);
  // A late webhook about a push before the occurrence started.
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(10)), ReportedPush{kX, kT0 + seconds(9)}), 1);
  // A push GitHub made after this read: the read predates it; the next read decides.
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(11)), ReportedPush{kX, kT0 + seconds(12)}), 1);
  // In the read's second: only the push to the head read can be in it.
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(12)), ReportedPush{kX, kT0 + seconds(12)}), 1);
  EXPECT_EQ(Occurrence(Read(kA, kT0 + seconds(12)), ReportedPush{kA, kT0 + seconds(12)}), 2);
}

TEST_F(HeadOccurrenceTest, AReadOlderThanTheLatestOccurrenceIsLagging) {
  EXPECT_EQ(Occurrence(Read(kA, kT0)), 1);
  EXPECT_EQ(Occurrence(Read(kX, kT0 + seconds(5)), std::nullopt, kT0 + seconds(6)), 1);
  // A replica that has not seen the push to X answers with A.
  HeadObservation lag = Observe(Read(kA, kT0), std::nullopt, kT0 + seconds(7));
  EXPECT_EQ(lag.kind, HeadObservation::Kind::kLagging);
  EXPECT_EQ(lag.occurrence.head_sha, kX) << "the latest, which the read is older than";
  auto latest = store_->ledger().LatestHeadOccurrence(kPr);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->head_sha, kX) << "nothing recorded";
  // A read of the same head as the latest is never lagging, whatever its time.
  EXPECT_EQ(Occurrence(Read(kX, kT0), std::nullopt, kT0 + seconds(7)), 1);
  // Long after the latest started, an older time is a clock to live with, not a lag.
  const Time later = kT0 + seconds(6) + kLaggingReadWindow;
  EXPECT_EQ(Occurrence(Read(kA, kT0), std::nullopt, later), 2);
}

TEST_F(HeadOccurrenceTest, WithoutAUsableTimeTheLatestPushStandsIn) {
  PullRequest pr = Read(kA, kT0);
  pr.updated_at = "";
  HeadObservation o = Observe(pr, ReportedPush{kA, kT0 - seconds(1)});
  EXPECT_EQ(o.occurrence.occurrence, 1);
  EXPECT_EQ(o.occurrence.github_at, kT0 - seconds(1));
  // No time to order pushes against: the push rule does not apply.
  EXPECT_EQ(Occurrence(pr, ReportedPush{kA, kT0 + seconds(1)}), 1);
}

TEST_F(HeadOccurrenceTest, OnlyTheFenceHolderStartsOne) {
  EXPECT_EQ(Occurrence(Read(kA, kT0)), 1);
  auto stale = ObserveHead(*store_, kPr, fence_ + 1, Read(kX, kT0 + seconds(1)), std::nullopt,
                           kT0 + seconds(1));
  EXPECT_EQ(stale.status().code(), StatusCode::kFenceLost);
  // Observing the latest head writes nothing, so any reader may.
  auto same = ObserveHead(*store_, kPr, fence_ + 1, Read(kA, kT0), std::nullopt, kT0);
  EXPECT_TRUE(same.ok());
}

TEST_F(HeadOccurrenceTest, TheLatestReportedPushIsTheLatestByGitHubsTime) {
  const std::vector<PrFact> facts = {{kPr, "pushed", kX, kT0 + seconds(2)},
                                     {kPr, "reopened", "alice OWNER", kT0 + seconds(9)},
                                     {kPr, "pushed", kA, kT0 + seconds(1)}};
  auto last = LastReportedPush(facts);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->head_sha, kX);
  EXPECT_EQ(last->at, kT0 + seconds(2));
  EXPECT_FALSE(LastReportedPush({}).has_value());
}

}  // namespace
}  // namespace gatehouse::act
