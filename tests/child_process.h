// The multi-process tests use base/child_process.h under their historical name.
#pragma once

#include "base/child_process.h"

namespace gatehouse::testing {
using ChildProcess = ::gatehouse::ChildProcess;
}  // namespace gatehouse::testing
