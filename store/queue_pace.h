// QueuePace: how fast a merge queue has been landing PRs lately, and when an entry should merge
// at that pace (the ETA its `gatehouse/queue` check run, the admin API and the dashboard show).
// A landing is one instant at which entries were recorded merged: one PR for the serial method,
// a whole batch for integration_branch. Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "base/clock.h"

namespace gatehouse {

// How many of a queue's latest ended entries its pace is measured over.
inline constexpr int kQueuePaceWindow = 20;

// One of the queue's recently ended entries.
struct EndedEntry {
  bool merged = false;
  Time at{};  // when it ended
};

struct QueuePace {
  std::optional<Duration> interval;  // mean time between landings; nullopt with fewer than two
  double per_landing = 1;            // entries merged per landing
};

QueuePace PaceOf(const std::vector<EndedEntry>& ended);

// When the entry at `position` (0: the next to land) should merge, at `pace`, from `now`;
// nullopt while the pace is not known.
std::optional<Time> EtaOf(const QueuePace& pace, size_t position, Time now);

}  // namespace gatehouse
