// The merge queue's pure decisions: the serial method's next move for its head entry
// (decide/queue_step.h) and the integration_branch method's next move for its batch
// (decide/queue_batch.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "decide/queue_batch.h"
#include "decide/queue_step.h"

namespace gatehouse::decide {
namespace {

using ::testing::HasSubstr;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kQueueNow = Time{} + std::chrono::hours(1000);
const std::string kQueuedHead = "1111111111111111111111111111111111111111";
const std::string kTestedSha = "2222222222222222222222222222222222222222";
const std::vector<RequiredCheck> kCiCheck = {{"ci", ""}};

CheckRun CiRun(const std::string& sha, const std::string& status, const std::string& conclusion,
             int64_t id = 1) {
  return CheckRun{id, "ci", "ci-bot", status, conclusion, sha};
}

QueuePull OpenPull(const std::string& head) {
  QueuePull p;
  p.state = "open";
  p.head_sha = head;
  p.mergeable = true;
  p.mergeable_state = "clean";
  return p;
}

// --- serial (update_branch) ---

TEST(QueueStepTest, AQueuedEntryBehindItsBaseStartsUpdatingUpToDateOneIsTestedAsItIs) {
  const QueueHeadEntry queued{"queued", kQueuedHead, "", std::nullopt};
  QueuePull behind = OpenPull(kQueuedHead);
  behind.mergeable_state = "behind";
  EXPECT_EQ(NextQueueMove(queued, behind, kCiCheck, minutes(30), kQueueNow).kind,
            QueueMove::Kind::kStartUpdate);
  const QueueMove as_is = NextQueueMove(queued, OpenPull(kQueuedHead), kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(as_is.kind, QueueMove::Kind::kStartTesting);
  EXPECT_EQ(as_is.sha, kQueuedHead);
  QueuePull computing = OpenPull(kQueuedHead);
  computing.mergeable.reset();
  EXPECT_EQ(NextQueueMove(queued, computing, kCiCheck, minutes(30), kQueueNow).kind,
            QueueMove::Kind::kWait);
}

TEST(QueueStepTest, APushOrACloseDropsTheEntry) {
  const QueueHeadEntry queued{"queued", kQueuedHead, "", std::nullopt};
  const QueueMove pushed = NextQueueMove(queued, OpenPull(kTestedSha), kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(pushed.kind, QueueMove::Kind::kDrop);
  EXPECT_THAT(pushed.reason, HasSubstr("new commits were pushed"));
  QueuePull closed = OpenPull(kQueuedHead);
  closed.state = "closed";
  EXPECT_EQ(NextQueueMove(queued, closed, kCiCheck, minutes(30), kQueueNow).kind, QueueMove::Kind::kDrop);
  QueuePull gone;
  gone.found = false;
  EXPECT_EQ(NextQueueMove(queued, gone, kCiCheck, minutes(30), kQueueNow).kind, QueueMove::Kind::kDrop);
}

TEST(QueueStepTest, TheUpdatesNewHeadIsTestedAndMergesOnlyWhenGreenOnExactlyIt) {
  const QueueHeadEntry updating{"updating", kQueuedHead, kQueuedHead, kQueueNow + minutes(30)};
  const QueueMove updated = NextQueueMove(updating, OpenPull(kTestedSha), kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(updated.kind, QueueMove::Kind::kStartTesting);
  EXPECT_EQ(updated.sha, kTestedSha);

  const QueueHeadEntry testing{"testing", kQueuedHead, kTestedSha, kQueueNow + minutes(30)};
  QueuePull pr = OpenPull(kTestedSha);
  EXPECT_EQ(NextQueueMove(testing, pr, kCiCheck, minutes(30), kQueueNow).kind, QueueMove::Kind::kWait)
      << "no check yet";
  pr.check_runs = {CiRun(kQueuedHead, "completed", "success")};
  EXPECT_EQ(NextQueueMove(testing, pr, kCiCheck, minutes(30), kQueueNow).kind, QueueMove::Kind::kWait)
      << "green on another SHA does not count";
  pr.check_runs = {CiRun(kTestedSha, "completed", "success")};
  EXPECT_EQ(NextQueueMove(testing, pr, kCiCheck, minutes(30), kQueueNow).kind,
            QueueMove::Kind::kStartMerging);
  pr.check_runs = {CiRun(kTestedSha, "completed", "failure")};
  const QueueMove failed = NextQueueMove(testing, pr, kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(failed.kind, QueueMove::Kind::kDrop);
  EXPECT_THAT(failed.reason, HasSubstr("failed on the tested head"));
}

TEST(QueueStepTest, ChecksThatNeverReportEndAtTheDeadline) {
  const QueueHeadEntry testing{"testing", kQueuedHead, kTestedSha, kQueueNow + minutes(30)};
  QueuePull pr = OpenPull(kTestedSha);
  pr.check_runs = {CiRun(kTestedSha, "in_progress", "")};
  const QueueMove waiting = NextQueueMove(testing, pr, kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(waiting.kind, QueueMove::Kind::kWait);
  EXPECT_EQ(waiting.at, kQueueNow + minutes(30));
  const QueueMove late = NextQueueMove(testing, pr, kCiCheck, minutes(30), kQueueNow + minutes(30));
  EXPECT_EQ(late.kind, QueueMove::Kind::kDrop);
  EXPECT_THAT(late.reason, HasSubstr("within checks_timeout (30m)"));
}

TEST(QueueStepTest, AMergeUnderWayIsSettledWhateverThePrShows) {
  const QueueHeadEntry merging{"merging", kQueuedHead, kTestedSha, std::nullopt};
  QueuePull closed = OpenPull(kTestedSha);
  closed.state = "closed";
  closed.merged = true;
  const QueueMove m = NextQueueMove(merging, closed, kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(m.kind, QueueMove::Kind::kMerge);
  EXPECT_EQ(m.sha, kTestedSha);
}

// --- batches (integration_branch) ---

QueueBatchFacts TestingBatch(size_t size) {
  QueueBatchFacts b;
  b.state = "testing";
  b.tested_sha = kTestedSha;
  b.deadline = kQueueNow + minutes(30);
  b.size = size;
  return b;
}

TEST(QueueBatchTest, ABatchBuildsWaitsForItsChecksAndMergesWhenGreenOnTheIntegrationSha) {
  QueueBatchFacts b = TestingBatch(5);
  b.state = "updating";
  EXPECT_EQ(NextBatchMove(b, kCiCheck, minutes(30), kQueueNow).kind, BatchMove::Kind::kBuild);
  b = TestingBatch(5);
  const BatchMove waiting = NextBatchMove(b, kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(waiting.kind, BatchMove::Kind::kWait);
  EXPECT_EQ(waiting.at, kQueueNow + minutes(30));
  b.check_runs = {CiRun(kQueuedHead, "completed", "success")};
  EXPECT_EQ(NextBatchMove(b, kCiCheck, minutes(30), kQueueNow).kind, BatchMove::Kind::kWait)
      << "a member's own head being green says nothing of the batch";
  b.check_runs = {CiRun(kTestedSha, "completed", "success")};
  EXPECT_EQ(NextBatchMove(b, kCiCheck, minutes(30), kQueueNow).kind, BatchMove::Kind::kStartMerging);
  b.state = "merging";
  EXPECT_EQ(NextBatchMove(b, kCiCheck, minutes(30), kQueueNow).kind, BatchMove::Kind::kLand);
}

TEST(QueueBatchTest, AFailedBatchIsSplitAFailedSingleEntryDropped) {
  QueueBatchFacts b = TestingBatch(5);
  b.check_runs = {CiRun(kTestedSha, "completed", "failure")};
  const BatchMove split = NextBatchMove(b, kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(split.kind, BatchMove::Kind::kSplit);
  EXPECT_THAT(split.reason, HasSubstr("failed on the integration SHA 222222222222"));
  b.size = 1;
  EXPECT_EQ(NextBatchMove(b, kCiCheck, minutes(30), kQueueNow).kind, BatchMove::Kind::kDrop);
  // A re-run that passes supersedes the failure (the latest run of a name counts).
  b.check_runs.push_back(CiRun(kTestedSha, "completed", "success", 2));
  EXPECT_EQ(NextBatchMove(b, kCiCheck, minutes(30), kQueueNow).kind, BatchMove::Kind::kStartMerging);
}

TEST(QueueBatchTest, ChecksThatNeverReportSplitTheBatchAtTheDeadline) {
  QueueBatchFacts b = TestingBatch(4);
  b.check_runs = {CiRun(kTestedSha, "in_progress", "")};
  EXPECT_EQ(NextBatchMove(b, kCiCheck, minutes(30), kQueueNow + minutes(29)).kind, BatchMove::Kind::kWait);
  const BatchMove late = NextBatchMove(b, kCiCheck, minutes(30), kQueueNow + minutes(30));
  EXPECT_EQ(late.kind, BatchMove::Kind::kSplit);
  EXPECT_THAT(late.reason, HasSubstr("within checks_timeout (30m)"));
}

TEST(QueueBatchTest, AMemberThatLeftMakesTheBatchBuildAgainEvenWhenGreen) {
  QueueBatchFacts b = TestingBatch(3);
  b.check_runs = {CiRun(kTestedSha, "completed", "success")};
  b.lost_member = true;
  const BatchMove m = NextBatchMove(b, kCiCheck, minutes(30), kQueueNow);
  EXPECT_EQ(m.kind, BatchMove::Kind::kBuild) << "its old head is in the integration SHA";
}

TEST(QueueBatchTest, AMemberLandsOnlyOpenAtTheHeadItWasQueuedAt) {
  EXPECT_EQ(WhyMemberCannotLand(kQueuedHead, OpenPull(kQueuedHead)), "");
  EXPECT_THAT(WhyMemberCannotLand(kQueuedHead, OpenPull(kTestedSha)), HasSubstr("new commits were pushed"));
  QueuePull draft = OpenPull(kQueuedHead);
  draft.draft = true;
  EXPECT_THAT(WhyMemberCannotLand(kQueuedHead, draft), HasSubstr("draft"));
  QueuePull merged = OpenPull(kQueuedHead);
  merged.merged = true;
  merged.state = "closed";
  EXPECT_THAT(WhyMemberCannotLand(kQueuedHead, merged), HasSubstr("merged outside the queue"));
}

TEST(QueueBatchTest, ABatchWaitsBrieflyForCompanyUnlessFull) {
  const Time entered = kQueueNow - seconds(1);
  EXPECT_EQ(BatchFormsAt(2, 5, entered, kQueueNow), entered + kBatchGather);
  EXPECT_EQ(BatchFormsAt(5, 5, entered, kQueueNow), std::nullopt) << "full";
  EXPECT_EQ(BatchFormsAt(2, 5, entered, entered + kBatchGather), std::nullopt) << "waited";
  EXPECT_EQ(BatchFormsAt(1, 1, entered, kQueueNow), std::nullopt) << "serial: never waits";
}

TEST(QueueBatchTest, HalvesAndTheBranch) {
  EXPECT_EQ(FirstHalf(5), 3u);
  EXPECT_EQ(FirstHalf(4), 2u);
  EXPECT_EQ(FirstHalf(2), 1u);
  EXPECT_EQ(IntegrationBranch("release/2.x"), "gatehouse/queue/release/2.x");
}

}  // namespace
}  // namespace gatehouse::decide
