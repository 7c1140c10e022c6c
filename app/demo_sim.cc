// gatehouse demo against gatehouse-sim. See app/demo_sim.h.
#include "app/demo_sim.h"

#include <algorithm>

#include "app/json_fields.h"
#include "base/subject.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;


int64_t Int(const json::value& v, std::string_view key) {
  const json::object* o = v.if_object();
  if (o == nullptr) return 0;
  const json::value* f = o->if_contains(key);
  return f != nullptr && f->is_int64() ? f->as_int64() : 0;
}

// "METHOD /path" -> ("METHOD", "/path").
std::pair<std::string, std::string> SplitCall(const std::string& call) {
  const size_t sp = call.find(' ');
  return {call.substr(0, sp), call.substr(sp + 1)};
}

}  // namespace

Result<std::unique_ptr<SimControl>> SimControl::Connect(const std::string& base_url) {
  CurlTransportOptions curl;
  curl.base_url = base_url;
  GH_ASSIGN_OR_RETURN(std::unique_ptr<CurlTransport> transport, CurlTransport::Create(curl));
  return std::unique_ptr<SimControl>(new SimControl(std::move(transport)));
}

std::pair<int, std::string> SimControl::Call(const std::string& method, const std::string& target,
                                             const std::string& body) {
  HttpCall call;
  call.method = method;
  call.target = target;
  call.body = body;
  auto reply = t_->Send(call);
  if (!reply.ok()) return {0, reply.status().ToString()};
  return {reply->status, reply->body};
}

json::value SimControl::GetJson(const std::string& target) {
  auto [status, body] = Call("GET", target);
  boost::system::error_code ec;
  json::value v = status == 200 ? json::parse(body, ec) : json::value();
  return ec ? json::value() : v;
}

void WorldView::Update(const json::value& state) {
  std::map<std::string, PrView> prs;
  if (const json::object* root = state.if_object()) {
    if (const json::value* repos = root->if_contains("repos"); repos && repos->is_array()) {
      for (const json::value& repo : repos->as_array()) {
        const std::string full = StringOf(repo, "full_name");
        const json::value* pulls = repo.as_object().if_contains("pulls");
        if (pulls == nullptr || !pulls->is_array()) continue;
        for (const json::value& p : pulls->as_array()) {
          PrView view;
          const json::value* merged = p.as_object().if_contains("merged");
          view.state =
              merged && merged->is_bool() && merged->as_bool() ? "merged" : StringOf(p, "state");
          if (const json::value* head = p.as_object().if_contains("head")) {
            view.head = StringOf(*head, "sha");
          }
          if (const json::value* labels = p.as_object().if_contains("labels");
              labels && labels->is_array()) {
            for (const json::value& l : labels->as_array()) view.labels.insert(StringOf(l, "name"));
          }
          if (auto subject = Subject::PullRequest(full, Int(p, "number"))) {
            prs[subject->key()] = std::move(view);
          }
        }
      }
    }
  }
  MutexLock lock(&mu_);
  prs_ = std::move(prs);
  cv_.SignalAll();
}

bool WorldView::WaitFor(const std::string& key, const std::string& state, const std::string& label,
                        Steady::time_point deadline) {
  MutexLock lock(&mu_);
  // The world is other processes: this waits in real time, on their progress.
  auto there = [&]() REQUIRES(mu_) {
    auto it = prs_.find(key);
    return it != prs_.end() && it->second.state == state &&
           (label.empty() || it->second.labels.count(label) > 0);
  };
  while (!there()) {
    if (!cv_.WaitUntil(&mu_, deadline)) return there();
  }
  return true;
}

std::map<std::string, PrView> WorldView::Snapshot() {
  MutexLock lock(&mu_);
  return prs_;
}

DemoPlayer::DemoPlayer(SimControl& sim, const DemoWorld& world) : sim_(sim), world_(world) {
  for (const DemoPr& pr : world_.prs) scripted_heads_.insert(pr.heads.begin(), pr.heads.end());
  for (const DemoRepo& r : world_.repos) {
    if (r.settings_json.empty()) continue;
    const json::value settings = json::parse(r.settings_json);
    const json::object* o = settings.if_object();
    if (o != nullptr && o->contains("ci")) {
      own_ci_.insert(r.owner + "/" + r.name);
    }
  }
}

DemoPlayer::~DemoPlayer() { Join(); }

void DemoPlayer::Problem(std::string text) {
  MutexLock lock(&mu_);
  problems_.push_back(std::move(text));
}

std::vector<std::string> DemoPlayer::problems() const {
  MutexLock lock(&mu_);
  return problems_;
}

