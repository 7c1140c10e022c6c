// gatehouse demo: the whole product on one machine, in about a minute.
//
// Starts `gatehouse-sim serve` (a GitHub simulator) and `gatehouse serve` (this binary, as a
// child process, on a fresh SQLite file in a new directory), wires them to each other with a
// real GitHub App key pair and a webhook secret, plays the built-in world (app/demo_world.h:
// several repositories, dozens of PRs, CI storms, pushes in the middle of decisions, reviews,
// a draft-dodge and a reopen; duplicated and reordered webhooks) with a live progress line,
// waits until gatehouse is quiet, then prints what happened and checks the invariants from
// the simulator's effect log and gatehouse's own database:
//   - no action twice       (no two accepted App effects with the same kind, PR, SHA, detail)
//   - nothing on a stale head (no accepted SHA-bound App effect whose SHA was not the head)
//   - every delivery terminal (nothing accepted is left in flight or dead)
//   - every PR ended where its story says (merged, closed, or left open)
// The last line is machine-readable: `verdict: ok|FAIL deliveries= passes= actions=
// duplicate_effects= stale_effects= lost=`. Exit status 0 only for `verdict: ok`.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/commands.h"
#include "app/common.h"
#include "app/demo_world.h"
#include "app/flags.h"
#include "base/child_process.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/transport.h"
#include "store/sqlite/sqlite_store.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

constexpr const char kDemoUsage[] = R"(Usage: gatehouse demo [options]

Runs gatehouse end to end against a GitHub simulator on this machine: starts gatehouse-sim and
gatehouse serve on a fresh SQLite file, plays a built-in scenario (three repositories, dozens
of pull requests, CI storms, pushes in the middle of decisions, reviews, a draft-dodge and a
reopen, duplicated and reordered webhooks), shows a live progress line, and ends with a table
of deliveries, passes and actions and the invariant verdict. The last line is
machine-readable:
  verdict: ok|FAIL deliveries=N passes=N actions=N duplicate_effects=N stale_effects=N lost=N
Exit status 0 only for `verdict: ok`.

Options:
  --dir DIR          where the database, keys and logs go (default: a new directory
                     /tmp/gatehouse-demo.XXXXXX; kept afterwards for inspection)
  --prs N            pull requests per repository (default 12; 3 repositories)
  --seed N           randomness of the CI storms (default 1)
  --sim PATH         the gatehouse-sim binary (default: next to this binary)
  --timeout-seconds S
                     give up waiting for gatehouse to settle after S seconds (default 120)
  -h, --help         this text
)";

constexpr char kSecret[] = "gatehouse-demo-webhook-secret";
constexpr int64_t kAppId = 4242;
// The App's slug in the simulator: gatehouse must discover its login (GET /app) to find and
// edit its one summary comment per PR.
constexpr char kAppSlug[] = "gatehouse-demo";

// ---- small helpers ----

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

// A fresh 2048-bit RSA key pair as PEM (private PKCS#8, public SPKI).
bool MakeAppKeys(std::string* private_pem, std::string* public_pem) {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  if (key == nullptr) return false;
  auto to_pem = [key](bool priv) {
    BIO* bio = BIO_new(BIO_s_mem());
    if (priv) {
      PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    } else {
      PEM_write_bio_PUBKEY(bio, key);
    }
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);  // NOLINT(google-runtime-int): OpenSSL's type
    std::string pem(data, static_cast<size_t>(len));
    BIO_free(bio);
    return pem;
  };
  *private_pem = to_pem(true);
  *public_pem = to_pem(false);
  EVP_PKEY_free(key);
  return !private_pem->empty() && !public_pem->empty();
}

std::string UrlFromLine(const std::string& line) {
  const size_t at = line.find("http://");
  return at == std::string::npos ? "" : line.substr(at);
}

