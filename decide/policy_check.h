// CheckPolicyFile: validates a policy file on disk, for `gatehouse config check FILE`.
//
// This is the one function in decide/ that touches the filesystem; it exists for the CLI and
// is never called from a pass (a pass gets the file's text from the GitHub client).
#pragma once

#include <string>

#include "base/status.h"

namespace gatehouse::decide {

// Reads `path` and parses it as a policy file. Returns OK when valid; NotFound when it cannot
// be read; InvalidArgument with one `PATH:LINE: KEY: problem` line per error otherwise.
Status CheckPolicyFile(const std::string& path);

}  // namespace gatehouse::decide
