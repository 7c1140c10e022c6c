// Test support for the engine's GitHub-facing loops (the sweeper, the delivery resolver): a
// real SqliteStore on a temporary file and the real simulator (sim/), served in-process on our
// HttpServer and reached through GitHubClient over loopback with the App flow (JWT ->
// installation token), as in act/executor_test.cc. One SimClock drives the simulator, the
// client's rate-limit windows and the store's timestamps.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/client.h"
#include "github/transport.h"
#include "http/server.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"
#include "store/store_test_util.h"

namespace gatehouse::testing {

inline const Time kSimStart = Time(std::chrono::seconds(1796040000));  // 2026-11-30T12:00:00Z
inline constexpr int64_t kInstallation = 7;

// Serves the simulator, and can arm a simulator fault (PUT /_sim/faults, the control API) at
// the moment a given REST path is requested, so that exactly that call meets it.
class ArmingHandler final : public HttpHandler {
 public:
  explicit ArmingHandler(sim::SimHandler& inner) : inner_(inner) {}

  void ArmOn(std::string path, std::string faults_json) {
    MutexLock lock(&mu_);
    path_ = std::move(path);
    faults_ = std::move(faults_json);
  }
  int fired() {
    MutexLock lock(&mu_);
    return fired_;
  }

  void Handle(HttpRequest request, Responder respond) override {
    std::string faults;
    {
      MutexLock lock(&mu_);
      if (!path_.empty() && request.Path() == path_) {
        faults = std::move(faults_);
        path_.clear();
        ++fired_;
      }
    }
    if (!faults.empty()) {
      HttpRequest put;
      put.method = "PUT";
      put.target = "/_sim/faults";
      put.body = faults;
      put.headers.emplace_back("Content-Type", "application/json");
      EXPECT_EQ(inner_.Serve(put).status, 200);
    }
    inner_.Handle(std::move(request), std::move(respond));
  }

 private:
  sim::SimHandler& inner_;
  Mutex mu_;
  std::string path_ GUARDED_BY(mu_);
  std::string faults_ GUARDED_BY(mu_);
  int fired_ GUARDED_BY(mu_) = 0;
};

// The simulator (behind an ArmingHandler) and a fresh store, with helpers to shape the
// simulator's world and read what the store knows.
class SimGitHubTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start([this](sim::SimHandler& h) {
      auto arming = std::make_unique<ArmingHandler>(h);
      arming_ = arming.get();
      return std::unique_ptr<HttpHandler>(std::move(arming));
    }));
    model_ = &github_.model();
    handler_ = &github_.handler();
    client_ = &github_.client();
    curl_ = &github_.transport();

    auto store = OpenSqliteStore(dir_.File("gatehouse.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  void Repo(const std::string& owner, const std::string& name, int64_t installation) {
    ASSERT_TRUE(model_->CreateRepo(owner, name, installation, {}).ok());
  }

  // A new open PR in the simulator; its number.
  int NewPull(const std::string& repo, const std::string& title) {
    sim::NewPull spec;
    spec.title = title;
    spec.head_ref = "feature-" + title;
    auto pr = model_->CreatePull(repo, spec);
    EXPECT_TRUE(pr.ok()) << pr.status().ToString();
    return pr.ok() ? pr->number : 0;
  }
  void Close(const std::string& repo, int number) {
    ASSERT_TRUE(model_->SetState("alice", repo, number, "closed").ok());
  }
  std::string HeadOf(const std::string& repo, int number) {
    return model_->GetPull(repo, number)->head_sha;
  }

  // What the store knows about `repo` gatehouse-side.
  void Learn(const std::string& repo, std::optional<int64_t> installation) {
    const RepoInstallation r{repo, installation};
    ASSERT_TRUE(store_->repos().RecordLearned({&r, 1}, {}, clock_->Now()).ok());
  }
  std::optional<RepoInstallation> Known(const std::string& repo) {
    auto r = store_->repos().GetRepository(repo);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }

  std::optional<WorkItem> Item(const std::string& key) {
    auto w = store_->work().GetWorkItem(key);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? *w : std::nullopt;
  }
  // True when `key` has a work item that was signalled for `reason`.
  bool Signalled(const std::string& key, const std::string& reason) {
    auto w = Item(key);
    if (!w) return false;
    return std::find(w->reasons.begin(), w->reasons.end(), reason) != w->reasons.end();
  }

  TempDir dir_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kSimStart);
  sim_testing::InProcessGitHub github_{clock_};
  sim::Model* model_ = nullptr;
  sim::SimHandler* handler_ = nullptr;
  ArmingHandler* arming_ = nullptr;
  CurlTransport* curl_ = nullptr;
  GitHubClient* client_ = nullptr;
  StorePtr store_;
  int signalled_ = 0;  // counted by the loop under test's callback, where a test wires it
};

}  // namespace gatehouse::testing
