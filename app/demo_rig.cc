#include "app/demo_rig.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>

#include "admin/admin_auth.h"
#include "app/common.h"
#include "app/demo_reviews.h"
#include "decide/reasons.h"
#include "store/open_store.h"

namespace gatehouse::app {
namespace {

constexpr int64_t kAppId = 4242;
// The App's slug in the simulator: gatehouse must discover its login (GET /app) to find and
// edit its one summary comment per PR.
constexpr char kAppSlug[] = "gatehouse-demo";
bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

// A file only its owner may read, created so from the start (never briefly world-readable).
bool WriteSecretFile(const std::string& path, const std::string& text) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  return ::close(fd) == 0 && ok;
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

// The checks count everything in the database as this run's own work: refuse one that
// already holds work items or deliveries.
Status CheckEmptyDatabase(Store& store, const std::string& db) {
  auto funnel = store.inbox().GetFunnel();
  if (!funnel.ok()) return funnel.status();
  auto items = store.work().ListWorkItems(WorkFilter{std::nullopt, 1, ""});
  if (!items.ok()) return items.status();
  if (funnel->received > 0 || !items->empty()) {
    return FailedPrecondition(DescribeStoreUrl(db) +
                              " already holds deliveries or work items; the demo needs an empty "
                              "database (create a new one, or omit --db)");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<DemoRig>> DemoRig::Start(const DemoRigOptions& options) {
  std::unique_ptr<DemoRig> rig(new DemoRig());
  const std::string& dir = options.dir;
  rig->db_ = options.db.empty() ? dir + "/gatehouse.db" : options.db;
  std::string& private_pem = rig->private_pem_;
  std::string public_pem;
  if (!MakeAppKeys(&private_pem, &public_pem) ||
      !WriteSecretFile(dir + "/app.private-key.pem", private_pem) ||
      !WriteFile(dir + "/app.public-key.pem", public_pem)) {
    return Unavailable("cannot create the App key pair in " + dir);
  }
  // Fresh secrets per rig, each in a file of the directory (mode 0600) for whoever wants to
  // talk to the demo by hand; the logs must never show them (dashboard_browser_test greps).
  auto webhook_secret = admin::GenerateToken();
  auto openai_key = admin::GenerateToken();
  if (!webhook_secret.ok() || !openai_key.ok()) return Unavailable("no random bytes for secrets");
  if (!WriteSecretFile(dir + "/webhook-secret", *webhook_secret + "\n") ||
      !WriteSecretFile(dir + "/openai-key", *openai_key + "\n")) {
    return Unavailable("cannot write the demo's secrets in " + dir);
  }

  // 1. The simulator, with the App's public key and no webhook target yet.
  setenv("GATEHOUSE_WEBHOOK_SECRET", webhook_secret->c_str(), 1);
  unsetenv("GATEHOUSE_WEBHOOK_SECRET_FILE");
  setenv(kDemoOpenAiKeyEnv, openai_key->c_str(), 1);
  rig->sim_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{
          options.sim_bin, "serve", "--listen", "127.0.0.1:0", "--app-id", std::to_string(kAppId),
          "--app-public-key", dir + "/app.public-key.pem", "--app-slug", kAppSlug,
          "--openai-api-key", *openai_key, "--mergeable-delay-ms", "300", "--log-level", "warn"},
      dir + "/gatehouse-sim.log");
  rig->sim_url_ = rig->sim_->ok() ? UrlFromLine(rig->sim_->ReadLine()) : "";
  if (rig->sim_url_.empty()) {
    return Unavailable("gatehouse-sim did not start; see " + dir + "/gatehouse-sim.log");
  }

  // 2. gatehouse, as the App, against the simulator's REST API, with reviewers: a command
  // script, the builtin secrets scanner and a model on the simulator's chat endpoint.
  const std::string reviewers = WriteDemoReviewers(dir, rig->sim_url_);
  if (reviewers.empty()) return Unavailable("cannot write the reviewers file in " + dir);
  setenv("GATEHOUSE_GITHUB_APP_ID", std::to_string(kAppId).c_str(), 1);
  setenv("GATEHOUSE_GITHUB_PRIVATE_KEY_FILE", (dir + "/app.private-key.pem").c_str(), 1);
  setenv("GATEHOUSE_GITHUB_API_URL", rig->sim_url_.c_str(), 1);
  unsetenv("GATEHOUSE_GITHUB_TOKEN");
  unsetenv("GATEHOUSE_GITHUB_TOKEN_FILE");
  unsetenv("GATEHOUSE_GITHUB_PRIVATE_KEY");
  auto admin_token = admin::GenerateToken();
  if (!admin_token.ok()) return admin_token.status();
  rig->admin_token_ = std::move(admin_token).value();
  setenv("GATEHOUSE_ADMIN_TOKEN", rig->admin_token_.c_str(), 1);
  unsetenv("GATEHOUSE_ADMIN_TOKEN_FILE");
  // The player's own view of the database (migrated here, before any node opens it).
  StoreOptions store_options;
  store_options.pool_size = 2;
  store_options.listen = false;
  auto store = OpenStore(rig->db_, store_options);
  if (!store.ok()) return store.status();
  rig->store_ = std::move(store).value();
  GH_RETURN_IF_ERROR(CheckEmptyDatabase(*rig->store_, rig->db_));
  std::vector<std::string> serve_argv = {options.self, "serve",       "--db",
                                         rig->db_,     "--reviewers", reviewers};
  serve_argv.insert(serve_argv.end(), options.serve_flags.begin(), options.serve_flags.end());
  rig->nodes_ = std::make_unique<DemoNodes>(serve_argv, dir, options.nodes == 1);
  for (int64_t i = 0; i < options.nodes; ++i) GH_RETURN_IF_ERROR(rig->nodes_->Start());
  auto control = SimControl::Connect(rig->sim_url_);
  if (!control.ok()) return control.status();
  rig->control_ = std::move(control).value();
  return rig;
}

DemoRig::~DemoRig() { Stop(); }

int64_t DemoRig::app_id() const { return kAppId; }

std::string DemoRig::admin_url() const { return nodes_ ? nodes_->AdminUrl() : std::string(); }

bool DemoRig::PointWebhooks() {
  auto [status, body] = control_->Call(
      "PUT", "/_sim/webhook-url",
      boost::json::serialize(boost::json::object{{"url", nodes_->WebhookUrls()}}));
  return status >= 200 && status < 300;
}

int DemoRig::Stop() {
  if (stopped_) return serve_exit_;
  stopped_ = true;
  if (nodes_) serve_exit_ = nodes_->StopAll();
  if (sim_) {
    sim_->Signal(SIGTERM);
    sim_->Wait();
  }
  return serve_exit_;
}

int64_t ActiveItems(const std::vector<WorkItem>& items, Time now) {
  int64_t active = 0;
  for (const WorkItem& w : items) {
    if (w.state != WorkState::kRunning && w.state != WorkState::kPending) continue;
    const auto& why = w.state == WorkState::kRunning ? w.claimed_reasons : w.reasons;
    const bool timer = std::find(why.begin(), why.end(), decide::kReasonTimer) != why.end();
    const bool background = std::all_of(why.begin(), why.end(), [](const std::string& r) {
      return r == decide::kReasonSwept || r == decide::kReasonTimer;
    });
    const bool timer_soon = timer && (w.state == WorkState::kRunning || !w.due_at ||
                                      *w.due_at <= now + kTimerHorizon);
    if (!background || why.empty() || timer_soon) ++active;
  }
  return active;
}

}  // namespace gatehouse::app
