// The reviewers file as `gatehouse serve` (and the demo) load it: read, parsed
// (decide/reviewers_config.h) and turned into one executor per reviewer (review::MakeExecutor),
// so that every problem — a syntax error with its line, an unset API key variable, a bad URL —
// is reported before the server starts.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "base/status.h"
#include "decide/reviewers_config.h"
#include "review/executor.h"

namespace gatehouse::app {

struct LoadedReviewers {
  decide::ReviewersConfig config;
  std::map<std::string, std::shared_ptr<review::ReviewExecutor>> executors;
};

// Reads and parses the file at `path`. InvalidArgument with every "FILE:LINE: key: problem"
// line, or NotFound when the file cannot be read.
Result<decide::ReviewersConfig> ReadReviewersFile(const std::string& path);

// ReadReviewersFile, then an executor for each reviewer; InvalidArgument naming the reviewer
// whose executor cannot be built.
Result<LoadedReviewers> LoadReviewers(const std::string& path);

}  // namespace gatehouse::app
