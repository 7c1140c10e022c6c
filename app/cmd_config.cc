// gatehouse config check FILE: validates a repository policy file (.github/gatehouse.yml),
// both its rules: and its actions: sections.
#include <cstdio>

#include "app/commands.h"
#include "app/common.h"
#include "app/reviewers_setup.h"
#include "decide/policy_check.h"

namespace gatehouse::app {
namespace {

constexpr const char kConfigUsage[] = R"(Usage: gatehouse config check FILE
       gatehouse config check --reviewers FILE

Validates a repository policy file (.github/gatehouse.yml) or an operator override file: its
`rules:` (the merge gate) and its `actions:` (autonomy, dry_run, merge method, close grace,
update_branch, label names); format in docs/POLICY.md. Prints "FILE: ok" and exits 0 when it
is valid; otherwise prints one "FILE:LINE: KEY: problem" line per error and exits 1. Unknown
keys are errors, and so is `actions.app_login` (a server setting).

With --reviewers, FILE is the server's reviewers file (`gatehouse serve --reviewers`,
docs/REVIEWERS.md) and is checked the same way, executors included (an unset API key
variable, a URL that is not http(s)).

Options:
  --reviewers    FILE is a reviewers file
  -h, --help     this text
)";

}  // namespace

int RunConfig(int argc, char** argv) {
  Flags flags({}, {"reviewers"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("config", parsed.message());
    std::fputs(kConfigUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kConfigUsage, stdout);
    return kExitOk;
  }
  if (flags.positional().size() != 2 || flags.positional()[0] != "check") {
    std::fputs(kConfigUsage, stderr);
    return kExitUsage;
  }
  const std::string& path = flags.positional()[1];
  Status s = flags.Has("reviewers") ? LoadReviewers(path).status() : decide::CheckPolicyFile(path);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return kExitFailure;
  }
  std::printf("%s: ok\n", path.c_str());
  return kExitOk;
}

}  // namespace gatehouse::app
