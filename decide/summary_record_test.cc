// The summary comment as the ledger knows it (decide/summary_record.h): only a done edit names
// the comment and its body; anything else sends the pass to read the comments.
#include "decide/summary_record.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gatehouse::decide {
namespace {

using State = PriorAction::State;

PriorAction Row(int64_t id, std::string kind, std::string detail, State state = State::kDone,
                int64_t updated = 0) {
  PriorAction r;
  r.id = id;
  r.kind = ParseActionKind(kind).value();
  r.head_sha = "aaa";
  r.detail = std::move(detail);
  r.state = state;
  r.created_at = FromMicros(id);
  r.updated_at = FromMicros(updated == 0 ? id : updated);
  return r;
}

TEST(SummaryRecordTest, NoneWithoutSummaryRows) {
  EXPECT_EQ(LastSummaryEdit({}), std::nullopt);
  EXPECT_EQ(LastSummaryEdit({Row(1, "comment", "reply:7"), Row(2, "check_run", "x")}),
            std::nullopt);
}

TEST(SummaryRecordTest, ACreationNamesItsBodyWhenTheExecutorRecordedIt) {
  PriorAction created = Row(1, "comment", "summary:new");
  created.result = SummaryCreatedResult(77, "cafe");
  EXPECT_EQ(created.result, "comment 77 body cafe");
  const auto r = LastSummaryEdit({created});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->comment_id, 77);
  EXPECT_EQ(r->digest, "cafe");
  // Reconciliation found it on GitHub and knows no body: the comments are read.
  created.result = "summary comment 77";
  EXPECT_EQ(LastSummaryEdit({created}), std::nullopt);
  created.result = "comment 77";
  EXPECT_EQ(LastSummaryEdit({created}), std::nullopt);
}

TEST(SummaryRecordTest, LatestDoneEditWithItsGenerationRemoved) {
  const auto r =
      LastSummaryEdit({Row(1, "comment", "summary:new"), Row(2, "comment", "summary:41:aaaa"),
                       Row(3, "comment", "summary:41:bbbb#2"), Row(4, "label", "x")});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->comment_id, 41);
  EXPECT_EQ(r->digest, "bbbb");
}

TEST(SummaryRecordTest, AnUnsettledOrFailedLatestEditMeansRead) {
  EXPECT_EQ(LastSummaryEdit({Row(1, "comment", "summary:41:aaaa"),
                             Row(2, "comment", "summary:41:bbbb", State::kFailed)}),
            std::nullopt);
  EXPECT_EQ(LastSummaryEdit({Row(1, "comment", "summary:41:aaaa"),
                             Row(2, "comment", "summary:41:bbbb", State::kIntent)}),
            std::nullopt);
  EXPECT_EQ(LastSummaryEdit({Row(1, "comment", "summary:41:aaaa"),
                             Row(2, "comment", "summary:41:bbbb", State::kSuperseded)}),
            std::nullopt);
}

TEST(SummaryRecordTest, ARetriedRowIsLatestByItsUpdate) {
  // Row 1 failed, row 2 was done, then row 1's retry was done: the comment has row 1's body.
  const auto r = LastSummaryEdit({Row(1, "comment", "summary:41:aaaa", State::kDone, 9),
                                  Row(2, "comment", "summary:41:bbbb", State::kDone, 5)});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->digest, "aaaa");
}

TEST(SummaryRecordTest, MalformedDetailsAreNotRecords) {
  for (const char* detail : {"summary:", "summary::abc", "summary:x1:abc",
                             "summary:12:", "summary:0:abc", "summary:1234567890123456789:abc"}) {
    EXPECT_EQ(LastSummaryEdit({Row(1, "comment", detail)}), std::nullopt) << detail;
  }
}

}  // namespace
}  // namespace gatehouse::decide
