#include "base/ascii.h"

#include <gtest/gtest.h>

namespace gatehouse {
namespace {

TEST(AsciiTest, LowersOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLower("Ready-To-Merge"), "ready-to-merge");
  EXPECT_EQ(AsciiLower("OWNER_1@[bot]"), "owner_1@[bot]");
  EXPECT_EQ(AsciiLower("\xc3\x84"), "\xc3\x84") << "bytes beyond ASCII are left alone";
  EXPECT_EQ(AsciiLower(""), "");
}

TEST(AsciiTest, EqualsIgnoreCaseComparesLoweredAscii) {
  EXPECT_TRUE(EqualsIgnoreCase("Pending-Closure", "pending-closure"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("pending", "pending-closure"));
  EXPECT_FALSE(EqualsIgnoreCase("a", "b"));
  EXPECT_FALSE(EqualsIgnoreCase("@", "`")) << "'@' and '`' are not a letter pair";
}

}  // namespace
}  // namespace gatehouse