// The simulator's control API over loopback.
class Control {
 public:
  explicit Control(std::unique_ptr<CurlTransport> transport) : t_(std::move(transport)) {}
  // The reply status (0 when no reply) and body.
  std::pair<int, std::string> Call(const std::string& method, const std::string& target,
                                   const std::string& body = "") {
    HttpCall call;
    call.method = method;
    call.target = target;
    call.body = body;
    auto reply = t_->Send(call);
    if (!reply.ok()) return {0, reply.status().ToString()};
    return {reply->status, reply->body};
  }
  json::value GetJson(const std::string& target) {
    auto [status, body] = Call("GET", target);
    boost::system::error_code ec;
    json::value v = status == 200 ? json::parse(body, ec) : json::value();
    return ec ? json::value() : v;
  }

 private:
  std::unique_ptr<CurlTransport> t_;
};

std::string Str(const json::value& v, std::string_view key) {
  const json::object* o = v.if_object();
  if (o == nullptr) return "";
  const json::value* f = o->if_contains(key);
  return f != nullptr && f->is_string() ? std::string(f->as_string()) : "";
}
int64_t Int(const json::value& v, std::string_view key) {
  const json::object* o = v.if_object();
  if (o == nullptr) return 0;
  const json::value* f = o->if_contains(key);
  return f != nullptr && f->is_int64() ? f->as_int64() : 0;
}

// A PR as the simulator's state shows it.
struct PrView {
  std::string state;  // open, closed, merged
  std::string head;
  std::set<std::string> labels;
};

// The simulator's world, refreshed by one poller thread for every script that waits.
class WorldView {
 public:
  void Update(const json::value& state) {
    std::map<std::string, PrView> prs;
    if (const json::object* root = state.if_object()) {
      if (const json::value* repos = root->if_contains("repos"); repos && repos->is_array()) {
        for (const json::value& repo : repos->as_array()) {
          const std::string full = Str(repo, "full_name");
          const json::value* pulls = repo.as_object().if_contains("pulls");
          if (pulls == nullptr || !pulls->is_array()) continue;
          for (const json::value& p : pulls->as_array()) {
            PrView view;
            const json::value* merged = p.as_object().if_contains("merged");
            view.state =
                merged && merged->is_bool() && merged->as_bool() ? "merged" : Str(p, "state");
            if (const json::value* head = p.as_object().if_contains("head")) {
              view.head = Str(*head, "sha");
            }
            if (const json::value* labels = p.as_object().if_contains("labels");
                labels && labels->is_array()) {
              for (const json::value& l : labels->as_array()) view.labels.insert(Str(l, "name"));
            }
            prs[full + "#" + std::to_string(Int(p, "number"))] = std::move(view);
          }
        }
      }
    }
    MutexLock lock(&mu_);
    prs_ = std::move(prs);
    cv_.SignalAll();
  }
  // Waits until the PR is in `state` (and carries `label`, if any), or the deadline (real
  // time: the world is another process's).
  bool WaitFor(const std::string& key, const std::string& state, const std::string& label,
               Steady::time_point deadline) {
    MutexLock lock(&mu_);
    auto reached = [&]() REQUIRES(mu_) {
      auto it = prs_.find(key);
      return it != prs_.end() && it->second.state == state &&
             (label.empty() || it->second.labels.count(label) > 0);
    };
    while (!reached()) {
      if (!cv_.WaitUntil(&mu_, deadline)) return reached();
    }
    return true;
  }
  std::map<std::string, PrView> Snapshot() {
    MutexLock lock(&mu_);
    return prs_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  std::map<std::string, PrView> prs_ GUARDED_BY(mu_);
};

struct Invariants {
  int64_t duplicate_effects = 0;
  int64_t stale_effects = 0;
  std::vector<std::string> problems;
  std::map<std::string, int64_t> app_effects;  // accepted App effects by kind
  int64_t superseded = 0;                      // App calls refused with 405/409/422
};

// Checks the effect log: every accepted App effect once per (kind, PR, SHA, detail) for the
// kinds that must never repeat, and every SHA-bound accepted App effect on the head of its
// moment.
Invariants CheckEffects(const json::value& effects) {
  Invariants inv;
  std::set<std::string> seen;
  std::map<std::string, int> reopens;  // per PR: a close after a reopen is a new close
  if (!effects.is_array()) {
    inv.problems.push_back("could not read the simulator's effect log");
    return inv;
  }
  for (const json::value& e : effects.as_array()) {
    const int64_t status = Int(e, "status");
    const std::string kind = Str(e, "kind");
    if (kind == "reopen" && status >= 200 && status < 300) {
      ++reopens[Str(e, "repo") + "#" + std::to_string(Int(e, "number"))];
    }
    if (Str(e, "who").rfind("installation:", 0) != 0) continue;
    if (status == 405 || status == 409 || status == 422) ++inv.superseded;
    if (status < 200 || status >= 300) continue;
    ++inv.app_effects[kind];
    const std::string sha = Str(e, "sha");
    const std::string head = Str(e, "head");
    const std::string where = Str(e, "repo") + "#" + std::to_string(Int(e, "number"));
    if (!sha.empty() && !head.empty() && sha != head) {
      ++inv.stale_effects;
      inv.problems.push_back(kind + " on " + where + " at " + sha.substr(0, 7) +
                             " while the head was " + head.substr(0, 7));
    }
    if (kind == "merge" || kind == "review" || kind == "close" || kind == "update_branch") {
      const std::string key = kind + "|" + where + "|" + sha + "|" + Str(e, "detail") + "|" +
                              std::to_string(kind == "close" ? reopens[where] : 0);
      if (!seen.insert(key).second) {
        ++inv.duplicate_effects;
        inv.problems.push_back("second " + kind + " on " + where + " at " + sha.substr(0, 7));
      }
    }
  }
  return inv;
}

}  // namespace

