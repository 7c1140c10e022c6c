// CheckPolicyFile and CheckReviewersFile: validate a policy file or a reviewers file
// (decide/reviewers_config.h) on disk, for `gatehouse config check`.
//
// These are the only functions in decide/ that touch the filesystem; it exists for the CLI and
// is never called from a pass (a pass gets the file's text from the GitHub client).
#pragma once

#include <string>

#include "base/status.h"

namespace gatehouse::decide {

// Reads `path` and parses it as a policy file. Returns OK when valid; NotFound when it cannot
// be read; InvalidArgument with one `PATH:LINE: KEY: problem` line per error otherwise.
Status CheckPolicyFile(const std::string& path);

// Reads `path` and parses it as a reviewers file; the same results as CheckPolicyFile.
Status CheckReviewersFile(const std::string& path);

}  // namespace gatehouse::decide
