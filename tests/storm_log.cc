#include "tests/storm_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

namespace gatehouse::storm {

StormLog::StormLog(const std::string& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    std::perror(path.c_str());
    std::abort();
  }
}

StormLog::~StormLog() { ::close(fd_); }

void StormLog::Write(const std::string& line) {
  // One write(2) per line; O_APPEND makes concurrent writers append, never overwrite.
  const ssize_t n = ::write(fd_, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) std::abort();
}

void StormLog::Started(const Lease& l, Time start) {
  Write("S " + l.key + " " + std::to_string(l.fence) + " " + std::to_string(l.claimed_gen) + " " +
        std::to_string(l.attempts) + " " + std::to_string(ToMicros(start)) + " " +
        std::to_string(::getpid()) + "\n");
}

void StormLog::Ended(const Lease& l, const PassOutcome& o, Time end) {
  const std::string outcome = o.ok ? "ok" : std::string(FailureClassName(o.failure));
  Write("E " + l.key + " " + std::to_string(l.fence) + " " + outcome + " " +
        std::to_string(ToMicros(end)) + "\n");
}

void StormLog::Recorded(const PassReport& r) {
  const char* kind = r.finish.kind == PassFinish::Kind::kCompleted ? "completed"
                     : r.finish.kind == PassFinish::Kind::kRetry   ? "retry"
                                                                   : "dead";
  Write(
      "F " + r.lease.key + " " + std::to_string(r.lease.fence) + " " +
      (r.recorded.ok() ? "ok" : "rejected") + " " + kind + " " + std::to_string(r.finish.attempts) +
      " " +
      std::to_string(r.finish.kind == PassFinish::Kind::kRetry ? ToMicros(r.finish.retry_at) : 0) +
      " " + std::to_string(ToMicros(r.submitted)) + " " + (r.ran ? "ran" : "skipped") + "\n");
}

void StallSet::Add(const std::string& key, int64_t fence) {
  MutexLock lock(&mu_);
  stalled_.emplace(key, fence);
}

bool StallSet::Contains(const Lease& lease) {
  MutexLock lock(&mu_);
  return stalled_.count({lease.key, lease.fence}) > 0;
}

PassFn MakeStormPass(StormLog* log, StormPassConfig config, std::shared_ptr<StallSet> stalls) {
  return [log, config, stalls](PassContext& ctx) {
    const Lease& l = ctx.lease();
    RealClock clock;
    log->Started(l, clock.Now());
    std::mt19937_64 rng(config.seed ^ std::hash<std::string>{}(l.key) ^
                        (static_cast<uint64_t>(l.fence) * 0x9e3779b97f4a7c15ull));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const bool healed = !config.heal_file.empty() && ::access(config.heal_file.c_str(), F_OK) == 0;
    PassOutcome outcome = PassOutcome::Done();
    // The sleeps below are what the storm deliberately does: its pools run on the real clock
    // against each other (and other processes), so passes take real time and leases really
    // run out.
    if (!healed && u(rng) < config.stall_rate) {
      // A stalled worker: no heartbeat, and it comes back after its lease ran out, often
      // while the pass that took over is still running (so only the fence can stop it).
      stalls->Add(l.key, l.fence);
      std::uniform_int_distribution<int> pct(120, 250);
      std::this_thread::sleep_for(config.lease * pct(rng) / 100);
    } else if (!healed && l.reclaimed) {
      // A pass that took over from a stalled one runs long (its heartbeat keeps its lease),
      // so the stale holder usually comes back while it runs.
      std::this_thread::sleep_for(config.lease * 3 / 2);
    } else {
      std::uniform_int_distribution<int> ms(0, config.max_pass_ms);
      std::this_thread::sleep_for(std::chrono::microseconds(ms(rng) * 1000 + ms(rng) * 100));
    }
    if (!healed && l.key.find(config.doomed_marker) != std::string::npos) {
      outcome = PassOutcome::Transient("doomed key");
    } else if (!healed && u(rng) < config.fail_rate) {
      outcome = PassOutcome::Transient("random failure");
    }
    log->Ended(l, outcome, clock.Now());
    return outcome;
  };
}

