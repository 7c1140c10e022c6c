// DemoRig: the processes `gatehouse demo` and the chaos harness (bench/chaos/) play against —
// gatehouse-sim (a GitHub, with the App's public key) and N `gatehouse serve` nodes (this
// repository's binary, as the App, against the simulator's REST API, with the demo's
// reviewers) on one database, wired to each other with a fresh App key pair and a webhook
// secret — plus the player's own view of that database.
//
// Start() sets the GitHub App environment variables of this process (the nodes inherit them)
// and refuses a database that already holds work: the checks count everything in it.
//
// Not thread-safe: driven by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/demo_nodes.h"
#include "app/demo_sim.h"
#include "base/child_process.h"
#include "base/clock.h"
#include "base/status.h"
#include "store/store.h"

namespace gatehouse::app {

struct DemoRigOptions {
  std::string dir;      // keys, logs and (by default) the database go here
  std::string db;       // a SQLite path or postgresql:// URL; "" = dir/gatehouse.db
  std::string self;     // the gatehouse binary
  std::string sim_bin;  // the gatehouse-sim binary
  int64_t nodes = 1;
  // Flags every node gets after `serve --db DB --reviewers FILE` (not --listen).
  std::vector<std::string> serve_flags;
};

class DemoRig {
 public:
  // FailedPrecondition for a database that already holds deliveries or work items;
  // kUnavailable (naming the log to read) when a process does not come up.
  static Result<std::unique_ptr<DemoRig>> Start(const DemoRigOptions& options);
  ~DemoRig();
  DemoRig(const DemoRig&) = delete;
  DemoRig& operator=(const DemoRig&) = delete;

  SimControl& control() { return *control_; }
  Store& store() { return *store_; }
  DemoNodes& nodes() { return *nodes_; }
  const std::string& sim_url() const { return sim_url_; }
  const std::string& db() const { return db_; }
  // The App the nodes act as: its id and private key (PEM), to call GitHub as the App.
  int64_t app_id() const;
  const std::string& private_key_pem() const { return private_pem_; }
  // The oldest live node's admin listener and the token every node was started with (a fresh
  // random one per rig, passed as GATEHOUSE_ADMIN_TOKEN).
  std::string admin_url() const;
  const std::string& admin_token() const { return admin_token_; }

  // Points the simulator's webhooks at the live nodes (round-robin); false if it refuses.
  bool PointWebhooks();
  // Stops the nodes (SIGTERM; they finish their passes), then the simulator. Returns 0 when
  // every node exited 0, else the first non-zero status. Idempotent.
  int Stop();

 private:
  DemoRig() = default;
  std::string admin_token_;

  std::string db_;
  std::string sim_url_;
  std::string private_pem_;
  std::unique_ptr<ChildProcess> sim_;
  std::unique_ptr<SimControl> control_;
  StorePtr store_;
  std::unique_ptr<DemoNodes> nodes_;
  bool stopped_ = false;
  int serve_exit_ = 0;
};

// Work items with a pass to come that may still change the world: the world is not quiet while
// this is above 0. Left out are the periodic sweep's revisits and timers due more than
// kTimerHorizon after `now` (a missing check's timeout, minutes out: they revisit a settled world
// and change nothing). A timer due sooner (a close after the grace) or overdue is a pass the
// world is waiting for, and so is a running timer pass: without them, a world whose last step is
// a grace period looked quiet for the two seconds before the close and the play ended early.
inline constexpr Duration kTimerHorizon = std::chrono::seconds(10);
int64_t ActiveItems(const std::vector<WorkItem>& items, Time now);

}  // namespace gatehouse::app
