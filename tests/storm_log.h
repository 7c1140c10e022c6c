// The storm harness shared by the thread storm, the process storm and the crash test.
//
// Passes write what they do to a log file as they do it (one line per event, each with a
// single O_APPEND write, so threads and processes can share the file):
//   S key fence claimed_gen attempts start_us pid         a pass started (after its claim)
//   E key fence outcome end_us                            the pass returned
//   F key fence recorded kind attempts retry_at_us submitted_us ran|skipped
//                                                         the engine recorded (or was refused)
// The checker then proves the engine's invariants from the log and the final store state.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "engine/worker_pool.h"

namespace gatehouse::storm {

class StormLog {
 public:
  // Opens (creating) `path` for appending. Aborts on failure: a harness without a log is
  // worthless.
  explicit StormLog(const std::string& path);
  ~StormLog();
  void Started(const Lease& lease, Time start);
  void Ended(const Lease& lease, const PassOutcome& outcome, Time end);
  void Recorded(const PassReport& report);

 private:
  void Write(const std::string& line);
  int fd_;
};

struct StormPassConfig {
  double fail_rate = 0.1;    // transient failure probability per pass (until healed)
  double stall_rate = 0.02;  // probability that a pass stalls past its lease (until healed)
  int max_pass_ms = 4;       // pass duration U[0, max_pass_ms]
  Duration lease = std::chrono::milliseconds(200);
  // Keys containing this always fail transiently until healed.
  std::string doomed_marker = "doomed";
  // Healed when this file exists (so a parent process can heal its children).
  std::string heal_file;
  uint64_t seed = 1;
};

// The set of passes that decided to stall; their leases are not renewed.
class StallSet {
 public:
  void Add(const std::string& key, int64_t fence);
  bool Contains(const Lease& lease);

 private:
  Mutex mu_;
  std::set<std::pair<std::string, int64_t>> stalled_ GUARDED_BY(mu_);
};

// The pass used by every storm: logs, sleeps a little, sometimes fails, sometimes stalls.
PassFn MakeStormPass(StormLog* log, StormPassConfig config, std::shared_ptr<StallSet> stalls);

struct PassRecord {
  std::string key;
  int64_t fence = 0;
  int64_t claimed_gen = 0;
  int attempts = 0;
  int64_t start_us = 0;
  int pid = 0;
  bool ended = false;
  std::string outcome;  // ok | transient | ...
  int64_t end_us = 0;
  bool finished = false;  // an F line exists
  bool recorded = false;  // ... and it said the finish was accepted
  std::string kind;       // completed | retry | dead
  int finish_attempts = 0;
  int64_t retry_at_us = 0;
  int64_t submitted_us = 0;  // when the engine began the transaction recording the finish
  bool ran = true;           // false: finished as dead without running (budget spent)
};

// Per key, ordered by fence. A line that does not parse aborts the test run loudly.
std::map<std::string, std::vector<PassRecord>> ParseStormLog(const std::string& path);

struct StormExpectations {
  // Signals sent per key, plus re-arms (each re-arm requests one more generation).
  std::map<std::string, int64_t> requested;
  std::map<std::string, WorkItem> final_items;
  int max_attempts = 0;
  std::set<std::string> doomed;                    // must have died with the attempts reason
  std::map<std::string, std::string> dead_errors;  // key -> last_error when found dead
  std::set<int> crashed_pids;  // passes of these processes may lack their E and F lines
};

// Returns one line per violated invariant (empty when all hold), plus statistics in `stats`.
std::vector<std::string> CheckStormInvariants(
    const std::map<std::string, std::vector<PassRecord>>& passes, const StormExpectations& want,
    std::map<std::string, int64_t>* stats);

}  // namespace gatehouse::storm
