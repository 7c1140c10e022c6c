// What the GitHub client's tests share: the instant their clocks start at, and the one
// installation and repository of the world they play against (the simulator's, or a fake).
#pragma once

#include <chrono>
#include <cstdint>

#include "base/clock.h"
#include "github/github.h"

namespace gatehouse::client_testing {

inline const Time kStart = Time(std::chrono::seconds(1796040000));  // 2026-11-30T12:00:00Z
inline constexpr int64_t kInstallation = 7;
inline const RepoRef kRepo{"acme", "app"};
inline constexpr char kFullName[] = "acme/app";

}  // namespace gatehouse::client_testing
