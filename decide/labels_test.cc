#include "decide/labels.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gatehouse::decide {
namespace {

TEST(LabelsTest, ALabelIsFoundWhateverItsCase) {
  const std::vector<std::string> labels = {"Ready-To-Merge", "bug"};
  EXPECT_TRUE(HasLabel(labels, "ready-to-merge"));
  EXPECT_TRUE(HasLabel(labels, "READY-TO-MERGE"));
  EXPECT_TRUE(HasLabel(labels, "Bug"));
  EXPECT_FALSE(HasLabel(labels, "ready"));
  EXPECT_FALSE(HasLabel(labels, ""));
  EXPECT_FALSE(HasLabel({}, "bug"));
}

}  // namespace
}  // namespace gatehouse::decide
