#include "sim/webhooks.h"

#include <curl/curl.h>

#include <cstdio>
#include <iterator>
#include <random>
#include <vector>

#include "base/log.h"
#include "github/signature.h"

namespace gatehouse::sim {
namespace {

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

WebhookSender::WebhookSender(WebhookSenderOptions options)
    : options_(std::move(options)),
      url_(options_.url),
      clock_(options_.clock ? options_.clock : std::make_shared<RealClock>()) {
  // Delivery ids look like GitHub's (a UUID); a per-process random prefix keeps them unique
  // across simulator restarts, a counter within one.
  std::random_device rd;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x", rd(), rd() & 0xffff, rd() & 0xffff);
  run_id_ = buf;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  thread_ = std::thread([this] { Run(); });
}

WebhookSender::~WebhookSender() { Stop(); }

std::string WebhookSender::Enqueue(std::string event, std::string body, const DeliveryMeta& meta) {
  MutexLock lock(&mu_);
  if (url_.empty()) {
    ++dropped_;
    return "";
  }
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), "-%012llu", static_cast<unsigned long long>(++next_));
  Delivery d{run_id_ + suffix, std::move(event), std::move(body), false};
  std::string id = d.id;
  if (auto rule = TakeWebhookRule(&faults_.rules, d.event, meta)) {
    if (rule->drop) {
      ++withheld_;
    } else {
      delayed_.emplace(std::chrono::steady_clock::now() + std::chrono::milliseconds(rule->delay_ms),
                       std::move(d));
      cv_.Signal();
    }
    return id;
  }
  std::vector<Delivery> copies{d};
  if (faults_.duplicates > 0) {
    --faults_.duplicates;
    copies.push_back(d);  // a redelivery: same id, same body
  }
  if (!held_.empty()) {
    for (auto& c : copies) queue_.push_back(std::move(c));
    for (auto& h : held_) queue_.push_back(std::move(h));
    held_.clear();
  } else if (faults_.reorders > 0) {
    --faults_.reorders;
    held_ = std::move(copies);
  } else {
    for (auto& c : copies) queue_.push_back(std::move(c));
  }
  cv_.Signal();
  return id;
}

bool WebhookSender::Redeliver(int64_t attempt_id) {
  std::optional<DeliveryAttempt> attempt = log_.Find(attempt_id);
  if (!attempt) return false;
  MutexLock lock(&mu_);
  if (url_.empty() || stopping_) return false;
  queue_.push_back(Delivery{attempt->guid, attempt->event, attempt->payload, true});
  cv_.Signal();
  return true;
}

void WebhookSender::SetUrl(std::string url) {
  {
    MutexLock lock(&mu_);
    url_ = std::move(url);
    ++url_sets_;
  }
  cv_.SignalAll();
}

std::string WebhookSender::url() const {
  MutexLock lock(&mu_);
  return url_;
}

bool WebhookSender::WaitForSetUrl(std::chrono::milliseconds timeout) {
  // Real time: the URL comes from another process (PUT /_sim/webhook-url).
  const auto deadline = CondVar::Steady::now() + timeout;
  MutexLock lock(&mu_);
  while (url_sets_ == 0 && !stopping_ && cv_.WaitUntil(&mu_, deadline)) {
  }
  return url_sets_ > 0;
}

uint64_t WebhookSender::dropped() const {
  MutexLock lock(&mu_);
  return dropped_;
}

uint64_t WebhookSender::withheld() const {
  MutexLock lock(&mu_);
  return withheld_;
}

void WebhookSender::SetFaults(DeliveryFaults faults) {
  MutexLock lock(&mu_);
  faults_ = faults;
}

DeliveryFaults WebhookSender::faults() const {
  MutexLock lock(&mu_);
  return faults_;
}

void WebhookSender::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    // A delivery held back for reordering is still a delivery: send it last.
    for (auto& h : held_) queue_.push_back(std::move(h));
    held_.clear();
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

uint64_t WebhookSender::delivered() const {
  MutexLock lock(&mu_);
  return delivered_;
}

uint64_t WebhookSender::failed() const {
  MutexLock lock(&mu_);
  return failed_;
}