std::map<std::string, std::vector<PassRecord>> ParseStormLog(const std::string& path) {
  std::map<std::pair<std::string, int64_t>, PassRecord> by_fence;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string tag, key;
    int64_t fence = 0;
    ss >> tag >> key >> fence;
    if (ss.fail()) {
      std::fprintf(stderr, "unparseable storm log line: %s\n", line.c_str());
      std::abort();
    }
    PassRecord& r = by_fence[{key, fence}];
    r.key = key;
    r.fence = fence;
    if (tag == "S") {
      ss >> r.claimed_gen >> r.attempts >> r.start_us >> r.pid;
    } else if (tag == "E") {
      r.ended = true;
      ss >> r.outcome >> r.end_us;
    } else if (tag == "F") {
      std::string recorded;
      r.finished = true;
      std::string ran;
      ss >> recorded >> r.kind >> r.finish_attempts >> r.retry_at_us >> r.submitted_us >> ran;
      r.recorded = recorded == "ok";
      r.ran = ran == "ran";
    } else {
      ss.setstate(std::ios::failbit);
    }
    if (ss.fail()) {
      std::fprintf(stderr, "unparseable storm log line: %s\n", line.c_str());
      std::abort();
    }
  }
  std::map<std::string, std::vector<PassRecord>> out;
  for (auto& [id, rec] : by_fence) out[id.first].push_back(std::move(rec));
  return out;  // std::map order: per key, ascending fence
}

