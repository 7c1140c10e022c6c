// gatehouse demo's side of gatehouse-sim: its control API over loopback (SimControl), the
// pull requests as the simulator shows them (WorldView), and the player that plays the
// built-in world (app/demo_world.h) against it (DemoPlayer).
//
// Thread-safety: SimControl and WorldView are safe for concurrent use; DemoPlayer is driven
// from one thread and runs its own.
#pragma once

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/demo_world.h"
#include "base/mutex.h"
#include "base/status.h"
#include "github/transport.h"

namespace gatehouse::app {

using Steady = std::chrono::steady_clock;

// The simulator's control API (docs/SIMULATOR.md, "Control API").
class SimControl {
 public:
  // InvalidArgument for a malformed URL.
  static Result<std::unique_ptr<SimControl>> Connect(const std::string& base_url);

  // The reply's status (0 when there was no reply, then the body says why) and body.
  std::pair<int, std::string> Call(const std::string& method, const std::string& target,
                                   const std::string& body = "");
  // A GET's JSON answer; null unless it answered 200 with JSON.
  boost::json::value GetJson(const std::string& target);

 private:
  explicit SimControl(std::unique_ptr<CurlTransport> transport) : t_(std::move(transport)) {}
  std::unique_ptr<CurlTransport> t_;
};

// What GET /_sim/requests says of every API request the simulator served (its "total",
// sim/request_tally.h): costing = counted against a rate limit (not a 304, not refused).
struct SimRequestCost {
  int64_t requests = 0;
  int64_t costing = 0;
  int64_t not_modified = 0;
  int64_t errors = 0;
  // "METHOD endpoint" and its costing requests, the most costing first.
  std::vector<std::pair<std::string, int64_t>> costing_by_endpoint;
};
SimRequestCost ReadRequestCost(SimControl& control);

// A PR as the simulator's state shows it.
struct PrView {
  std::string state;  // open, closed, merged
  std::string head;
  std::set<std::string> labels;
};

// The simulator's pull requests by "owner/name#N", refreshed from GET /_sim/state.
class WorldView {
 public:
  void Update(const boost::json::value& state);
  // Waits until the PR is in `state` (and carries `label`, if any), or the deadline.
  bool WaitFor(const std::string& key, const std::string& state, const std::string& label,
               Steady::time_point deadline);
  std::map<std::string, PrView> Snapshot();

 private:
  Mutex mu_;
  CondVar cv_;
  std::map<std::string, PrView> prs_ GUARDED_BY(mu_);
};

// Plays a DemoWorld: the setup (the webhook URL, the repositories, the faults, then every
// PR's create step in order, so that numbers follow), then every PR's script on a thread of
// its own, and one poller that keeps a WorldView fresh for the scripts' waits and plays the
// repositories' CI (green `ci` and `lint`) for heads no script knows (the pushes GitHub saw
// land just before a merge), as a CI system would.
class DemoPlayer {
 public:
  // `sim` and `world` must outlive the player.
  DemoPlayer(SimControl& sim, const DemoWorld& world);
  ~DemoPlayer();  // Join()s
  DemoPlayer(const DemoPlayer&) = delete;
  DemoPlayer& operator=(const DemoPlayer&) = delete;

  // The setup steps; each refused one is a step failure and a problem.
  void SetUp(const std::string& webhook_url);
  // Starts the scripts, each step at its offset from `start`; a wait gives up at `deadline`
  // (a problem).
  void Play(Steady::time_point start, Steady::time_point deadline);
  // Lets the scripts finish, stops the poller and joins every thread. Idempotent.
  void Join();

  int scripts_done() const { return scripts_done_.load(); }
  int step_failures() const { return step_failures_.load(); }
  int ci_bot_runs() const { return ci_bot_runs_.load(); }
  // What went wrong while playing, one line each.
  std::vector<std::string> problems() const;

 private:
  bool Must(const std::string& method, const std::string& target, const std::string& body);
  void Problem(std::string text);
  void RunScript(const DemoPr& pr, Steady::time_point start, Steady::time_point deadline);
  void Poll();

  SimControl& sim_;
  const DemoWorld& world_;
  WorldView view_;
  std::set<std::string> scripted_heads_;
  std::set<std::string> own_ci_;  // repositories whose CI is the simulator's CI bot
  std::atomic<bool> stop_polling_{false};
  std::atomic<int> scripts_done_{0};
  std::atomic<int> step_failures_{0};
  std::atomic<int> ci_bot_runs_{0};
  mutable Mutex mu_;
  std::vector<std::string> problems_ GUARDED_BY(mu_);
  std::thread poller_;
  std::vector<std::thread> scripts_;
};

}  // namespace gatehouse::app
