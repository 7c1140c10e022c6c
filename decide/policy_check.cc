#include "decide/policy_check.h"

#include <fstream>
#include <sstream>

#include "decide/policy.h"
#include "decide/reviewers_config.h"

namespace gatehouse::decide {

namespace {

Result<std::string> ReadFile(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("reading " + std::string(what) + " " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return NotFound("reading " + std::string(what) + " " + path);
  return text.str();
}

}  // namespace

Status CheckPolicyFile(const std::string& path) {
  GH_ASSIGN_OR_RETURN(std::string text, ReadFile(path, "policy file"));
  auto overlay = ParsePolicyOverlay(text, path);
  if (!overlay.ok()) return overlay.status();
  return Status::Ok();
}

Status CheckReviewersFile(const std::string& path) {
  GH_ASSIGN_OR_RETURN(std::string text, ReadFile(path, "reviewers file"));
  auto config = ParseReviewersConfig(text, path);
  if (!config.ok()) return config.status();
  return Status::Ok();
}

}  // namespace gatehouse::decide
