#include "decide/policy_check.h"

#include <fstream>
#include <sstream>

#include "decide/policy.h"

namespace gatehouse::decide {

Status CheckPolicyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("reading policy file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return NotFound("reading policy file " + path);
  auto overlay = ParsePolicyOverlay(text.str(), path);
  if (!overlay.ok()) return overlay.status();
  return Status::Ok();
}

}  // namespace gatehouse::decide
