// The faults one chaos run injects, and when: a pure function of the seed, so a failing run is
// replayed exactly by its seed (docs/RELIABILITY.md, "Chaos").
//
// Kills are spread over the play, one per slot of play_ms / kills with seeded jitter, so a
// run with --kills N really kills N times however the rest of the schedule falls; stops, REST
// fault bursts, delivery faults and lost answers fall at seeded times in between.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gatehouse::chaos {

enum class ChaosFault {
  kKill,            // SIGKILL a node (or every node), restart it after down_ms
  kStop,            // SIGSTOP a node for down_ms (past the lease), then SIGCONT
  kRestFaults,      // PUT /_sim/faults: 5xx, resets, secondary and primary rate limits
  kDeliveryFaults,  // PUT /_sim/faults: webhook duplicates, reorders, delays
  kLostAnswer,      // PUT /_sim/faults: a call takes effect and its answer is lost
};

const char* ChaosFaultName(ChaosFault f);

struct ChaosEvent {
  int64_t at_ms = 0;  // from the start of the play
  ChaosFault kind = ChaosFault::kKill;
  bool all_nodes = false;  // kKill: the whole service goes down
  int64_t node = 0;        // kKill/kStop: which live node (taken modulo the live count)
  int64_t down_ms = 0;     // kKill: until the replacement starts; kStop: how long stopped
  std::string faults_json;  // the fault kinds: the body of PUT /_sim/faults
  std::string label;        // what the event does, for the log ("server_errors=2")
};

struct ChaosScheduleOptions {
  uint64_t seed = 1;
  int64_t kills = 50;
  int64_t play_ms = 60'000;
  int64_t nodes = 1;
  int64_t lease_ms = 4'000;
  bool lost_answers = true;
};

struct ChaosSchedule {
  std::vector<ChaosEvent> events;  // by at_ms
  std::map<std::string, int64_t> injected;  // per fault name ("kill", "server_errors", ...)
};

ChaosSchedule MakeChaosSchedule(const ChaosScheduleOptions& options);

}  // namespace gatehouse::chaos