int RunDemo(int argc, char** argv) {
  Flags flags({"dir", "prs", "seed", "sim", "timeout-seconds"}, {});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("demo",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kDemoUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kDemoUsage, stdout);
    return kExitOk;
  }
  auto prs_per_repo = flags.GetInt("prs", 12, 1, 200);
  auto seed = flags.GetInt("seed", 1, 0, INT64_MAX);
  auto timeout_s = flags.GetInt("timeout-seconds", 120, 5, 3600);
  for (const auto* r : {&prs_per_repo, &seed, &timeout_s}) {
    if (!r->ok()) {
      PrintError("demo", r->status().message());
      return kExitUsage;
    }
  }

  // Where everything goes.
  std::string dir = flags.Get("dir", "");
  if (dir.empty()) {
    char tmpl[] = "/tmp/gatehouse-demo.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      PrintError("demo", "cannot create a directory under /tmp");
      return kExitFailure;
    }
    dir = tmpl;
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (fs::exists(dir + "/gatehouse.db")) {
      PrintError("demo", dir + "/gatehouse.db exists; the demo needs a fresh database");
      return kExitUsage;
    }
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string sim_bin =
      flags.Get("sim", (fs::path(self).parent_path() / "gatehouse-sim").string());
  if (::access(sim_bin.c_str(), X_OK) != 0) {
    PrintError("demo", "cannot run the simulator at " + sim_bin + " (build it, or pass --sim)");
    return kExitFailure;
  }

  std::string private_pem, public_pem;
  if (!MakeAppKeys(&private_pem, &public_pem) ||
      !WriteFile(dir + "/app.private-key.pem", private_pem) ||
      !WriteFile(dir + "/app.public-key.pem", public_pem)) {
    PrintError("demo", "cannot create the App key pair in " + dir);
    return kExitFailure;
  }
  ::chmod((dir + "/app.private-key.pem").c_str(), 0600);
  std::printf("gatehouse demo: working in %s (database, keys, logs)\n", dir.c_str());

  // 1. The simulator, with the App's public key and no webhook target yet.
  setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);
  ChildProcess sim({sim_bin, "serve", "--listen", "127.0.0.1:0", "--app-id", std::to_string(kAppId),
                    "--app-public-key", dir + "/app.public-key.pem", "--app-slug", kAppSlug,
                    "--mergeable-delay-ms", "300", "--log-level", "warn"},
                   dir + "/gatehouse-sim.log");
  const std::string sim_url = sim.ok() ? UrlFromLine(sim.ReadLine()) : "";
  if (sim_url.empty()) {
    PrintError("demo", "gatehouse-sim did not start; see " + dir + "/gatehouse-sim.log");
    return kExitFailure;
  }

  // 2. gatehouse, as the App, against the simulator's REST API.
  setenv("GATEHOUSE_GITHUB_APP_ID", std::to_string(kAppId).c_str(), 1);
  setenv("GATEHOUSE_GITHUB_PRIVATE_KEY_FILE", (dir + "/app.private-key.pem").c_str(), 1);
  setenv("GATEHOUSE_GITHUB_API_URL", sim_url.c_str(), 1);
  unsetenv("GATEHOUSE_GITHUB_TOKEN");
  unsetenv("GATEHOUSE_GITHUB_TOKEN_FILE");
  unsetenv("GATEHOUSE_GITHUB_PRIVATE_KEY");
  ChildProcess serve({self, "serve", "--db", dir + "/gatehouse.db", "--listen", "127.0.0.1:0",
                      "--debounce-ms", "300", "--workers", "4", "--sweep-interval-seconds", "4",
                      "--resolve-interval-seconds", "2", "--log-level", "warn"},
                     dir + "/gatehouse.log");
  const std::string webhook_url = serve.ok() ? UrlFromLine(serve.ReadLine()) : "";
  if (webhook_url.empty()) {
    PrintError("demo", "gatehouse serve did not start; see " + dir + "/gatehouse.log");
    return kExitFailure;
  }
  std::printf("gatehouse demo: gatehouse-sim on %s, gatehouse on %s\n", sim_url.c_str(),
              webhook_url.c_str());
  std::fflush(stdout);

  CurlTransportOptions curl;
  curl.base_url = sim_url;
  auto transport = CurlTransport::Create(curl);
  if (!transport.ok()) {
    PrintError("demo", transport.status().ToString());
    return kExitFailure;
  }
  Control control(std::move(transport).value());
  std::atomic<int> step_failures{0};
  Mutex problems_mu;
  std::vector<std::string> problems;  // appended under problems_mu while threads run
  auto problem = [&](const std::string& text) {
    MutexLock lock(&problems_mu);
    problems.push_back(text);
  };
  auto must = [&](const std::string& method, const std::string& target, const std::string& body) {
    auto [status, reply] = control.Call(method, target, body);
    if (status < 200 || status >= 300) {
      ++step_failures;
      problem(method + " " + target + " -> " + std::to_string(status) + " " + reply.substr(0, 200));
      return false;
    }
    return true;
  };

  // 3. The world: repositories with their policy files, faults, then every PR in order.
  const DemoWorld world =
      BuildDemoWorld(static_cast<int>(*prs_per_repo), static_cast<uint64_t>(*seed));
  must("PUT", "/_sim/webhook-url", json::serialize(json::object{{"url", webhook_url}}));
  for (const DemoRepo& r : world.repos) {
    json::object files{{".github/gatehouse.yml", r.policy_yaml}};
    must("POST", "/_sim/repos",
         json::serialize(json::object{{"owner", r.owner},
                                      {"name", r.name},
                                      {"installation_id", r.installation_id},
                                      {"files", std::move(files)}}));
  }
  must("PUT", "/_sim/faults", world.faults_json);
  for (const DemoPr& pr : world.prs) {
    const DemoStep& create = pr.steps.front();
    must(create.call.substr(0, create.call.find(' ')),
         create.call.substr(create.call.find(' ') + 1), create.body);
  }

  // 4. Every PR's script on its own thread; one poller keeps the world view fresh.
  WorldView view;
  std::atomic<bool> stop_polling{false};
  // The poller also plays the repositories' CI for heads no script knows (the pushes GitHub
  // saw land just before a merge): green `ci` and `lint`, as a CI system would.
  std::set<std::string> scripted_heads;
  for (const DemoPr& pr : world.prs) scripted_heads.insert(pr.heads.begin(), pr.heads.end());
  std::atomic<int> ci_bot_runs{0};
  std::thread poller([&] {
    std::set<std::string> built;
    while (!stop_polling.load()) {
      view.Update(control.GetJson("/_sim/state"));
      for (const auto& [key, pr] : view.Snapshot()) {
        if (pr.state != "open" || pr.head.empty() || scripted_heads.count(pr.head) ||
            !built.insert(pr.head).second) {
          continue;
        }
        const std::string repo = key.substr(0, key.find('#'));
        for (const char* check : {"ci", "lint"}) {
          must("POST", "/_sim/repos/" + repo + "/check-runs",
               json::serialize(json::object{
                   {"head_sha", pr.head}, {"name", check}, {"conclusion", "success"}}));
        }
        ++ci_bot_runs;
      }
      // Real time: the world is the simulator process's, seen only by polling it.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  const auto play_start = Steady::now();
  const auto deadline = play_start + std::chrono::seconds(*timeout_s);
  std::atomic<int> scripts_done{0};
  std::vector<std::thread> scripts;
  for (const DemoPr& pr : world.prs) {
    scripts.emplace_back([&, &pr = pr] {
      auto base = play_start;
      int64_t offset = 0;
      for (size_t i = 1; i < pr.steps.size(); ++i) {
        const DemoStep& step = pr.steps[i];
        if (!step.wait_state.empty()) {
          const std::string key = pr.repo + "#" + std::to_string(pr.number);
          if (!view.WaitFor(key, step.wait_state, step.wait_label, deadline)) {
            problem(key + ": gatehouse never brought it to " + step.wait_state +
                    (step.wait_label.empty() ? "" : " with label " + step.wait_label));
            break;
          }
          base = Steady::now();
          offset = 0;
          continue;
        }
        offset += step.at_ms;
        // Real time: the story paces its steps against two real processes.
        std::this_thread::sleep_until(base + std::chrono::milliseconds(offset));
        const size_t sp = step.call.find(' ');
        auto [status, reply] =
            control.Call(step.call.substr(0, sp), step.call.substr(sp + 1), step.body);
        if (status < 200 || status >= 300) {
          // A push that arrives after the merge is a race the story allows; anything else
          // is a broken step.
          if (step.call.ends_with("/push") && status == 422) continue;
          ++step_failures;
          problem(step.call + " -> " + std::to_string(status) + " " + reply.substr(0, 200));
        }
      }
      ++scripts_done;
    });
  }

  // 5. Progress until the scripts are done and gatehouse is quiet.
  auto store = OpenSqliteStore(dir + "/gatehouse.db");
  if (!store.ok()) {
    PrintError("demo", store.status().ToString());
    stop_polling = true;
    poller.join();
    for (auto& t : scripts) t.join();
    return kExitFailure;
  }
  int64_t last_effects = -1;
  int quiet_polls = 0;
  bool settled = false;
  const bool tty = ::isatty(2) != 0;
  int progress_ticks = 0;
  Funnel funnel;
  Counters counters;
  while (Steady::now() < deadline) {
    // Real time: progress of two real processes, seen by polling their state.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto f = (*store)->GetFunnel();
    auto c = (*store)->GetCounters();
    auto busy = (*store)->ListWorkItems(WorkFilter{});
    json::value effects = control.GetJson("/_sim/effects");
    const int64_t n_effects =
        effects.is_array() ? static_cast<int64_t>(effects.as_array().size()) : 0;
    if (f.ok()) funnel = *f;
    if (c.ok()) counters = *c;
    // Active: a PR with a pass to come for something other than the periodic sweep (which
    // keeps revisiting every open PR and, on a settled world, changes nothing).
    int64_t active = 0;
    if (busy.ok()) {
      for (const WorkItem& w : *busy) {
        if (w.state != WorkState::kRunning && w.state != WorkState::kPending) continue;
        const auto& why = w.state == WorkState::kRunning ? w.claimed_reasons : w.reasons;
        const bool sweep_only = std::all_of(why.begin(), why.end(), [](const std::string& r) {
          return r == "swept" || r == "timer";
        });
        if (!sweep_only || why.empty()) ++active;
      }
    }
    const double secs = std::chrono::duration<double>(Steady::now() - play_start).count();
    char line[256];
    std::snprintf(line, sizeof(line),
                  "[%5.1fs] scripts %d/%zu  webhooks %lld (in flight %lld)  passes %lld  "
                  "active PRs %lld  GitHub effects %lld",
                  secs, scripts_done.load(), world.prs.size(),
                  static_cast<long long>(funnel.received), static_cast<long long>(funnel.in_flight),
                  static_cast<long long>(counters["work.passes_completed"]),
                  static_cast<long long>(active), static_cast<long long>(n_effects));
    // A live line on a terminal; one line every two seconds in a log.
    if (tty) {
      std::fprintf(stderr, "\r%s   ", line);
    } else if (progress_ticks++ % 4 == 0) {
      std::fprintf(stderr, "%s\n", line);
    }
    const bool quiet = scripts_done.load() == static_cast<int>(world.prs.size()) &&
                       funnel.in_flight == 0 && active == 0 && n_effects == last_effects;
    quiet_polls = quiet ? quiet_polls + 1 : 0;
    last_effects = n_effects;
    if (quiet_polls >= 4) {
      settled = true;
      break;
    }
  }
  if (tty) std::fprintf(stderr, "\n");
  stop_polling = true;
  poller.join();
  for (auto& t : scripts) t.join();
  view.Update(control.GetJson("/_sim/state"));
  const json::value effects = control.GetJson("/_sim/effects");
  const json::value sim_state = control.GetJson("/_sim/state");

  // 6. Stop both, gatehouse first (it finishes its passes), then read its database.
  serve.Signal(SIGTERM);
  const int serve_exit = serve.Wait();
  sim.Signal(SIGTERM);
  sim.Wait();
  if (auto f = (*store)->GetFunnel(); f.ok()) funnel = *f;
  if (auto c = (*store)->GetCounters(); c.ok()) counters = *c;

  // Ledger: what gatehouse did, by kind.
  std::map<std::string, int64_t> done_by_kind;
  int64_t actions = 0, superseded_rows = 0, open_intents = 0, dead_items = 0;
  if (auto items = (*store)->ListWorkItems(WorkFilter{std::nullopt, 100000}); items.ok()) {
    for (const WorkItem& w : *items) {
      if (w.state == WorkState::kDead) {
        ++dead_items;
        problem(w.key + ": work item dead (" + w.last_error + ")");
      }
      auto rows = (*store)->ListActions(w.key);
      if (!rows.ok()) continue;
      for (const ActionRecord& a : *rows) {
        if (a.state == ActionState::kDone) {
          ++actions;
          ++done_by_kind[a.key.kind];
        } else if (a.state == ActionState::kSuperseded) {
          ++superseded_rows;
        } else if (a.state == ActionState::kIntent) {
          ++open_intents;
        }
      }
    }
  }

  Invariants inv = CheckEffects(effects);
  const int64_t lost = funnel.in_flight + funnel.dead;
  std::map<std::string, int> outcome_ok, outcome_total;
  const auto final_view = view.Snapshot();
  for (const DemoPr& pr : world.prs) {
    const std::string key = pr.repo + "#" + std::to_string(pr.number);
    auto it = final_view.find(key);
    const std::string got = it == final_view.end() ? "missing" : it->second.state;
    ++outcome_total[pr.expected_state];
    bool acted = pr.expected_action.empty();
    if (!acted) {
      // The story's own action, not just its end state: a draft-dodge PR must have been
      // closed as a draft-dodge, not by the grace-period rule.
      auto rows = (*store)->ListActions(key);
      acted = rows.ok() && std::any_of(rows->begin(), rows->end(), [&](const ActionRecord& a) {
                return a.key.kind == pr.expected_action && a.state == ActionState::kDone;
              });
    }
    if (got == pr.expected_state && acted) {
      ++outcome_ok[pr.expected_state];
    } else {
      problem(key + " (" + pr.story + "): expected " + pr.expected_state +
              (pr.expected_action.empty() ? "" : " by " + pr.expected_action) + ", got " + got +
              (acted ? "" : " without it"));
    }
  }
  // One summary comment per PR, edited in place: a second one is a duplicate effect.
  const std::string app_login = std::string(kAppSlug) + "[bot]";
  if (const json::object* root = sim_state.if_object()) {
    if (const json::value* repos = root->if_contains("repos"); repos && repos->is_array()) {
      for (const json::value& repo : repos->as_array()) {
        const json::value* pulls = repo.as_object().if_contains("pulls");
        if (pulls == nullptr || !pulls->is_array()) continue;
        for (const json::value& p : pulls->as_array()) {
          const json::value* comments = p.as_object().if_contains("comments");
          if (comments == nullptr || !comments->is_array()) continue;
          int64_t ours = 0;
          for (const json::value& c : comments->as_array()) {
            const json::value* user = c.as_object().if_contains("user");
            if (user != nullptr && Str(*user, "login") == app_login) ++ours;
          }
          if (ours > 1) {
            inv.duplicate_effects += ours - 1;
            inv.problems.push_back(Str(repo, "full_name") + "#" + std::to_string(Int(p, "number")) +
                                   ": " + std::to_string(ours) + " summary comments by " +
                                   app_login);
          }
        }
      }
    }
  }

  // 7. The report.
  const int64_t passes = counters["work.passes_completed"];
  std::printf(
      "\n%-28s %lld (unique; %lld duplicates answered 200, %lld refused)\n",
      "webhook deliveries accepted",
      static_cast<long long>(funnel.routed + funnel.ignored + funnel.in_flight + funnel.dead),
      static_cast<long long>(funnel.duplicate), static_cast<long long>(funnel.rejected));
  std::printf("%-28s routed %lld, ignored %lld, in flight %lld, dead %lld\n", "  of which",
              static_cast<long long>(funnel.routed), static_cast<long long>(funnel.ignored),
              static_cast<long long>(funnel.in_flight), static_cast<long long>(funnel.dead));
  std::printf("%-28s %lld (dead work items: %lld)\n", "passes", static_cast<long long>(passes),
              static_cast<long long>(dead_items));
  std::printf("%-28s %lld done", "actions (ledger)", static_cast<long long>(actions));
  for (const auto& [kind, n] : done_by_kind)
    std::printf(", %s %lld", kind.c_str(), static_cast<long long>(n));
  std::printf(
      "\n%-28s %lld superseded (GitHub refused a stale head: a push landed first; the\n"
      "%-28s CI bot built %d new heads), %lld open intents\n",
      "", static_cast<long long>(superseded_rows), "", ci_bot_runs.load(),
      static_cast<long long>(open_intents));
  std::printf("%-28s", "pull requests");
  for (const auto& [state, total] : outcome_total) {
    std::printf(" %s %d/%d", state.c_str(), outcome_ok[state], total);
  }
  std::printf("\n\ninvariants\n");
  std::printf("  %-26s %s (%lld duplicate effects)\n", "no action twice",
              inv.duplicate_effects == 0 ? "ok" : "FAIL",
              static_cast<long long>(inv.duplicate_effects));
  std::printf("  %-26s %s (%lld stale effects)\n", "nothing on a stale head",
              inv.stale_effects == 0 ? "ok" : "FAIL", static_cast<long long>(inv.stale_effects));
  std::printf("  %-26s %s (%lld lost)\n", "every delivery terminal", lost == 0 ? "ok" : "FAIL",
              static_cast<long long>(lost));
  for (const std::string& p : inv.problems) problems.push_back(p);
  if (open_intents > 0) {
    problems.push_back(std::to_string(open_intents) +
                       " ledger intents without an outcome after gatehouse stopped");
  }
  if (!settled) problems.push_back("gatehouse did not settle within the timeout");
  if (serve_exit != 0)
    problems.push_back("gatehouse serve exited with " + std::to_string(serve_exit));
  for (const std::string& p : problems) std::printf("  problem: %s\n", p.c_str());
  const bool ok = problems.empty() && inv.duplicate_effects == 0 && inv.stale_effects == 0 &&
                  lost == 0 && step_failures.load() == 0;
  std::printf(
      "\nverdict: %s deliveries=%lld passes=%lld actions=%lld duplicate_effects=%lld "
      "stale_effects=%lld lost=%lld\n",
      ok ? "ok" : "FAIL",
      static_cast<long long>(funnel.routed + funnel.ignored + funnel.in_flight + funnel.dead),
      static_cast<long long>(passes), static_cast<long long>(actions),
      static_cast<long long>(inv.duplicate_effects), static_cast<long long>(inv.stale_effects),
      static_cast<long long>(lost));
  std::fflush(stdout);
  return ok ? kExitOk : kExitFailure;
}

}  // namespace gatehouse::app
