// AppInstallations: the installations of the App, as GitHub lists them to the App itself
// (GET /app/installations, App JWT, paginated). The sweeper asks it each round, so that a
// gatehouse started on a fresh database still finds every installation (and through each one,
// its repositories and open PRs) before any webhook arrived (docs/PASS.md, "The sweeper").
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <vector>

#include "github/errors.h"

namespace gatehouse {

class AppInstallations {
 public:
  virtual ~AppInstallations() = default;

  // The id of every installation of the App (all pages), in GitHub's order. A suspended
  // installation is left out: GitHub refuses its token exchange.
  virtual GitHubResult<std::vector<int64_t>> ListInstallationIds() = 0;
};

}  // namespace gatehouse
