#include "decide/policy_check.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gatehouse::decide {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(PolicyCheckTest, ValidFileIsOk) {
  const std::string path =
      WriteTemp("gatehouse_policy_ok.yml", "version: 1\nrules:\n  approvals:\n    min: 2\n");
  EXPECT_TRUE(CheckPolicyFile(path).ok());
  std::remove(path.c_str());
}

TEST(PolicyCheckTest, InvalidFileNamesThePathLineAndKey) {
  const std::string path =
      WriteTemp("gatehouse_policy_bad.yml", "rules:\n  approvals:\n    min: two\n");
  const Status s = CheckPolicyFile(path);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), path +
                             ":3: rules.approvals.min: expected a non-negative integer, got "
                             "\"two\"");
  std::remove(path.c_str());
}

TEST(PolicyCheckTest, ChecksTheActionsSection) {
  const std::string ok = WriteTemp("gatehouse_policy_actions_ok.yml",
                                   "actions:\n  autonomy: suggest\n  classes: {label: auto}\n"
                                   "  close_grace: 48h\n  labels: {ready: lgtm}\n");
  EXPECT_TRUE(CheckPolicyFile(ok).ok()) << CheckPolicyFile(ok).ToString();
  const std::string bad = WriteTemp("gatehouse_policy_actions_bad.yml",
                                    "actions:\n  classes:\n    merge: sometimes\n"
                                    "  app_login: me[bot]\n");
  const Status s = CheckPolicyFile(bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), bad +
                             ":3: actions.classes.merge: expected one of observe, suggest, auto, "
                             "got \"sometimes\"\n" +
                             bad +
                             ":4: actions.app_login: a server setting; it cannot be set in a "
                             "policy file");
  std::remove(ok.c_str());
  std::remove(bad.c_str());
}

TEST(PolicyCheckTest, MissingFileIsNotFound) {
  EXPECT_EQ(CheckPolicyFile("/nonexistent/gatehouse.yml").code(), StatusCode::kNotFound);
  EXPECT_EQ(CheckReviewersFile("/nonexistent/reviewers.yml").code(), StatusCode::kNotFound);
}

TEST(PolicyCheckTest, ChecksAReviewersFile) {
  const std::string ok = WriteTemp("gatehouse_reviewers_ok.yml",
                                   "reviewers:\n  - name: s\n    roles: [secrets]\n"
                                   "    executor: {type: \"builtin:secrets\"}\n");
  EXPECT_TRUE(CheckReviewersFile(ok).ok()) << CheckReviewersFile(ok).ToString();
  const std::string bad = WriteTemp("gatehouse_reviewers_bad.yml",
                                    "reviewers:\n  - name: s\n    roles: [secrets]\n"
                                    "    executor: {type: http, secret_env: S}\n");
  const Status s = CheckReviewersFile(bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            bad + ":4: reviewers[0].executor.url: missing (an http executor needs a url)");
  std::remove(ok.c_str());
  std::remove(bad.c_str());
}

}  // namespace
}  // namespace gatehouse::decide
