// Generations of ledger keys within one head occurrence (decide/generations.h): derived from
// the ledger alone, so a state gatehouse set, changed and must set again gets a new key, and a
// state already written keeps its key.
#include "decide/generations.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gatehouse::decide {
namespace {

using ActionState = PriorAction::State;

class Ledger {
 public:
  // Appends a row; later rows are newer.
  Ledger& Add(std::string kind, std::string detail, ActionState state = ActionState::kDone,
              std::string sha = "aaa", int64_t occurrence = 1) {
    PriorAction r;
    r.id = static_cast<int64_t>(rows_.size()) + 1;
    r.kind = ParseActionKind(kind).value();
    r.head_sha = std::move(sha);
    r.head_occurrence = occurrence;
    r.detail = std::move(detail);
    r.state = state;
    r.created_at = r.updated_at = FromMicros(r.id);
    rows_.push_back(std::move(r));
    return *this;
  }
  const std::vector<PriorAction>& rows() const { return rows_; }

 private:
  std::vector<PriorAction> rows_;
};

PlannedAction Planned(ActionKind kind, std::string detail, int64_t occurrence = 1) {
  PlannedAction a;
  a.kind = kind;
  a.head_sha = "aaa";
  a.head_occurrence = occurrence;
  a.detail = detail;
  if (kind == ActionKind::kLabel || kind == ActionKind::kUnlabel) a.label = detail;
  return a;
}

std::string Numbered(PlannedAction a, const Ledger& ledger) {
  NumberGeneration(a, ledger.rows());
  return a.detail;
}

TEST(ActionGenerationsTest, BaseDetailStripsOnlyANumericGeneration) {
  EXPECT_EQ(BaseDetail("ready#2"), "ready");
  EXPECT_EQ(BaseDetail("ready#12"), "ready");
  EXPECT_EQ(BaseDetail("ready"), "ready");
  EXPECT_EQ(BaseDetail("issue#x"), "issue#x");
  EXPECT_EQ(BaseDetail("ready#"), "ready#");
  EXPECT_EQ(BaseDetail(""), "");
}

TEST(ActionGenerationsTest, ALabelPutBackAfterItsRemovalIsANewGeneration) {
  Ledger l;
  EXPECT_EQ(Numbered(Planned(ActionKind::kLabel, "ready"), l), "ready");
  l.Add("label", "ready");
  EXPECT_EQ(Numbered(Planned(ActionKind::kLabel, "ready"), l), "ready") << "done: same key";
  EXPECT_EQ(Numbered(Planned(ActionKind::kUnlabel, "ready"), l), "ready#2");
  l.Add("unlabel", "ready#2");
  EXPECT_EQ(Numbered(Planned(ActionKind::kLabel, "ready"), l), "ready#2");
  // Another occurrence of the same SHA starts over: its keys differ by occurrence anyway.
  EXPECT_EQ(Numbered(Planned(ActionKind::kLabel, "ready", 2), l), "ready");
  // A removal on another head does not count.
  l.Add("unlabel", "ready#3", ActionState::kDone, "bbb");
  EXPECT_EQ(Numbered(Planned(ActionKind::kLabel, "ready"), l), "ready#2");
}

// An open removal (its answer lost) counts: the label put back after it gets a new key, and
// the planner only proposes it when a live read shows the label gone.
TEST(ActionGenerationsTest, AnOpenRemovalCountsForTheNextLabel) {
  Ledger l;
  l.Add("label", "ready").Add("unlabel", "ready#2", ActionState::kIntent);
  EXPECT_EQ(Numbered(Planned(ActionKind::kLabel, "ready"), l), "ready#2");
}

TEST(ActionGenerationsTest, ACheckRunThatMustSayAgainWhatItSaidGetsANewKey) {
  Ledger l;
  const std::string success = "gatehouse:completed:success:1111";
  const std::string pending = "gatehouse:in_progress::2222";
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, success), l), success);
  l.Add("check_run", success);
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, success), l), success) << "unchanged";
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, pending), l), pending);
  l.Add("check_run", pending);
  // A CI re-run made it pending; now it passes again: a second write of "success".
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, success), l), success + "#2");
  l.Add("check_run", success + "#2");
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, success), l), success + "#2");
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, pending), l), pending + "#2");
}

TEST(ActionGenerationsTest, AnOpenIntentKeepsItsKeySoItIsReconciledNotRepeated) {
  Ledger l;
  const std::string success = "gatehouse:completed:success:1111";
  const std::string pending = "gatehouse:in_progress::2222";
  l.Add("check_run", success)
      .Add("check_run", pending)
      .Add("check_run", success + "#2", ActionState::kIntent);
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, success), l), success + "#2");
  // A failed write is no write: the next attempt retries the same key.
  Ledger f;
  f.Add("check_run", success)
      .Add("check_run", pending)
      .Add("check_run", success + "#2", ActionState::kFailed);
  EXPECT_EQ(Numbered(Planned(ActionKind::kCheckRun, success), f), success + "#2");
}

TEST(ActionGenerationsTest, SummaryEditsAreNumberedPerCommentAndCreationIsOnce) {
  Ledger l;
  PlannedAction edit_a = Planned(ActionKind::kComment, "summary:9:aaaa");
  edit_a.comment_id = 9;
  PlannedAction edit_b = Planned(ActionKind::kComment, "summary:9:bbbb");
  edit_b.comment_id = 9;
  l.Add("comment", "summary:new").Add("comment", "summary:9:aaaa").Add("comment", "summary:9:bbbb");
  EXPECT_EQ(Numbered(edit_a, l), "summary:9:aaaa#2");
  EXPECT_EQ(Numbered(edit_b, l), "summary:9:bbbb");
  // Edits of another comment are another slot.
  PlannedAction other = Planned(ActionKind::kComment, "summary:10:aaaa");
  other.comment_id = 10;
  EXPECT_EQ(Numbered(other, l), "summary:10:aaaa");
  PlannedAction create = Planned(ActionKind::kComment, "summary:new");
  EXPECT_EQ(Numbered(create, l), "summary:new");
}

TEST(ActionGenerationsTest, OtherKindsHaveOneKeyPerOccurrence) {
  Ledger l;
  l.Add("merge", "squash", ActionState::kSuperseded).Add("approve", "");
  EXPECT_EQ(Numbered(Planned(ActionKind::kMerge, "squash"), l), "squash");
  EXPECT_EQ(Numbered(Planned(ActionKind::kApprove, ""), l), "");
}

TEST(ActionGenerationsTest, TheCheckRunDetailComesFromItsExternalId) {
  EXPECT_EQ(CheckRunDetailOf("check_run|aaa|gatehouse:completed:success:11", "aaa"),
            "gatehouse:completed:success:11");
  EXPECT_EQ(CheckRunDetailOf("check_run|aaa@3|gatehouse:completed:success:11#2", "aaa"),
            "gatehouse:completed:success:11");
  EXPECT_EQ(CheckRunDetailOf("check_run|bbb|gatehouse:completed:success:11", "aaa"), "");
  EXPECT_EQ(CheckRunDetailOf("merge|aaa|squash", "aaa"), "");
  EXPECT_EQ(CheckRunDetailOf("something else", "aaa"), "");
  EXPECT_EQ(CheckRunDetailOf("", "aaa"), "");
}

}  // namespace
}  // namespace gatehouse::decide
