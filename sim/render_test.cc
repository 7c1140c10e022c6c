// RenderUser's ids: deterministic, non-negative, and defined for logins long enough to wrap the
// hash (it overflowed a signed integer before, which -fsanitize=undefined reported).
#include "sim/render.h"

#include <gtest/gtest.h>

#include <string>

namespace gatehouse::sim {
namespace {

TEST(StableUserIdTest, ShortLoginsKeepTheirIds) {
  EXPECT_EQ(StableUserId(""), 0);
  EXPECT_EQ(StableUserId("alice"), 92903040);
  EXPECT_EQ(StableUserId("octocat"), 101457728039);
}

TEST(StableUserIdTest, LongLoginsWrapAndStayNonNegative) {
  // 31^24 > 2^64: the hash wraps. Pinned values, as two's complement wrapping gave them.
  EXPECT_EQ(StableUserId("gatehouse-demo[bot]"), 6383204921921844150);
  EXPECT_EQ(StableUserId("a-rather-long-login-name"), 2565897953143421361);  // wrapped negative
  std::string login;
  for (int i = 0; i < 200; ++i) {
    login += static_cast<char>('a' + i % 26);
    EXPECT_GE(StableUserId(login), 0) << login;
  }
}

TEST(StableUserIdTest, RenderUserCarriesIt) {
  boost::json::object user = RenderUser("a-rather-long-login-name");
  EXPECT_EQ(user.at("id").as_int64(), StableUserId("a-rather-long-login-name"));
  EXPECT_EQ(user.at("login").as_string(), "a-rather-long-login-name");
  EXPECT_EQ(user.at("type").as_string(), "User");
}

}  // namespace
}  // namespace gatehouse::sim
