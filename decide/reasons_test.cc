#include "decide/reasons.h"

#include <gtest/gtest.h>

namespace gatehouse::decide {
namespace {

TEST(IsBackgroundPassTest, OnlySweepsTimersAndMergeabilityRechecksAreBackground) {
  EXPECT_TRUE(IsBackgroundPass({"swept"}));
  EXPECT_TRUE(IsBackgroundPass({"timer"}));
  EXPECT_TRUE(IsBackgroundPass({"mergeable-unknown"}));
  EXPECT_TRUE(IsBackgroundPass({"swept", "timer", "mergeable-unknown"}));
}

TEST(IsBackgroundPassTest, AnyOtherReasonMakesThePassForeground) {
  EXPECT_FALSE(IsBackgroundPass({}));
  EXPECT_FALSE(IsBackgroundPass({"pushed"}));
  EXPECT_FALSE(IsBackgroundPass({"swept", "ci-completed"}));
  EXPECT_FALSE(IsBackgroundPass({"superseded"}));
  EXPECT_FALSE(IsBackgroundPass({"lagging-read"}));
  EXPECT_FALSE(IsBackgroundPass({"Swept"})) << "reasons are exact";
}

}  // namespace
}  // namespace gatehouse::decide
