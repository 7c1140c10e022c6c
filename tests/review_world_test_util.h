// ReviewWorld: gatehouse serve's whole wiring (app/gatehouse_server.h) in-process on 127.0.0.1:0
// and a temporary SQLite file (or the store WorldOptions::store_url names), acting as the App against the real simulator served in-process,
// with reviewers from a reviewers file whose executors are real (command scripts run as
// processes, builtin:secrets, ...). The simulator's webhooks are signed and POSTed to the
// server over loopback by the simulator's own WebhookSender, as gatehouse-sim does. Real HTTP
// both ways, real signatures, real JWTs; no mocks.
//
// The server runs on the real clock, or (`sim_time`) on the simulator's SimClock so a test can
// move time by hours (pauses, availability budgets); Settle() then advances it in small steps
// while it waits. Waits are bounded only as a safety net (a generous real-time deadline): they
// end on the condition, never on a timing.
//
// Not thread-safe to set up; the accessors are safe once started.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/gatehouse_server.h"
#include "base/log.h"
#include "base/mutex.h"
#include "decide/reviewers_config.h"
#include "github/fake_github_test_util.h"
#include "review/executor.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"
#include "sim/render.h"
#include "sim/webhooks.h"
#include "store/open_store.h"
#include "store/store_test_util.h"

namespace gatehouse::review_testing {

inline constexpr char kSecret[] = "review-world-secret";
inline constexpr int64_t kInstallation = 7;
inline constexpr char kRepo[] = "acme/app";

struct WorldOptions {
  // The server's reviewers file; "${SIM_URL}" in it becomes the simulator's base URL (its port
  // is known only once it runs), e.g. for an openai reviewer on the fake chat completions.
  std::string reviewers_yaml;
  std::string policy_yaml;  // acme/app's .github/gatehouse.yml
  size_t workers = 4;
  bool sim_time = false;  // the server on the simulator's SimClock
  // Wraps the simulator's handler (sim_testing::InProcessGitHub::Front), e.g. to hold a read.
  sim_testing::InProcessGitHub::Front front;
  Duration lease = std::chrono::seconds(30);
  Duration availability_budget_override{0};           // >0: replaces the file's
  std::vector<std::string> members = {"maintainer"};  // acme/app's users with write access
  // false: the simulator's webhooks are rendered (Rendered()) but not sent; the test posts them.
  bool forward_webhooks = true;
  // The server's store (OpenStore's URL, e.g. a PostgreSQL test database) and its options;
  // empty: a SQLite file in the world's temporary folder. The test's own handle (store())
  // opens the same URL with a small pool of its own and no listener.
  std::string store_url;
  StoreOptions store_options;
};

class ReviewWorld {
 public:
  explicit ReviewWorld(WorldOptions options) : options_(std::move(options)) {}
  ~ReviewWorld() { Stop(); }

