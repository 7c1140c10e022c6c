// gatehouse demo's serve processes. See app/demo_nodes.h.
#include "app/demo_nodes.h"

#include <signal.h>

#include <utility>

namespace gatehouse::app {
std::string UrlFromLine(const std::string& line) {
  const size_t at = line.find("http://");
  return at == std::string::npos ? "" : line.substr(at);
}

DemoNodes::DemoNodes(std::vector<std::string> serve_argv, std::string dir, bool single_log)
    : serve_argv_(std::move(serve_argv)), dir_(std::move(dir)), single_log_(single_log) {}

Status DemoNodes::Start() {
  const int number = ++started_;
  const std::string log = single_log_ && number == 1
                              ? dir_ + "/gatehouse.log"
                              : dir_ + "/gatehouse-" + std::to_string(number) + ".log";
  std::vector<std::string> argv = serve_argv_;
  argv.insert(argv.end(), {"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"});
  auto process = std::make_unique<ChildProcess>(argv, log);
  const std::string url = process->ok() ? UrlFromLine(process->ReadLine()) : "";
  // "gatehouse: admin on http://127.0.0.1:P/ (...)"
  std::string admin = url.empty() ? "" : UrlFromLine(process->ReadLine());
  admin = admin.substr(0, admin.find(' '));
  if (url.empty() || admin.empty()) {
    return Unavailable("gatehouse serve (node " + std::to_string(number) + ") did not start; see " +
                       log);
  }
  nodes_.push_back(Node{number, std::move(process), url, admin});
  return Status::Ok();
}

Status DemoNodes::Kill(size_t position, std::string* what) {
  if (position >= nodes_.size()) {
    return InvalidArgument("no live node at position " + std::to_string(position));
  }
  Node victim = std::move(nodes_[position]);
  nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(position));
  victim.process->Signal(SIGKILL);
  victim.process->Wait();
  ++kills_;
  *what = "node " + std::to_string(victim.number) + " (pid " +
          std::to_string(victim.process->pid()) + ", " + victim.webhook_url +
          ") killed with SIGKILL";
  return Status::Ok();
}

Status DemoNodes::KillAndReplace(size_t position, std::string* what) {
  GH_RETURN_IF_ERROR(Kill(position, what));
  Status started = Start();
  if (started.ok()) {
    *what += "; node " + std::to_string(nodes_.back().number) + " started on " +
             nodes_.back().webhook_url + " on the same database";
  }
  return started;
}

bool DemoNodes::Signal(size_t position, int sig) {
  if (position >= nodes_.size()) return false;
  nodes_[position].process->Signal(sig);
  return true;
}

std::string DemoNodes::WebhookUrls() const {
  std::string urls;
  for (const Node& n : nodes_) {
    if (!urls.empty()) urls += ",";
    urls += n.webhook_url;
  }
  return urls;
}

std::string DemoNodes::AdminUrl() const {
  return nodes_.empty() ? std::string() : nodes_.front().admin_url;
}

int DemoNodes::StopAll() {
  for (Node& n : nodes_) n.process->Signal(SIGTERM);
  int first_failure = 0;
  for (Node& n : nodes_) {
    const int exit = n.process->Wait();
    if (exit != 0 && first_failure == 0) first_failure = exit;
  }
  nodes_.clear();
  return first_failure;
}

}  // namespace gatehouse::app
