// DemoNodes: the `gatehouse serve` processes of `gatehouse demo`, all on one database (a
// SQLite file several processes share, or one PostgreSQL database), each with its own log
// and its own webhook endpoint on a free loopback port. The simulator spreads its webhooks
// over them round-robin (WebhookUrls(), for PUT /_sim/webhook-url).
//
// Nodes are numbered from 1 in the order they were started; a replacement gets the next
// number, so a log is never shared: DIR/gatehouse.log when the demo runs one node,
// DIR/gatehouse-<number>.log otherwise.
//
// Not thread-safe: driven by the demo's one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "base/status.h"

namespace gatehouse::app {

// The URL a child process announced in its first line ("listening on http://..."): from
// "http://" to the end of the line, "" when the line has none.
std::string UrlFromLine(const std::string& line);

class DemoNodes {
 public:
  // `serve_argv`: the whole command line of one node (binary, "serve", flags) without
  // --listen, which each node gets as 127.0.0.1:0. `single_log`: name the only node's log
  // gatehouse.log (the demo's one-node layout).
  DemoNodes(std::vector<std::string> serve_argv, std::string dir, bool single_log);

  // Starts one more node and waits until it prints its webhook URL. kUnavailable, naming
  // the node's log, if it exits or prints no URL.
  Status Start();

  // SIGKILLs the live node at `position` (0-based among the live nodes, in start order),
  // reaps it, and starts a replacement at the end of the list. kInvalidArgument for a
  // position out of range; Start()'s error if the replacement does not come up (the killed
  // node stays dead). `what` gets a line saying what happened.
  Status KillAndReplace(size_t position, std::string* what);
  // SIGKILLs and reaps the live node at `position` without a replacement (Start() one when
  // it should come back). `what` gets a line saying what happened.
  Status Kill(size_t position, std::string* what);
  // Sends `sig` (SIGSTOP, SIGCONT) to the live node at `position`; false if there is none.
  bool Signal(size_t position, int sig);

  // The live nodes' webhook URLs, comma-separated, in start order.
  std::string WebhookUrls() const;
  // The admin listener of the oldest live node; "" when none is up.
  std::string AdminUrl() const;
  size_t live() const { return nodes_.size(); }
  int kills() const { return kills_; }

  // SIGTERMs every live node and waits for each; returns 0 when all exited 0, else the first
  // non-zero exit status.
  int StopAll();

 private:
  struct Node {
    int number = 0;
    std::unique_ptr<ChildProcess> process;
    std::string webhook_url;
    std::string admin_url;  // its admin listener ("http://127.0.0.1:P/")
  };

  std::vector<std::string> serve_argv_;
  std::string dir_;
  bool single_log_;
  int started_ = 0;
  int kills_ = 0;
  std::vector<Node> nodes_;
};

}  // namespace gatehouse::app
