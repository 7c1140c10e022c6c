#include "decide/digest.h"

#include <gtest/gtest.h>

namespace gatehouse::decide {
namespace {

// Pinned: keys written by earlier builds carry these digests and must still match (the basis
// is not FNV's standard one, whose digest of "" would be cbf29ce484222325; decide/digest.h).
TEST(StableDigestTest, GivesTheDigestsEarlierBuildsWrote) {
  EXPECT_EQ(StableDigest(""), "14650fb0739d0383");
  EXPECT_EQ(StableDigest("a"), "44bd8ad473cd9906");
  EXPECT_EQ(StableDigest("foobar"), "88fad7c0a8ff07f2");
}

TEST(StableDigestTest, DifferentTextsDiffer) {
  EXPECT_NE(StableDigest("gatehouse: pass"), StableDigest("gatehouse: fail"));
  EXPECT_EQ(StableDigest(std::string(1000, 'x')), StableDigest(std::string(1000, 'x')));
  EXPECT_EQ(StableDigest("\xff\x00\x80").size(), 16u);
}

}  // namespace
}  // namespace gatehouse::decide
