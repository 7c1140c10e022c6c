// The closure history (decide/closure_history.h): when gatehouse closed the PR, since when the
// pending-closure grace period runs, and who may restart it by reopening.
#include "decide/closure_history.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace gatehouse::decide {
namespace {

using State = PriorAction::State;

Time At(int s) { return Time(std::chrono::seconds(s)); }

class ClosureLedger {
 public:
  // A row intended at `created` and settled at `updated`.
  ClosureLedger& Add(ActionKind kind, std::string detail, int created, int updated,
              State state = State::kDone) {
    PriorAction a;
    a.id = static_cast<int64_t>(rows_.size()) + 1;
    a.kind = kind;
    a.head_sha = "aaa";
    a.detail = std::move(detail);
    a.state = state;
    a.created_at = At(created);
    a.updated_at = At(updated);
    rows_.push_back(std::move(a));
    return *this;
  }
  const std::vector<PriorAction>& rows() const { return rows_; }

 private:
  std::vector<PriorAction> rows_;
};

ClosureContext Labelled() {
  ClosureContext c;
  c.labels = {"Pending-Closure"};
  c.pending_closure_label = "pending-closure";
  c.maintainer_roles = {AuthorRole::kOwner, AuthorRole::kMember, AuthorRole::kCollaborator};
  return c;
}

ReopenFact Reopen(AuthorRole role, int at) { return ReopenFact{"someone", role, At(at)}; }

TEST(ClosureHistoryTest, NothingDoneIsNoHistory) {
  ClosureLedger l;
  l.Add(ActionKind::kLabel, "pending-closure", 1, 2, State::kIntent)
      .Add(ActionKind::kClose, "", 3, 4, State::kFailed);
  const ClosureHistory h = ClosureHistoryOf(l.rows(), Labelled());
  EXPECT_FALSE(h.closed_by_gatehouse_at);
  EXPECT_FALSE(h.pending_closure_since);
  EXPECT_FALSE(h.drafted_while_pending_closure);
}

TEST(ClosureHistoryTest, TheLatestCloseCountsFromItsIntent) {
  ClosureLedger l;
  l.Add(ActionKind::kClose, "", 10, 11)
      .Add(ActionKind::kReopenReclose, "123", 30, 31)
      .Add(ActionKind::kDraftDodgeClose, "", 20, 21);
  EXPECT_EQ(ClosureHistoryOf(l.rows(), Labelled()).closed_by_gatehouse_at, At(30));
}

TEST(ClosureHistoryTest, TheGracePeriodStartsWhenTheLabelWasPutOnAfterItsLastRemoval) {
  ClosureLedger l;
  l.Add(ActionKind::kLabel, "pending-closure", 1, 2);
  EXPECT_EQ(ClosureHistoryOf(l.rows(), Labelled()).pending_closure_since, At(2));
  l.Add(ActionKind::kUnlabel, "pending-closure#2", 5, 6);
  EXPECT_FALSE(ClosureHistoryOf(l.rows(), Labelled()).pending_closure_since)
      << "removed by gatehouse: no grace period, even if the read still shows the label";
  l.Add(ActionKind::kLabel, "pending-closure#2", 8, 9);
  EXPECT_EQ(ClosureHistoryOf(l.rows(), Labelled()).pending_closure_since, At(9));
  // Another label's rows do not count.
  l.Add(ActionKind::kUnlabel, "ready-to-merge", 10, 11);
  EXPECT_EQ(ClosureHistoryOf(l.rows(), Labelled()).pending_closure_since, At(9));
}

TEST(ClosureHistoryTest, ALabelAPersonRemovedRunsNoGracePeriod) {
  ClosureLedger l;
  l.Add(ActionKind::kLabel, "pending-closure", 1, 2);
  ClosureContext removed = Labelled();
  removed.labels = {"bug"};
  EXPECT_FALSE(ClosureHistoryOf(l.rows(), removed).pending_closure_since);
}

TEST(ClosureHistoryTest, ADraftWithTheLabelOnDodgedTheClosure) {
  ClosureLedger l;
  l.Add(ActionKind::kLabel, "pending-closure", 1, 2);
  ClosureContext draft = Labelled();
  draft.draft = true;
  EXPECT_TRUE(ClosureHistoryOf(l.rows(), draft).drafted_while_pending_closure);
  EXPECT_FALSE(ClosureHistoryOf(l.rows(), Labelled()).drafted_while_pending_closure);
  draft.labels.clear();
  EXPECT_FALSE(ClosureHistoryOf(l.rows(), draft).drafted_while_pending_closure);
}

TEST(ClosureHistoryTest, AMaintainersReopenAfterTheCloseRestartsTheGracePeriod) {
  ClosureLedger l;
  l.Add(ActionKind::kLabel, "pending-closure", 1, 2).Add(ActionKind::kClose, "", 10, 11);
  ClosureContext c = Labelled();
  c.last_reopen = Reopen(AuthorRole::kMember, 20);
  EXPECT_EQ(ClosureHistoryOf(l.rows(), c).pending_closure_since, At(20));
  c.last_reopen = Reopen(AuthorRole::kContributor, 20);
  EXPECT_EQ(ClosureHistoryOf(l.rows(), c).pending_closure_since, At(2))
      << "the author's reopen restarts nothing";
}

TEST(RestartGraceOnMaintainerReopenTest, OnlyAMaintainersReopenAfterTheCloseAndTheLabel) {
  const std::vector<AuthorRole> maintainers = {AuthorRole::kOwner, AuthorRole::kMember};
  const auto owner_at = [](int s) {
    return std::optional<ReopenFact>(Reopen(AuthorRole::kOwner, s));
  };
  // The reopen restarts the grace period.
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(5), At(10), owner_at(20), maintainers), At(20));
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(5), At(10), owner_at(10), maintainers), At(10))
      << "a reopen at the close's own instant is after it";
  // Everything else leaves it as it was.
  EXPECT_EQ(RestartGraceOnMaintainerReopen(std::nullopt, At(10), owner_at(20), maintainers),
            std::nullopt)
      << "no grace period running";
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(5), std::nullopt, owner_at(20), maintainers), At(5))
      << "gatehouse never closed it";
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(5), At(10), owner_at(9), maintainers), At(5))
      << "reopened before gatehouse's close";
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(30), At(10), owner_at(20), maintainers), At(30))
      << "the label went on after the reopen";
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(20), At(10), owner_at(20), maintainers), At(20));
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(5), At(10), std::nullopt, maintainers), At(5));
  EXPECT_EQ(RestartGraceOnMaintainerReopen(At(5), At(10), Reopen(AuthorRole::kCollaborator, 20),
                                           maintainers),
            At(5))
      << "not a maintainer role under this policy";
}

}  // namespace
}  // namespace gatehouse::decide