std::vector<std::string> CheckStormInvariants(
    const std::map<std::string, std::vector<PassRecord>>& passes, const StormExpectations& want,
    std::map<std::string, int64_t>* stats) {
  std::vector<std::string> bad;
  auto fail = [&](const std::string& key, const std::string& what) {
    if (bad.size() < 50) bad.push_back(key + ": " + what);
  };
  int64_t total_passes = 0, completed = 0, overlaps = 0, rejected = 0, retries = 0, deaths = 0,
          rejected_while_successor_ran = 0;

  for (const auto& [key, recs] : passes) {
    for (const PassRecord& r : recs) {
      ++total_passes;
      if (r.start_us == 0 && r.ran) {
        fail(key, "fence " + std::to_string(r.fence) + " has no start line");
      }
      const bool crashed = want.crashed_pids.count(r.pid) > 0;
      if (!r.ended && r.ran && !crashed) {
        fail(key, "fence " + std::to_string(r.fence) + " never ended");
      }
      if (!r.finished && !crashed) {
        fail(key, "fence " + std::to_string(r.fence) + " was never recorded nor rejected");
      }
      if (r.finished && !r.recorded) ++rejected;
      if (r.recorded && r.kind == "completed") ++completed;
      if (r.recorded && r.kind == "retry") ++retries;
      if (r.recorded && r.kind == "dead") ++deaths;
    }
    // (a) An accepted finish means the pass held the item from its start until the finish was
    // submitted: no pass with a higher fence may have started before that. Passes whose
    // finish was rejected (or never came: a crash) may overlap later ones; that is the case
    // fences exist for, and we count how often the successor was still running then.
    for (size_t i = 0; i < recs.size(); ++i) {
      const PassRecord& p = recs[i];
      if (!p.ran) continue;
      const int64_t p_end = p.finished ? p.submitted_us : INT64_MAX;
      for (size_t j = i + 1; j < recs.size(); ++j) {
        const PassRecord& q = recs[j];
        if (!q.ran || q.start_us > p_end) continue;
        ++overlaps;
        if (p.recorded) {
          fail(key, "fence " + std::to_string(p.fence) + " was accepted although fence " +
                        std::to_string(q.fence) + " started before its finish was submitted");
        } else if (p.finished && (!q.finished || q.submitted_us > p.submitted_us)) {
          ++rejected_while_successor_ran;
        }
      }
    }
    // (c) No pass without something new to cover: after a completed pass, the next claim
    // covers a strictly newer generation; completed passes strictly increase claimed_gen.
    int64_t last_done_gen = -1;
    for (size_t i = 0; i < recs.size(); ++i) {
      const PassRecord& r = recs[i];
      if (i > 0 && r.ran && recs[i - 1].fence == r.fence - 1 && recs[i - 1].recorded &&
          recs[i - 1].kind == "completed" && r.claimed_gen <= recs[i - 1].claimed_gen) {
        fail(key, "fence " + std::to_string(r.fence) + " ran with nothing new (gen " +
                      std::to_string(r.claimed_gen) + ")");
      }
      if (r.recorded && r.kind == "completed") {
        if (r.claimed_gen <= last_done_gen) {
          fail(key, "completed passes did not advance: gen " + std::to_string(r.claimed_gen));
        }
        last_done_gen = r.claimed_gen;
      }
      // (d) A retry never starts before the time its failure scheduled.
      if (r.recorded && r.kind == "retry" && i + 1 < recs.size() &&
          recs[i + 1].fence == r.fence + 1 && recs[i + 1].start_us < r.retry_at_us) {
        fail(key, "fence " + std::to_string(recs[i + 1].fence) + " started " +
                      std::to_string(r.retry_at_us - recs[i + 1].start_us) +
                      "us before its retry time");
      }
      if (r.recorded && r.kind == "dead" && r.finish_attempts != want.max_attempts &&
          want.doomed.count(key)) {
        fail(key, "died after " + std::to_string(r.finish_attempts) + " attempts, budget is " +
                      std::to_string(want.max_attempts));
      }
    }
    // (b) The final completed pass covered the final requested generation.
    auto it = want.requested.find(key);
    const int64_t requested = it == want.requested.end() ? -1 : it->second;
    // A crashed process may have committed a completion and died before logging it.
    const bool crashed_final = std::any_of(recs.begin(), recs.end(), [&](const PassRecord& r) {
      return !r.finished && want.crashed_pids.count(r.pid) && r.claimed_gen == requested;
    });
    if (last_done_gen != requested && !crashed_final) {
      fail(key, "last completed pass covered gen " + std::to_string(last_done_gen) +
                    ", signals requested " + std::to_string(requested));
    }
  }
  for (const auto& [key, requested] : want.requested) {
    auto it = want.final_items.find(key);
    if (it == want.final_items.end()) {
      fail(key, "no work item at the end");
      continue;
    }
    const WorkItem& w = it->second;
    if (w.requested_gen != requested) {
      fail(key, "requested_gen " + std::to_string(w.requested_gen) + " != signals " +
                    std::to_string(requested) + " (a signal was lost or doubled)");
    }
    if (w.state != WorkState::kIdle || w.done_gen != w.requested_gen) {
      fail(key, std::string("not drained: state ") + std::string(WorkStateName(w.state)) +
                    " done_gen " + std::to_string(w.done_gen));
    }
    if (!passes.count(key)) fail(key, "signals but no pass");
  }
  for (const std::string& key : want.doomed) {
    auto it = want.dead_errors.find(key);
    if (it == want.dead_errors.end()) {
      fail(key, "doomed key never died");
    } else if (it->second.find("gave up after " + std::to_string(want.max_attempts) +
                               " attempts") == std::string::npos) {
      fail(key, "died with an unexpected reason: " + it->second);
    }
  }
  for (const auto& [key, error] : want.dead_errors) {
    if (error.find("gave up after") == std::string::npos) {
      fail(key, "dead without a budget reason: " + error);
    }
  }
  if (stats) {
    (*stats)["passes"] = total_passes;
    (*stats)["completed"] = completed;
    (*stats)["overlaps"] = overlaps;
    (*stats)["rejected"] = rejected;
    (*stats)["retries"] = retries;
    (*stats)["deaths"] = deaths;
    (*stats)["rejected_while_successor_ran"] = rejected_while_successor_ran;
  }
  return bad;
}

}  // namespace gatehouse::storm