void WebhookSender::ReleaseDueLocked(SteadyTime now) {
  std::vector<Delivery> due;
  while (!delayed_.empty() && (stopping_ || delayed_.begin()->first <= now)) {
    due.push_back(std::move(delayed_.begin()->second));
    delayed_.erase(delayed_.begin());
  }
  queue_.insert(queue_.begin(), std::make_move_iterator(due.begin()),
                std::make_move_iterator(due.end()));
}

void WebhookSender::Run() {
  for (;;) {
    Delivery d;
    std::string url;
    {
      MutexLock lock(&mu_);
      for (;;) {
        ReleaseDueLocked(std::chrono::steady_clock::now());
        if (!queue_.empty()) break;
        if (stopping_) return;  // nothing is delayed any more: ReleaseDueLocked took it all
        if (delayed_.empty()) {
          cv_.Wait(&mu_);
        } else {
          cv_.WaitUntil(&mu_, delayed_.begin()->first);
        }
      }
      d = std::move(queue_.front());
      queue_.pop_front();
      if (faults_.delay_ms > 0) {
        // Interruptible by Stop, which then sends the rest without delay.
        const auto until = CondVar::Steady::now() + std::chrono::milliseconds(faults_.delay_ms);
        while (!stopping_ && cv_.WaitUntil(&mu_, until)) {
        }
      }
      url = url_;
    }
    bool ok = PostBalanced(d, url);
    MutexLock lock(&mu_);
    (ok ? delivered_ : failed_)++;
  }
}

bool WebhookSender::PostBalanced(const Delivery& d, const std::string& urls) {
  std::vector<std::string> targets;
  for (size_t start = 0; start <= urls.size();) {
    size_t comma = urls.find(',', start);
    if (comma == std::string::npos) comma = urls.size();
    if (comma > start) targets.push_back(urls.substr(start, comma - start));
    start = comma + 1;
  }
  if (targets.empty()) targets.push_back(urls);
  const size_t first = next_target_++;
  DeliveryAttempt attempt;
  attempt.guid = d.id;
  attempt.event = d.event;
  attempt.redelivery = d.redelivery;
  attempt.payload = d.body;
  attempt.delivered_at = clock_->Now();
  const auto started = std::chrono::steady_clock::now();
  AttemptOutcome outcome;
  for (size_t i = 0; i < targets.size(); ++i) {
    attempt.url = targets[(first + i) % targets.size()];
    attempt.request_headers.clear();
    outcome = Post(d, attempt.url, &attempt.request_headers);
    if (!outcome.connect_failed) break;  // an answer, or a failure after connecting
  }
  attempt.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  log_.Record(std::move(attempt), outcome);
  return outcome.status_code >= 200 && outcome.status_code < 300;
}

AttemptOutcome WebhookSender::Post(const Delivery& d, const std::string& url,
                                   std::vector<std::pair<std::string, std::string>>* sent) {
  AttemptOutcome outcome;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    outcome.error = "curl_easy_init failed";
    return outcome;
  }
  sent->emplace_back("Accept", "*/*");
  sent->emplace_back("Content-Type", "application/json");
  sent->emplace_back("User-Agent", "GitHub-Hookshot/gatehouse-sim");
  sent->emplace_back("X-GitHub-Delivery", d.id);
  sent->emplace_back("X-GitHub-Event", d.event);
  if (!options_.secret.empty()) {
    sent->emplace_back("X-Hub-Signature-256", "sha256=" + HmacSha256Hex(options_.secret, d.body));
  }
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : *sent) {
    if (name == "Accept") continue;
    headers = curl_slist_append(headers, (name + ": " + value).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, d.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(d.body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Discard);
  CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc == CURLE_OK) outcome.status_code = static_cast<int>(status);
  outcome.connect_failed = rc == CURLE_COULDNT_CONNECT;
  outcome.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
  if (rc != CURLE_OK) outcome.error = curl_easy_strerror(rc);
  const bool ok = outcome.status_code >= 200 && outcome.status_code < 300;
  Log(ok ? LogLevel::kDebug : LogLevel::kWarn, "sim.webhook")
      .Field("webhook", d.event)
      .Field("delivery", d.id)
      .Field("redelivery", d.redelivery ? "true" : "false")
      .Field("status", static_cast<int64_t>(status))
      .Field("curl", curl_easy_strerror(rc));
  return outcome;
}

}  // namespace gatehouse::sim
