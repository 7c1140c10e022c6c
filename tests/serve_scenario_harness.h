// ServeScenarioTest: `gatehouse-sim run SCENARIO` (real process, real HTTP, App JWTs verified
// against a fresh key) against `gatehouse serve` (real process, real SQLite file) acting as the
// App. The simulator plays a scenario file and checks its expectations on the effect log and on
// PR state (its verdict line must be `ok`); then the test opens gatehouse's database and checks
// the ledger, the audit log, the work items and the merge queue.
//
// Every scenario settles after its expectations hold: long enough for gatehouse to resolve the
// webhooks of its own last actions (the resolver asks the simulator, which exits when the
// scenario ends), so that "every delivery terminal" is checked at rest.
//
// Both sides bind port 0: the simulator starts first and waits (--wait-for-target) until the
// test tells it gatehouse's webhook URL, which gatehouse prints once it listens with the
// simulator's URL as its GitHub API. With a crash fault (GATEHOUSE_FAULT_CRASH_AFTER_CALL), the
// first gatehouse dies by SIGKILL right after a GitHub call of that kind and a second one takes
// over the same database.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <csignal>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "base/child_process.h"
#include "github/fake_github_test_util.h"
#include "github/transport.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"

namespace gatehouse::serve_testing {

namespace json = boost::json;

inline constexpr char kSecret[] = "serve-scenario-secret";
inline constexpr char kSubject[] = "acme/app#1";

inline std::string UrlFrom(const std::string& line) {
  const size_t at = line.find("http://");
  return at == std::string::npos ? "" : line.substr(at);
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Options {
  std::vector<std::string> serve_args;  // beyond the common ones
  std::string crash_after_call;         // GATEHOUSE_FAULT_CRASH_AFTER_CALL for the first serve
  // When set, gatehouse and the simulator (`run --linger`) are kept running after the
  // scenario until gatehouse's audit satisfies this (or 30 s pass): for what only a later
  // pass can show — a decision that waited for a mergeability recheck, say — which the
  // simulator cannot observe when nothing is called. The simulator serves on, so that pass
  // can read the PR however late it comes.
  std::function<bool(const std::vector<AuditEntry>&)> audit_until;
};

struct Outcome {
  std::string verdict;  // the simulator's verdict line
  int sim_exit = -1;
  int first_serve_exit = -1;
  int serves = 0;
  StorePtr store;  // gatehouse's database, after it stopped
  std::vector<ActionRecord> actions;
  std::vector<AuditEntry> audit;
  std::string logs;  // both logs, for failure messages
};

class ServeScenarioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& key = github_testing::GetTestRsaKey();
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, key.pkey);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);  // NOLINT: OpenSSL's type
    std::ofstream(dir_.File("app.pub.pem")) << std::string(data, static_cast<size_t>(len));
    BIO_free(bio);
    std::ofstream(dir_.File("app.pem")) << key.private_pem;
  }

  // Starts `gatehouse serve` against `sim_url`; returns its webhook URL ("" on failure).
  std::string StartServe(const std::string& sim_url, const Options& options, bool with_fault,
                         std::unique_ptr<ChildProcess>* out) {
    setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);
    setenv("GATEHOUSE_GITHUB_APP_ID", "4242", 1);
    setenv("GATEHOUSE_GITHUB_PRIVATE_KEY_FILE", dir_.File("app.pem").c_str(), 1);
    setenv("GATEHOUSE_GITHUB_API_URL", sim_url.c_str(), 1);
    if (with_fault && !options.crash_after_call.empty()) {
      setenv("GATEHOUSE_FAULT_CRASH_AFTER_CALL", options.crash_after_call.c_str(), 1);
    } else {
      unsetenv("GATEHOUSE_FAULT_CRASH_AFTER_CALL");
    }
    std::vector<std::string> argv = {GATEHOUSE_BIN,
                                     "serve",
                                     "--db",
                                     dir_.File("g.db"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--admin-listen",
                                     "127.0.0.1:0",
                                     "--lease-seconds",
                                     "2",
                                     "--resolve-interval-seconds",
                                     "1",
                                     "--log-level",
                                     "info"};
    argv.insert(argv.end(), options.serve_args.begin(), options.serve_args.end());
    *out = std::make_unique<ChildProcess>(argv, dir_.File("gatehouse.log"));
    if (!(*out)->ok()) return "";
    return UrlFrom((*out)->ReadLine());
  }

  static bool SetTarget(const std::string& sim_url, const std::string& webhook_url) {
    CurlTransportOptions curl;
    curl.base_url = sim_url;
    auto t = CurlTransport::Create(curl);
    if (!t.ok()) return false;
    HttpCall call;
    call.method = "PUT";
    call.target = "/_sim/webhook-url";
    call.body = json::serialize(json::object{{"url", webhook_url}});
    auto reply = (*t)->Send(call);
    return reply.ok() && reply->status >= 200 && reply->status < 300;
  }

  Outcome Play(const std::string& name, std::vector<std::string> serve_args,
               std::string crash_after_call = "",
               std::function<bool(const std::vector<AuditEntry>&)> audit_until = nullptr) {
    const Options options{std::move(serve_args), std::move(crash_after_call),
                          std::move(audit_until)};
    Outcome out;
    // A name is one of tests/scenarios/NAME.json; a path (with a '/') is played as it is.
    const std::string scenario = name.find('/') != std::string::npos
                                     ? name
                                     : std::string(GATEHOUSE_SCENARIOS) + "/" + name + ".json";
    setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);
    std::vector<std::string> sim_argv = {GATEHOUSE_SIM_BIN,
                                         "run",
                                         scenario,
                                         "--listen",
                                         "127.0.0.1:0",
                                         "--wait-for-target",
                                         "--app-id",
                                         "4242",
                                         "--app-public-key",
                                         dir_.File("app.pub.pem"),
                                         "--mergeable-delay-ms",
                                         "200",
                                         "--log-level",
                                         "warn"};
    // Waiting on gatehouse's audit needs GitHub up meanwhile: the pass that shows it reads
    // the PR. The simulator keeps serving after its verdict until it is told to stop.
    const bool linger = static_cast<bool>(options.audit_until);
    if (linger) sim_argv.emplace_back("--linger");
    ChildProcess sim(sim_argv, dir_.File("sim.log"));
    const std::string sim_url = UrlFrom(sim.ReadLine());
    EXPECT_FALSE(sim_url.empty()) << ReadAll(dir_.File("sim.log"));
    if (sim_url.empty()) return out;

    std::unique_ptr<ChildProcess> serve;
    std::string webhook = StartServe(sim_url, options, /*with_fault=*/true, &serve);
    EXPECT_FALSE(webhook.empty()) << ReadAll(dir_.File("gatehouse.log"));
    if (webhook.empty()) return out;
    out.serves = 1;
    EXPECT_TRUE(SetTarget(sim_url, webhook));

    // With a crash fault, the first gatehouse dies by SIGKILL mid-scenario; a new one takes
    // over the same database (and the simulator is pointed at its new port).
    std::thread restarter;
    std::mutex mu;
    if (!options.crash_after_call.empty()) {
      restarter = std::thread([&] {
        const int code = serve->Wait();
        std::lock_guard<std::mutex> lock(mu);
        out.first_serve_exit = code;
        if (code != 128 + SIGKILL) return;
        std::unique_ptr<ChildProcess> next;
        std::string url = StartServe(sim_url, options, /*with_fault=*/false, &next);
        if (url.empty() || !SetTarget(sim_url, url)) return;
        serve = std::move(next);
        ++out.serves;
      });
    }
    for (std::string line = sim.ReadLine(); !line.empty(); line = sim.ReadLine()) {
      if (line.rfind("verdict:", 0) == 0) {
        out.verdict = line;
        if (linger) break;  // the verdict is its last line; it serves on until stopped
      }
    }
    if (!linger) out.sim_exit = sim.Wait();
    if (restarter.joinable()) {
      // The scenario is over: if the first gatehouse never crashed, stop it so the thread ends.
      {
        std::lock_guard<std::mutex> lock(mu);
        if (out.first_serve_exit < 0 && serve) serve->Signal(SIGTERM);
      }
      restarter.join();
    }
    if (serve && (options.crash_after_call.empty() || out.serves > 1)) {
      // The scenario is over on GitHub's side; let gatehouse finish with its inbox (the
      // webhooks of its own last actions, which the resolver may still be looking up) before
      // stopping it, so that "every delivery terminal" is checked at rest. gatehouse is another
      // process, seen only through the shared database file: poll it.
      if (auto live = OpenSqliteStore(dir_.File("g.db")); live.ok()) {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < give_up) {
          auto funnel = (*live)->inbox().GetFunnel();
          bool settled = funnel.ok() && funnel->in_flight == 0;
          if (settled && options.audit_until) {
            auto audit = (*live)->audit().ListAudit(kSubject, 0);
            settled = audit.ok() && options.audit_until(*audit);
          }
          if (settled) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      }
      serve->Signal(SIGTERM);
      EXPECT_EQ(serve->Wait(), 0);
    }
    if (linger) {
      sim.Signal(SIGTERM);
      out.sim_exit = sim.Wait();
    }
    out.logs = "--- simulator ---\n" + ReadAll(dir_.File("sim.log")) + "\n--- gatehouse ---\n" +
               ReadAll(dir_.File("gatehouse.log"));
    auto store = OpenSqliteStore(dir_.File("g.db"));
    EXPECT_TRUE(store.ok());
    if (!store.ok()) return out;
    out.store = std::move(store).value();
    if (auto a = out.store->ledger().ListActions(kSubject); a.ok()) out.actions = *a;
    if (auto a = out.store->audit().ListAudit(kSubject, 0); a.ok()) out.audit = *a;
    return out;
  }

  static int Count(const Outcome& o, const std::string& kind, ActionState state,
                   const std::string& head = "", int64_t occurrence = 0) {
    int n = 0;
    for (const auto& a : o.actions) {
      if (a.key.kind == kind && a.state == state && (head.empty() || a.key.head_sha == head) &&
          (occurrence == 0 || a.key.head_occurrence == occurrence)) {
        ++n;
      }
    }
    return n;
  }
  static int CountAudit(const Outcome& o, const std::string& kind, const std::string& text = "") {
    int n = 0;
    for (const auto& e : o.audit) {
      if (e.kind == kind && (text.empty() || e.summary.find(text) != std::string::npos)) ++n;
    }
    return n;
  }
  static void ExpectNothingDeadOrLost(const Outcome& o) {
    auto funnel = o.store->inbox().GetFunnel();
    ASSERT_TRUE(funnel.ok());
    EXPECT_EQ(funnel->in_flight, 0) << o.logs;
    EXPECT_EQ(funnel->dead, 0) << o.logs;
    auto dead = o.store->work().ListWorkItems(WorkFilter{WorkState::kDead, 100, ""});
    ASSERT_TRUE(dead.ok());
    EXPECT_TRUE(dead->empty());
  }

  testing::TempDir dir_;
};

#define EXPECT_VERDICT_OK(o)                                           \
  do {                                                                 \
    EXPECT_EQ((o).sim_exit, 0) << (o).verdict << "\n" << (o).logs;     \
    EXPECT_EQ((o).verdict.rfind("verdict: ok", 0), 0u) << (o).verdict; \
  } while (0)

}  // namespace gatehouse::serve_testing
