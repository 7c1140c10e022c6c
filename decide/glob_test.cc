#include "decide/glob.h"

#include <gtest/gtest.h>

namespace gatehouse::decide {
namespace {

TEST(GlobTest, NameModeStarCrossesSlash) {
  EXPECT_TRUE(GlobMatch("build", "build", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("build", "build-linux", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("test/*", "test/unit", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("ci/*", "ci/linux/x64", GlobMode::kName));
  EXPECT_TRUE(GlobMatch("lint-?", "lint-a", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("lint-?", "lint-ab", GlobMode::kName));
  EXPECT_FALSE(GlobMatch("Build", "build", GlobMode::kName));
}

TEST(GlobTest, PathModeStarStopsAtSlash) {
  EXPECT_TRUE(GlobMatch("*.lock", "Cargo.lock", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("*.lock", "sub/Cargo.lock", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("**/*.lock", "sub/Cargo.lock", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("**/*.lock", "Cargo.lock", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch(".github/**", ".github/workflows/ci.yml", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("docs/**/*.md", "docs/a.md", GlobMode::kPath));
  EXPECT_TRUE(GlobMatch("docs/**/*.md", "docs/x/y/a.md", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("docs/*", "docs/x/a.md", GlobMode::kPath));
  EXPECT_FALSE(GlobMatch("src/?", "src//", GlobMode::kPath));
}

TEST(GlobTest, IsGlob) {
  EXPECT_TRUE(IsGlob("test/*"));
  EXPECT_TRUE(IsGlob("a?"));
  EXPECT_FALSE(IsGlob("build"));
}

}  // namespace
}  // namespace gatehouse::decide
