// Issue 5's end-to-end scenarios: `gatehouse-sim run SCENARIO` (real process, real HTTP, App
// JWTs verified against a fresh key) against `gatehouse serve` (real process, real SQLite
// file) acting as the App. The simulator plays tests/scenarios/NAME.json and checks its
// expectations on the effect log and on PR state (its verdict line must be `ok`); then this
// test opens gatehouse's database and checks the ledger, the audit log and the work items.
//
// Every scenario settles for 3 s after its expectations hold: long enough for gatehouse to
// resolve the webhooks of its own last actions (the resolver asks the simulator, which exits
// when the scenario ends), so that "every delivery terminal" is checked at rest.
//
// Both sides bind port 0: the simulator starts first and waits (--wait-for-target) until the
// test tells it gatehouse's webhook URL, which gatehouse prints once it listens with the
// simulator's URL as its GitHub API.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
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

namespace gatehouse {
namespace {

namespace json = boost::json;

constexpr char kSecret[] = "decide-act-e2e-secret";
constexpr char kSubject[] = "acme/app#1";

std::string UrlFrom(const std::string& line) {
  const size_t at = line.find("http://");
  return at == std::string::npos ? "" : line.substr(at);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Options {
  std::vector<std::string> serve_args;  // beyond the common ones
  std::string crash_after_call;         // GATEHOUSE_FAULT_CRASH_AFTER_CALL for the first serve
  // When set, gatehouse is kept running after the scenario until its audit satisfies this
  // (or 30 s pass): for what only a later pass can show — a decision that waited for a
  // mergeability recheck, say — which the simulator cannot observe when nothing is called.
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

class DecideActE2eTest : public ::testing::Test {
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
    ChildProcess sim(
        {GATEHOUSE_SIM_BIN, "run", scenario, "--listen", "127.0.0.1:0", "--wait-for-target",
         "--app-id", "4242", "--app-public-key", dir_.File("app.pub.pem"), "--mergeable-delay-ms",
         "200", "--log-level", "warn"},
        dir_.File("sim.log"));
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
      if (line.rfind("verdict:", 0) == 0) out.verdict = line;
    }
    out.sim_exit = sim.Wait();
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

const std::string kA(40, 'a');
const std::string kB(40, 'b');

#define EXPECT_VERDICT_OK(o)                                           \
  do {                                                                 \
    EXPECT_EQ((o).sim_exit, 0) << (o).verdict << "\n" << (o).logs;     \
    EXPECT_EQ((o).verdict.rfind("verdict: ok", 0), 0u) << (o).verdict; \
  } while (0)

// 1. CI completion, a push and sweeps at the same instant: one merge, at the newest head.
TEST_F(DecideActE2eTest, SameInstantSignalsMergeOnceAtTheNewestHead) {
  Outcome o = Play("same_instant", {"--debounce-ms", "200", "--sweep-interval-seconds", "1"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kB), 1);
  ExpectNothingDeadOrLost(o);
}

// 2. A push lands between the decision and the merge: 409, superseded, a fresh pass merges
//    the new head.
TEST_F(DecideActE2eTest, AStalePlanIsSupersededAndANewPassDecidesOnTheNewHead) {
  Outcome o = Play("stale_plan", {"--debounce-ms", "200", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kSuperseded, kA), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kA), 0);
  EXPECT_GE(CountAudit(o, "superseded"), 1);
  ExpectNothingDeadOrLost(o);
}

// 3. gatehouse's own approval comes back as a webhook while it works: one approval, one merge,
//    no close.
TEST_F(DecideActE2eTest, OwnApprovalWebhookCausesNoConflictingAction) {
  Outcome o = Play("own_approval", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "close", ActionState::kDone), 0);
  ExpectNothingDeadOrLost(o);
}

// 4. kill -9 between the merge call and its ledger record: after the restart the open intent
//    is reconciled against GitHub and nothing happens twice.
TEST_F(DecideActE2eTest, KillBetweenCallAndRecordIsReconciledWithoutASecondEffect) {
  Outcome o =
      Play("crash_reconcile", {"--debounce-ms", "100", "--sweep-interval-seconds", "1"}, "merge");
  EXPECT_VERDICT_OK(o);
  EXPECT_EQ(o.first_serve_exit, 128 + SIGKILL);
  EXPECT_EQ(o.serves, 2);
  ASSERT_TRUE(o.store);
  ASSERT_EQ(Count(o, "merge", ActionState::kDone), 1) << o.logs;
  for (const auto& a : o.actions) {
    if (a.key.kind == "merge") {
      EXPECT_NE(a.result.find("reconciled"), std::string::npos);
    }
  }
  EXPECT_GE(CountAudit(o, "reconciled"), 1);
  ExpectNothingDeadOrLost(o);
}

// 5. 100 signals within one second: at most 3 passes, and the last saw the final state.
TEST_F(DecideActE2eTest, HundredSignalsInASecondAreAFewPassesAndTheLastSawEverything) {
  Outcome o = Play("signal_storm", {"--debounce-ms", "1000", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  int storm_passes = 0;
  int64_t last_statuses = -1;
  for (const auto& e : o.audit) {
    if (e.kind != "verdict") continue;
    boost::system::error_code ec;
    json::value detail = json::parse(e.detail, ec);
    ASSERT_FALSE(ec) << e.detail;
    const int64_t statuses = detail.at("statuses").to_number<int64_t>();
    if (statuses > 0) ++storm_passes;
    last_statuses = statuses;
  }
  EXPECT_GE(storm_passes, 1);
  EXPECT_LE(storm_passes, 3);
  EXPECT_EQ(last_statuses, 100);
  ExpectNothingDeadOrLost(o);
}

// 6a. Turned draft while pending closure: closed anyway.
TEST_F(DecideActE2eTest, DraftDodgeIsClosed) {
  Outcome o = Play("draft_dodge", {"--debounce-ms", "100", "--sweep-interval-seconds", "1"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "label", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "draft_dodge_close", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "close", ActionState::kDone), 0);
  ExpectNothingDeadOrLost(o);
}

// 6b. Closed by gatehouse after the grace, reopened by its author: closed again.
TEST_F(DecideActE2eTest, ReopenByTheAuthorIsReclosed) {
  Outcome o = Play("reopen_reclose", {"--debounce-ms", "100", "--sweep-interval-seconds", "1"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "close", ActionState::kDone), 1);
  EXPECT_EQ(Count(o, "reopen_reclose", ActionState::kDone), 1);
  ExpectNothingDeadOrLost(o);
}

// 7. A secondary rate limit with Retry-After: gatehouse waits, uses no attempt, nothing dies,
//    and the merge happens after the wait.
TEST_F(DecideActE2eTest, SecondaryRateLimitWaitsWithoutConsumingAnAttempt) {
  Outcome o =
      Play("secondary_rate_limit", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  EXPECT_GE(CountAudit(o, "error", "rate"), 1) << o.logs;
  auto item = o.store->work().GetWorkItem(kSubject);
  ASSERT_TRUE(item.ok());
  ASSERT_TRUE(item->has_value());
  EXPECT_EQ((*item)->attempts, 0);
  EXPECT_EQ((*item)->state, WorkState::kIdle);
  ExpectNothingDeadOrLost(o);
}

// 8a. observe (the default autonomy): everything is planned and audited, nothing is called.
TEST_F(DecideActE2eTest, ObserveMakesNoMutatingCall) {
  Outcome o = Play("observe", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_TRUE(o.actions.empty());
  EXPECT_GE(CountAudit(o, "verdict"), 1);
  EXPECT_GE(CountAudit(o, "skipped", "observe"), 1);
  ExpectNothingDeadOrLost(o);
}

// 8b. --dry-run overrides a repository on `auto`: nothing is called.
TEST_F(DecideActE2eTest, DryRunMakesNoMutatingCall) {
  // The pass that plans the merge may come from the mergeability recheck (3 s after a pass
  // that saw `mergeable` still null), later than the simulator's settle: wait for it.
  Outcome o =
      Play("dry_run", {"--debounce-ms", "100", "--sweep-interval-seconds", "0", "--dry-run"}, "",
           [](const std::vector<AuditEntry>& audit) {
             return std::any_of(audit.begin(), audit.end(), [](const AuditEntry& e) {
               return e.kind == "skipped" && e.summary.find("merge") != std::string::npos;
             });
           });
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_TRUE(o.actions.empty());
  EXPECT_GE(CountAudit(o, "skipped", "dry-run"), 1);
  EXPECT_GE(CountAudit(o, "skipped", "merge"), 1) << o.logs;
  ExpectNothingDeadOrLost(o);
}

// Issue 9: a head that comes back is decided afresh.

// 9a. The merge of A is superseded (X pushed just before it), then B, then a force-push back to
//     A: A is merged once, on its second occurrence, and the summary speaks of A.
TEST_F(DecideActE2eTest, AHeadThatComesBackAfterASupersededMergeIsMerged) {
  Outcome o = Play("return_after_superseded_merge",
                   {"--debounce-ms", "200", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kSuperseded, kA, 1), 1) << o.logs;
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kA, 2), 1) << o.logs;
  EXPECT_EQ(Count(o, "merge", ActionState::kDone), 1);
  ExpectNothingDeadOrLost(o);
}

// 9b. The ready-to-merge label removed on the intermediate head is put back on A; gatehouse's
//     approval of A still stands, so it is not given again.
TEST_F(DecideActE2eTest, ALabelRemovedOnTheIntermediateHeadIsPutBackWhenTheHeadReturns) {
  Outcome o =
      Play("return_label_removed", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "label", ActionState::kDone, kA, 1), 1);
  EXPECT_EQ(Count(o, "label", ActionState::kDone, kA, 2), 1) << o.logs;
  EXPECT_EQ(Count(o, "approve", ActionState::kDone), 1);
  ExpectNothingDeadOrLost(o);
}

// 9c. GitHub dismissed gatehouse's approval of A when X was pushed: back on A it approves again.
TEST_F(DecideActE2eTest, ADismissedApprovalIsGivenAgainWhenTheHeadReturns) {
  Outcome o = Play("return_after_dismissed_approval",
                   {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone, kA, 1), 1);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone, kA, 2), 1) << o.logs;
  ExpectNothingDeadOrLost(o);
}

// 9d. No pass sees X (its synchronize webhook is lost, the dismissals arrive late): the webhook of
//     the push back to A reports a push after gatehouse decided on A, so A is a new occurrence.
TEST_F(DecideActE2eTest, APushNoPassSawIsLearnedFromTheWebhookOfThePushBack) {
  Outcome o = Play("return_unseen_head", {"--debounce-ms", "100", "--sweep-interval-seconds", "0"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "approve", ActionState::kDone, kA, 2), 1) << o.logs;
  for (const auto& e : o.audit) {
    EXPECT_NE(e.head_sha, std::string(40, 'e')) << "a pass saw X: " << e.summary;
  }
  ExpectNothingDeadOrLost(o);
}

// 9e. The simulator's example of a late webhook and a force-push back (sim/scenarios/), played
//     as documented: the server's defaults on `auto`, no policy file. The first merge call gets a
//     502 (the intent stays open and is reconciled); A is merged once.
TEST_F(DecideActE2eTest, TheSimulatorsLateWebhookExampleMergesOnce) {
  Outcome o = Play(std::string(GATEHOUSE_SIM_SCENARIOS) + "/late_webhook_force_push.json",
                   {"--debounce-ms", "100", "--sweep-interval-seconds", "0", "--autonomy", "auto"});
  EXPECT_VERDICT_OK(o);
  ASSERT_TRUE(o.store);
  EXPECT_EQ(Count(o, "merge", ActionState::kDone, kA), 1) << o.logs;
  ExpectNothingDeadOrLost(o);
}

}  // namespace
}  // namespace gatehouse