  // Call with ASSERT_NO_FATAL_FAILURE(world.Start()).
  void Start() {
    SetLogLevel(LogLevel::kOff);
    ASSERT_NO_FATAL_FAILURE(github_.Start(options_.front));
    sender_ = std::make_unique<sim::WebhookSender>(sim::WebhookSenderOptions{"", kSecret, 10'000});
    github_.model().SetListener([this, s = sender_.get()](const sim::Notification& n) {
      std::string body = boost::json::serialize(sim::RenderWebhook(n));
      {
        MutexLock lock(&mu_);
        rendered_.push_back({n.event, body});
      }
      if (options_.forward_webhooks) s->Enqueue(n.event, std::move(body), sim::DeliveryMetaOf(n));
    });
    ASSERT_TRUE(
        github_.model()
            .CreateRepo(
                "acme", "app", kInstallation, {{".github/gatehouse.yml", options_.policy_yaml}},
                sim::RepoOptions{.dismiss_stale_reviews = false, .members = options_.members})
            .ok());
    ASSERT_NO_FATAL_FAILURE(StartServer());
  }

  // Starts (again) the server on the same database.
  void StartServer() {
    std::string yaml = options_.reviewers_yaml;
    for (size_t at = yaml.find("${SIM_URL}"); at != std::string::npos;
         at = yaml.find("${SIM_URL}")) {
      yaml.replace(at, 10, github_.base_url());
    }
    auto reviewers = decide::ParseReviewersConfig(yaml, "reviewers.yml");
    ASSERT_TRUE(reviewers.ok()) << reviewers.status().ToString();
    app::ServerOptions o;
    o.http.listen = "127.0.0.1:0";
    o.http.threads = 2;
    o.webhook.secrets = {kSecret};
    o.engine.workers = options_.workers;
    // On sim time the test moves the clock by minutes while a pass runs for real milliseconds.
    o.engine.lease = options_.sim_time ? std::chrono::hours(12) : options_.lease;
    o.debounce = Duration::zero();
    o.sweep_interval = Duration::zero();
    GitHubAuthConfig github;
    github.api_url = github_.base_url();
    github.app_id = sim_testing::kAppId;
    github.private_key_pem = github_testing::GetTestRsaKey().private_pem;
    o.github = github;
    o.pass.defaults.actions.autonomy = decide::Autonomy::kSuggest;
    o.reviewers = *reviewers;
    if (options_.availability_budget_override > Duration::zero()) {
      o.reviewers.availability_budget = options_.availability_budget_override;
    }
    o.engine.retry.unavailable_budget = o.reviewers.availability_budget;
    for (const decide::ReviewerSpec& r : o.reviewers.reviewers) {
      auto executor = review::MakeExecutor(r.executor);
      ASSERT_TRUE(executor.ok()) << r.name << ": " << executor.status().ToString();
      o.review_executors[r.name] = std::shared_ptr<review::ReviewExecutor>(std::move(*executor));
    }
    if (options_.sim_time) o.clock = clock_;
    auto store = OpenStore(db(), options_.store_options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto server = app::GatehouseServer::Create(std::move(o), std::move(store).value());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    ASSERT_TRUE(server_->Start().ok());
    sender_->SetUrl("http://127.0.0.1:" + std::to_string(server_->port()) + "/webhook");
  }

  void StopServer() {
    if (server_) {
      EXPECT_TRUE(server_->Stop(std::chrono::seconds(60)));
      server_.reset();
    }
  }

  void Stop() {
    if (sender_) sender_->Stop();
    StopServer();
  }

  // Opens a PR on acme/app (its webhook goes to the server); returns its number.
  int OpenPull(sim::NewPull pull = {}) {
    auto pr = github_.model().CreatePull(kRepo, pull);
    EXPECT_TRUE(pr.ok()) << pr.status().ToString();
    return pr.ok() ? pr->number : 0;
  }

  sim::PullRequest Pull(int number) { return *github_.model().GetPull(kRepo, number); }

  // The reviews gatehouse's review runs posted on PR `number` (they carry the run marker).
  std::vector<sim::Review> RunReviews(int number) {
    std::vector<sim::Review> out;
    for (const sim::Review& r : Pull(number).reviews) {
      if (r.body.find("<!-- gatehouse:review ") != std::string::npos) out.push_back(r);
    }
    return out;
  }

  // A second handle on the server's database (SQLite: several handles may share the file;
  // PostgreSQL: a pool of its own, apart from the server's).
  Store& store() {
    if (!reader_) {
      StoreOptions reader;
      reader.pool_size = 2;
      reader.listen = false;
      auto s = OpenStore(db(), reader);
      EXPECT_TRUE(s.ok()) << s.status().ToString();
      reader_ = std::move(s).value();
    }
    return *reader_;
  }

  std::vector<ReviewRun> Runs(int number) {
    auto runs = store().reviews().ListRuns(std::string(kRepo) + "#" + std::to_string(number));
    EXPECT_TRUE(runs.ok()) << runs.status().ToString();
    return runs.ok() ? *runs : std::vector<ReviewRun>{};
  }

  // Waits until `done()` holds, re-checking as the world moves: on sim time, by advancing the
  // clock `step` at a time (at most `max_sim` in all); on real time, every few milliseconds.
  // False when the safety-net deadline (real time) or `max_sim` passed first.
  bool Settle(const std::function<bool()>& done, Duration step = std::chrono::seconds(1),
              Duration max_sim = std::chrono::hours(24)) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    const Time sim_end = clock_->Now() + max_sim;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (options_.sim_time) {
        if (clock_->Now() >= sim_end) return false;
        clock_->Advance(step);
      }
      // Lets the server's threads run; not a timing assumption (the loop re-checks).
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  // Every webhook the simulator rendered so far: (event, body).
  std::vector<std::pair<std::string, std::string>> Rendered() {
    MutexLock lock(&mu_);
    return rendered_;
  }
  uint16_t port() const { return server_->port(); }

  std::shared_ptr<SimClock> clock() { return clock_; }
  sim::Model& model() { return github_.model(); }
  sim::SimHandler& sim() { return github_.handler(); }  // e.g. sim().chat() scripts the fake
  app::GatehouseServer& server() { return *server_; }
  std::string db() {
    return options_.store_url.empty() ? dir_.File("gatehouse.db") : options_.store_url;
  }
  std::string File(const std::string& name) { return dir_.File(name); }

 private:
  WorldOptions options_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(RealClock().Now());
  sim_testing::InProcessGitHub github_{clock_};
  testing::TempDir dir_;
  std::unique_ptr<sim::WebhookSender> sender_;
  std::unique_ptr<app::GatehouseServer> server_;
  StorePtr reader_;
  Mutex mu_;
  std::vector<std::pair<std::string, std::string>> rendered_ GUARDED_BY(mu_);
};

// acme/app's policy for most tests: one required role.
inline constexpr char kSecurityRequired[] = R"(reviews:
  roles:
    - role: security
      required: true
)";

// One reviewers-file entry with a command executor (`argv`: comma-separated YAML items).
inline std::string CommandReviewer(const std::string& name, const std::string& roles,
                                   const std::string& argv, int concurrency = 1,
                                   bool paused = false) {
  return "  - name: " + name + "\n    roles: [" + roles +
         "]\n    executor: {type: command, argv: [" + argv +
         "]}\n    concurrency: " + std::to_string(concurrency) +
         "\n    timeout: 120s\n    paused: " + (paused ? "true" : "false") + "\n";
}

// The lines of a file (none when it does not exist).
inline std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Writes an executable /bin/sh script and returns its path.
inline std::string WriteScript(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

// The work item of PR `n`'s `security` runs, the role most review tests play.
inline std::string SecurityWorkKey(int n) {
  return ReviewWorkKey("acme/app#" + std::to_string(n), "security");
}
inline std::optional<WorkItem> SecurityItem(ReviewWorld& w, int n) {
  auto item = w.store().work().GetWorkItem(SecurityWorkKey(n));
  return item.ok() ? *item : std::nullopt;
}
// PR `n` had exactly one run, done, and exactly one review posted for it.
inline bool PostedOnce(ReviewWorld& w, int n) {
  auto runs = w.Runs(n);
  return runs.size() == 1 && runs[0].state == RunState::kDone && w.RunReviews(n).size() == 1;
}

}  // namespace gatehouse::review_testing
