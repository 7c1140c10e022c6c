// The ledger as decide/ sees it (act/prior_actions.h): every field of a known kind's row is
// carried over, in order; a kind this version does not know is left out.
#include "act/prior_actions.h"

#include <gtest/gtest.h>

#include <vector>

namespace gatehouse::act {
namespace {

ActionRecord Row(int64_t id, std::string kind, std::string detail, ActionState state) {
  ActionRecord r;
  r.id = id;
  r.key = ActionKey{"acme/app#1", std::move(kind), "aaa", std::move(detail), 2};
  r.state = state;
  r.created_at = FromMicros(10 * id);
  r.updated_at = FromMicros(10 * id + 5);
  return r;
}

TEST(PriorActionsTest, EveryKnownRowIsCarriedOverInOrder) {
  const std::vector<ActionRecord> ledger = {
      Row(1, "label", "pending-closure", ActionState::kDone),
      Row(2, "queue_entry", "", ActionState::kDone),  // a kind this version does not know
      Row(3, "unlabel", "pending-closure#2", ActionState::kIntent),
      Row(4, "merge", "squash", ActionState::kSuperseded),
      Row(5, "close", "", ActionState::kFailed),
  };
  const std::vector<decide::PriorAction> prior = PriorActions(ledger);
  ASSERT_EQ(prior.size(), 4u);
  EXPECT_EQ(prior[0].id, 1);
  EXPECT_EQ(prior[0].kind, decide::ActionKind::kLabel);
  EXPECT_EQ(prior[0].head_sha, "aaa");
  EXPECT_EQ(prior[0].head_occurrence, 2);
  EXPECT_EQ(prior[0].detail, "pending-closure");
  EXPECT_EQ(prior[0].state, decide::PriorAction::State::kDone);
  EXPECT_EQ(prior[0].created_at, FromMicros(10));
  EXPECT_EQ(prior[0].updated_at, FromMicros(15));
  EXPECT_EQ(prior[1].kind, decide::ActionKind::kUnlabel);
  EXPECT_EQ(prior[1].detail, "pending-closure#2");
  EXPECT_EQ(prior[1].state, decide::PriorAction::State::kIntent);
  EXPECT_EQ(prior[2].kind, decide::ActionKind::kMerge);
  EXPECT_EQ(prior[2].state, decide::PriorAction::State::kSuperseded);
  EXPECT_EQ(prior[3].kind, decide::ActionKind::kClose);
  EXPECT_EQ(prior[3].state, decide::PriorAction::State::kFailed);
  EXPECT_EQ(prior[3].id, 5);
}

TEST(PriorActionsTest, AnEmptyLedgerIsEmpty) { EXPECT_TRUE(PriorActions({}).empty()); }

}  // namespace
}  // namespace gatehouse::act