bool DemoPlayer::Must(const std::string& method, const std::string& target,
                      const std::string& body) {
  auto [status, reply] = sim_.Call(method, target, body);
  if (status >= 200 && status < 300) return true;
  ++step_failures_;
  Problem(method + " " + target + " -> " + std::to_string(status) + " " + reply.substr(0, 200));
  return false;
}

void DemoPlayer::SetUp(const std::string& webhook_url) {
  Must("PUT", "/_sim/webhook-url", json::serialize(json::object{{"url", webhook_url}}));
  for (const DemoRepo& r : world_.repos) {
    json::object files{{".github/gatehouse.yml", r.policy_yaml}};
    json::object body{{"owner", r.owner},
                      {"name", r.name},
                      {"installation_id", r.installation_id},
                      {"files", std::move(files)}};
    if (!r.settings_json.empty()) {
      const json::value settings = json::parse(r.settings_json);
      if (const json::object* o = settings.if_object()) {
        for (const auto& [k, v] : *o) body[k] = v;
      }
    }
    Must("POST", "/_sim/repos", json::serialize(body));
  }
  Must("PUT", "/_sim/faults", world_.faults_json);
  for (const DemoPr& pr : world_.prs) {
    const DemoStep& create = pr.steps.front();
    auto [method, target] = SplitCall(create.call);
    Must(method, target, create.body);
  }
}

void DemoPlayer::Play(Steady::time_point start, Steady::time_point deadline) {
  poller_ = std::thread([this] { Poll(); });
  for (const DemoPr& pr : world_.prs) {
    scripts_.emplace_back([this, &pr, start, deadline] { RunScript(pr, start, deadline); });
  }
}

void DemoPlayer::Join() {
  for (auto& t : scripts_) {
    if (t.joinable()) t.join();
  }
  stop_polling_ = true;
  if (poller_.joinable()) poller_.join();
}

void DemoPlayer::RunScript(const DemoPr& pr, Steady::time_point start,
                           Steady::time_point deadline) {
  auto base = start;
  int64_t offset = 0;
  for (size_t i = 1; i < pr.steps.size(); ++i) {
    const DemoStep& step = pr.steps[i];
    if (!step.wait_state.empty()) {
      const std::string key = DemoSubjectKey(pr);
      if (!view_.WaitFor(key, step.wait_state, step.wait_label, deadline)) {
        Problem(key + ": gatehouse never brought it to " + step.wait_state +
                (step.wait_label.empty() ? "" : " with label " + step.wait_label));
        break;
      }
      base = Steady::now();
      offset = 0;
      continue;
    }
    offset += step.at_ms;
    std::this_thread::sleep_until(base + std::chrono::milliseconds(offset));
    auto [method, target] = SplitCall(step.call);
    auto [status, reply] = sim_.Call(method, target, step.body);
    if (status < 200 || status >= 300) {
      // A push that arrives after the merge is a race the story allows; anything else is a
      // broken step.
      if (step.call.ends_with("/push") && status == 422) continue;
      ++step_failures_;
      Problem(step.call + " -> " + std::to_string(status) + " " + reply.substr(0, 200));
    }
  }
  ++scripts_done_;
}

void DemoPlayer::Poll() {
  std::set<std::string> built;
  while (!stop_polling_.load()) {
    view_.Update(sim_.GetJson("/_sim/state"));
    for (const auto& [key, pr] : view_.Snapshot()) {
      const std::string repo = RepoOfSubjectKey(key);
      if (pr.state != "open" || pr.head.empty() || scripted_heads_.count(pr.head) ||
          own_ci_.count(repo) || !built.insert(pr.head).second) {
        continue;
      }
      for (const char* check : {"ci", "lint"}) {
        Must("POST", "/_sim/repos/" + repo + "/check-runs",
             json::serialize(
                 json::object{{"head_sha", pr.head}, {"name", check}, {"conclusion", "success"}}));
      }
      ++ci_bot_runs_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

SimRequestCost ReadRequestCost(SimControl& control) {
  SimRequestCost c;
  const boost::json::value doc = control.GetJson("/_sim/requests");
  const boost::json::value* total = FieldOf(doc, "total");
  if (total == nullptr) return c;
  c.requests = IntOf(*total, "requests");
  c.costing = IntOf(*total, "costing");
  c.not_modified = IntOf(*total, "not_modified");
  c.errors = IntOf(*total, "errors");
  for (const boost::json::value& e : ArrayOf(doc, "endpoints")) {
    const int64_t costing = IntOf(e, "costing");
    if (costing == 0) continue;
    c.costing_by_endpoint.emplace_back(TextOf(e, "method") + " " + TextOf(e, "endpoint"), costing);
  }
  std::stable_sort(c.costing_by_endpoint.begin(), c.costing_by_endpoint.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return c;
}

}  // namespace gatehouse::app
