// Names the calling thread (visible in top -H, ps -L, gdb and perf), e.g. "gh-inbox".
// Linux keeps at most 15 characters; longer names are cut.
#pragma once

#include <pthread.h>

#include <string>

namespace gatehouse {

inline void SetThreadName(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace gatehouse
