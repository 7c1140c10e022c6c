// The executor tests' fixture (act/executor_test.cc, act/executor_head_test.cc): a real
// SqliteStore on a temporary file and the real simulator (sim/), served in-process on our
// HttpServer and reached through GitHubClient over loopback with the App flow (JWT ->
// installation token). One SimClock drives the simulator, the client's rate limit windows and
// the ledger's timestamps. The simulator's effect log is the witness: every call the executor
// made, with the SHA it was bound to, and its HTTP status.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "act/executor.h"
#include "base/subject.h"
#include "github/client.h"
#include "github/transport.h"
#include "http/server.h"
#include "sim/in_process_github_test_util.h"
#include "sim/invariants.h"
#include "sim/model.h"
#include "sim/rest.h"
#include "store/store_test_util.h"

namespace gatehouse::act::executor_testing {

using decide::ActionKind;
using decide::PlannedAction;
using R = ActionReport::Result;
using std::chrono::hours;
using std::chrono::seconds;

inline const Time kStart = Time(seconds(1796040000));  // 2026-11-30T12:00:00Z
inline constexpr int64_t kInstallation = 7;
inline const RepoRef kRepo{"acme", "app"};
inline constexpr char kFullName[] = "acme/app";
// How the simulator names the App: reviews and comments it makes carry this user.login.
// The App in the simulator's model and effect log, and how the simulator shows it (as GitHub
// shows an App: its slug plus [bot]).
inline const std::string kAppWho = "installation:" + std::to_string(kInstallation);
inline const std::string kAppLogin = "gatehouse[bot]";

inline std::string Subject(int number) {
  return std::string(kFullName) + "#" + std::to_string(number);
}

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    model_ = &github_.model();
    handler_ = &github_.handler();
    client_ = &github_.client();
    curl_ = &github_.transport();

    ASSERT_TRUE(model_->CreateRepo("acme", "app", kInstallation, {}).ok());
    auto store = OpenSqliteStore(dir_.File("gatehouse.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    options_.app_login = kAppLogin;
  }

  // A new open PR in the simulator.
  sim::PullRequest NewPull(const std::string& title) {
    sim::NewPull spec;
    spec.title = title;
    spec.head_ref = "feature-" + title;
    auto pr = model_->CreatePull(kFullName, spec);
    EXPECT_TRUE(pr.ok()) << pr.status().ToString();
    return pr.ok() ? *pr : sim::PullRequest{};
  }

  std::string HeadOf(int number) { return model_->GetPull(kFullName, number)->head_sha; }

  // Claims PR `number`'s work item (as a pass does) and returns the fence.
  int64_t Claim(int number) {
    Signal s{Subject(number), "pushed", {}};
    EXPECT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kRecoverable).ok());
    auto leases = store_->work().Claim("w1", 1, hours(1), clock_->Now());
    EXPECT_TRUE(leases.ok() && leases->size() == 1u);
    return leases.ok() && !leases->empty() ? (*leases)[0].fence : 0;
  }

  Target TargetFor(int number) {
    return Target{Subject(number), kRepo, number, CallContext{kInstallation, false}};
  }

  ExecResult Run(int number, int64_t fence, const std::vector<PlannedAction>& actions) {
    decide::Plan plan;
    plan.actions = actions;
    return Execute(*store_, *client_, *clock_, TargetFor(number), fence, plan, options_);
  }

  // An action bound to PR `number`'s current head.
  PlannedAction Make(ActionKind kind, int number, std::string detail = "") {
    PlannedAction a;
    a.kind = kind;
    a.head_sha = HeadOf(number);
    a.detail = std::move(detail);
    a.why = "test";
    return a;
  }
  PlannedAction Label(ActionKind kind, int number, const std::string& label) {
    PlannedAction a = Make(kind, number, label);
    a.label = label;
    return a;
  }
  PlannedAction Comment(int number, const std::string& body) {
    PlannedAction a = Make(ActionKind::kComment, number, "summary:new");
    a.body = body;
    return a;
  }
  PlannedAction CheckRun(int number, const std::string& conclusion) {
    PlannedAction a = Make(ActionKind::kCheckRun, number, "gatehouse:completed:" + conclusion);
    a.check_status = "completed";
    a.check_conclusion = conclusion;
    a.check_title = "gatehouse: " + conclusion;
    a.check_summary = "summary of " + conclusion;
    return a;
  }

  // The app's calls of `kind` on PR `number` (0: any) in the simulator's effect log.
  std::vector<sim::Effect> AppEffects(const std::string& kind, int number = 0) {
    std::vector<sim::Effect> out;
    for (const sim::Effect& e : model_->Effects()) {
      if (e.who == kAppWho && e.kind == kind && (number == 0 || e.number == number)) {
        out.push_back(e);
      }
    }
    return out;
  }
  size_t AppEffectCount() {
    size_t n = 0;
    for (const sim::Effect& e : model_->Effects()) n += e.who == kAppWho;
    return n;
  }

  // The ledger row for `a` on PR `number`.
  std::optional<ActionRecord> Row(int number, const PlannedAction& a) {
    auto rows = store_->ledger().ListActions(Subject(number));
    EXPECT_TRUE(rows.ok());
    if (!rows.ok()) return std::nullopt;
    for (const ActionRecord& r : *rows) {
      if (r.key.kind == decide::ActionKindName(a.kind) && r.key.head_sha == a.head_sha &&
          r.key.detail == a.detail && r.key.head_occurrence == a.head_occurrence) {
        return r;
      }
    }
    return std::nullopt;
  }

  // Records an intent by hand, as a holder that crashed before its outcome would have.
  void OpenIntent(int number, int64_t fence, const PlannedAction& a) {
    ActionKey key{Subject(number), std::string(decide::ActionKindName(a.kind)), a.head_sha,
                  a.detail, a.head_occurrence};
    auto r = store_->ledger().RecordIntent(key, fence, clock_->Now());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->kind, IntentResult::Kind::kRecorded);
  }

  void SetFaults(const std::string& json_body) {
    HttpRequest req;
    req.method = "PUT";
    req.target = "/_sim/faults";
    req.body = json_body;
    req.headers.emplace_back("Content-Type", "application/json");
    ASSERT_EQ(handler_->Serve(req).status, 200);
  }

  testing::TempDir dir_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  sim_testing::InProcessGitHub github_{clock_};
  sim::Model* model_ = nullptr;
  sim::SimHandler* handler_ = nullptr;
  CurlTransport* curl_ = nullptr;
  GitHubClient* client_ = nullptr;
  StorePtr store_;
  ExecutorOptions options_;
};

inline std::vector<R> Results(const ExecResult& r) {
  std::vector<R> out;
  for (const ActionReport& a : r.actions) out.push_back(a.result);
  return out;
}

}  // namespace gatehouse::act::executor_testing
