// ToPassOutcome moved to act/github_outcome.h (the layer that makes GitHub calls; docs/PASS.md,
// "Layering"). This header keeps engine-side callers (github/client_test.cc) compiling until
// they include act/github_outcome.h themselves.
#pragma once

#include "act/github_outcome.h"
