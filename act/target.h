// Target: the pull request a pass acts on, and on whose behalf its GitHub calls are made.
// Built once per pass from the lease's subject (act/pr_pass.cc); a plain value.
#pragma once

#include <cstdint>
#include <string>

#include "github/github.h"

namespace gatehouse::act {

// Which PR the plan is for, and on whose behalf calls are made.
struct Target {
  std::string subject;  // "owner/repo#12", the ledger's subject and the work item key
  RepoRef repo;
  int64_t number = 0;
  CallContext call;  // installation id (rate limits, token); background = false
};

}  // namespace gatehouse::act
