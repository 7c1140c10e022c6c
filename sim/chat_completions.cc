#include "sim/chat_completions.h"

#include <cstdlib>
#include <optional>

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

constexpr size_t kRecent = 20;
constexpr const char kDefaultQueue[] = "*";

HttpResponse OpenAiError(int status, std::string_view message, std::string_view type,
                         std::string_view code) {
  json::object error{{"message", message},
                     {"type", type},
                     {"param", nullptr},
                     {"code", code.empty() ? json::value(nullptr) : json::value(code)}};
  return JsonResponse(status, json::serialize(json::object{{"error", std::move(error)}}));
}

HttpResponse ErrorForStatus(int status) {
  if (status == 429) {
    return OpenAiError(429, "Rate limit reached for requests (simulated)", "requests",
                       "rate_limit_exceeded");
  }
  if (status == 401)
    return OpenAiError(401, "Incorrect API key provided", "invalid_request_error",
                       "invalid_api_key");
  if (status >= 500) {
    return OpenAiError(status, "The server had an error while processing your request (simulated)",
                       "server_error", "");
  }
  return OpenAiError(status, "Simulated error " + std::to_string(status), "invalid_request_error",
                     "");
}

// "" when `body` is a valid chat-completions request (its model in `model`, its messages in
// `messages`), else what is wrong.
std::string ValidateRequest(const std::string& body, std::string* model, json::array* messages) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return "We could not parse the JSON body of your request.";
  const json::object& o = v.as_object();
  const json::value* m = o.if_contains("model");
  if (m == nullptr || !m->is_string() || m->as_string().empty()) {
    return "you must provide a model parameter";
  }
  *model = std::string(m->as_string());
  const json::value* msgs = o.if_contains("messages");
  if (msgs == nullptr || !msgs->is_array() || msgs->as_array().empty()) {
    return "'messages' must be a non-empty array";
  }
  for (size_t i = 0; i < msgs->as_array().size(); ++i) {
    const json::value& msg = msgs->as_array()[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!msg.is_object()) return where + ": expected an object";
    const json::value* role = msg.as_object().if_contains("role");
    if (role == nullptr || !role->is_string()) return where + ".role: expected a string";
    const std::string_view r = role->as_string();
    if (r != "system" && r != "user" && r != "assistant" && r != "developer" && r != "tool") {
      return where + ".role: '" + std::string(r) +
             "' is not one of system, user, assistant, "
             "developer, tool";
    }
    const json::value* content = msg.as_object().if_contains("content");
    if (content == nullptr || !(content->is_string() || content->is_array())) {
      return where + ".content: expected a string or an array of parts";
    }
  }
  *messages = msgs->as_array();
  return "";
}

// The text of a message's content: the string, or its text parts joined.
std::string ContentText(const json::value& content) {
  if (content.is_string()) return std::string(content.as_string());
  std::string out;
  if (const auto* parts = content.if_array()) {
    for (const auto& part : *parts) {
      const auto* o = part.if_object();
      const auto* text = o ? o->if_contains("text") : nullptr;
      if (text && text->is_string()) out += text->as_string();
    }
  }
  return out;
}

// The first JSON object embedded in `text` (from its first '{' to its last '}').
std::optional<json::object> EmbeddedObject(const std::string& text) {
  const size_t open = text.find('{');
  const size_t close = text.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  boost::system::error_code ec;
  json::value v = json::parse(std::string_view(text).substr(open, close - open + 1), ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

// A warning per added line of `patch` that contains FIXME, at its new-file line.
void FixmeFindings(const std::string& path, const std::string& patch, json::array* findings) {
  int64_t line = 0;
  size_t start = 0;
  while (start < patch.size()) {
    size_t end = patch.find('\n', start);
    if (end == std::string::npos) end = patch.size();
    std::string_view text = std::string_view(patch).substr(start, end - start);
    start = end + 1;
    if (text.rfind("@@", 0) == 0) {
      // @@ -a,b +c,d @@: the next line is new-file line c.
      const size_t plus = text.find('+');
      line = plus == std::string_view::npos
                 ? 0
                 : std::atoll(std::string(text.substr(plus + 1)).c_str());
      continue;
    }
    if (text.empty() || text[0] == '-') continue;
    if (text[0] == '+' && text.find("FIXME") != std::string_view::npos) {
      findings->push_back(json::object{{"path", path},
                                       {"line", line},
                                       {"severity", "warning"},
                                       {"message", "FIXME left in the change"}});
    }
    ++line;
  }
}

}  // namespace

std::string DefaultReview(const std::string& model, const json::array& messages) {
  std::string last_user;
  for (const auto& m : messages) {
    const json::object& o = m.as_object();
    if (const auto* role = o.if_contains("role");
        role && role->is_string() && role->as_string() == "user") {
      last_user = ContentText(o.at("content"));
    }
  }
  int64_t files = 0;
  json::array findings;
  if (auto request = EmbeddedObject(last_user)) {
    if (const auto* list = request->if_contains("files"); list && list->is_array()) {
      for (const auto& f : list->as_array()) {
        ++files;
        const auto* o = f.if_object();
        if (o == nullptr) continue;
        const auto* path = o->if_contains("path");
        const auto* patch = o->if_contains("patch");
        if (path && path->is_string() && patch && patch->is_string()) {
          FixmeFindings(std::string(path->as_string()), std::string(patch->as_string()), &findings);
        }
      }
    }
  }
  std::string summary = "fake model " + model + " reviewed " + std::to_string(files) +
                        (files == 1 ? " file" : " files");
  if (!findings.empty()) summary += ", " + std::to_string(findings.size()) + " FIXME";
  json::object result{{"verdict", findings.empty() ? "approve" : "comment"},
                      {"summary", summary},
                      {"findings", std::move(findings)}};
  return json::serialize(result);
}

Result<ChatStep> ParseChatStep(const json::value& v) {
  if (!v.is_object()) return InvalidArgument("a chat step must be an object");
  const json::object& o = v.as_object();
  ChatStep step;
  for (const auto& [key, value] : o) {
    if (key == "content") {
      if (value.is_string()) {
        step.content = std::string(value.as_string());
      } else if (value.is_object() || value.is_array()) {
        step.content = json::serialize(value);
      } else {
        return InvalidArgument("chat step content: expected a string or a JSON object");
      }
    } else if (key == "status") {
      if (!value.is_int64() || value.as_int64() < 200 || value.as_int64() > 599) {
        return InvalidArgument("chat step status: expected an HTTP status 200..599");
      }
      step.status = static_cast<int>(value.as_int64());
    } else if (key == "retry_after") {
      if (!value.is_int64() || value.as_int64() < 0) {
        return InvalidArgument("chat step retry_after: expected seconds >= 0");
      }
      step.retry_after_s = value.as_int64();
    } else if (key == "latency_ms") {
      if (!value.is_int64() || value.as_int64() < 0 || value.as_int64() > 600'000) {
        return InvalidArgument("chat step latency_ms: expected 0..600000");
      }
      step.latency_ms = value.as_int64();
    } else if (key == "malformed") {
      if (!value.is_bool()) return InvalidArgument("chat step malformed: expected a boolean");
      step.malformed = value.as_bool();
    } else if (key == "finish_reason") {
      if (!value.is_string()) return InvalidArgument("chat step finish_reason: expected a string");
      step.finish_reason = std::string(value.as_string());
    } else {
      return InvalidArgument("chat step: unknown field '" + std::string(key) + "'");
    }
  }
  return step;
}

FakeChatCompletions::FakeChatCompletions(ClockPtr clock, std::string api_key)
    : clock_(std::move(clock)), api_key_(std::move(api_key)) {}

bool FakeChatCompletions::Handles(std::string_view path) {
  constexpr std::string_view kSuffix = "/chat/completions";
  return path.size() >= kSuffix.size() && path.substr(path.size() - kSuffix.size()) == kSuffix &&
         path.rfind("/repos/", 0) != 0 && path.rfind("/_sim/", 0) != 0;
}

std::optional<ChatStep> FakeChatCompletions::TakeStep(const std::string& model) {
  MutexLock lock(&mu_);
  for (const std::string& queue : {model, std::string(kDefaultQueue)}) {
    auto it = script_.find(queue);
    if (it == script_.end() || it->second.empty()) continue;
    ChatStep step = std::move(it->second.front());
    it->second.pop_front();
    return step;
  }
  return std::nullopt;
}

ChatAnswer FakeChatCompletions::Serve(const HttpRequest& request) {
  if (request.method != "POST") {
    return {OpenAiError(405, "use POST", "invalid_request_error", ""), {}};
  }
  const std::string auth = request.Header("Authorization");
  {
    MutexLock lock(&mu_);
    const bool bearer = auth.rfind("Bearer ", 0) == 0 && auth.size() > 7;
    if (!bearer || (!api_key_.empty() && auth.substr(7) != api_key_)) {
      ++rejected_;
      return {ErrorForStatus(401), {}};
    }
  }
  std::string model;
  json::array messages;
  if (std::string bad = ValidateRequest(request.body, &model, &messages); !bad.empty()) {
    MutexLock lock(&mu_);
    ++rejected_;
    return {OpenAiError(400, bad, "invalid_request_error", ""), {}};
  }
  {
    MutexLock lock(&mu_);
    ++requests_[model];
    recent_.push_back(request.body);
    while (recent_.size() > kRecent) recent_.pop_front();
  }
  std::optional<ChatStep> step = TakeStep(model);
  if (!step) {
    return {Completion(model, DefaultReview(model, messages), "stop", request.body.size()), {}};
  }
  ChatAnswer answer;
  answer.latency = std::chrono::milliseconds(step->latency_ms);
  if (step->status != 200) {
    answer.response = ErrorForStatus(step->status);
  } else if (step->malformed) {
    answer.response = HttpResponse{.status = 200,
                                   .content_type = "text/html",
                                   .body = "<html><body>upstream hiccup (simulated)</body></html>",
                                   .headers = {},
                                   .reset_connection = false};
  } else {
    answer.response = Completion(model, step->content, step->finish_reason, request.body.size());
  }
  if (step->retry_after_s >= 0) {
    answer.response.headers.emplace_back("Retry-After", std::to_string(step->retry_after_s));
  }
  return answer;
}

HttpResponse FakeChatCompletions::Completion(const std::string& model, const std::string& content,
                                             const std::string& finish_reason,
                                             size_t prompt_chars) {
  int64_t id = 0;
  {
    MutexLock lock(&mu_);
    id = ++next_id_;
  }
  // Roughly four characters a token, as OpenAI's rule of thumb.
  const auto prompt_tokens = static_cast<int64_t>(prompt_chars / 4);
  const auto completion_tokens = static_cast<int64_t>(content.size() / 4);
  json::object message{{"role", "assistant"}, {"content", content}};
  json::object choice{{"index", 0},
                      {"message", std::move(message)},
                      {"logprobs", nullptr},
                      {"finish_reason", finish_reason}};
  json::object body{{"id", "chatcmpl-sim-" + std::to_string(id)},
                    {"object", "chat.completion"},
                    {"created", ToMicros(clock_->Now()) / 1'000'000},
                    {"model", model},
                    {"choices", json::array{std::move(choice)}},
                    {"usage", json::object{{"prompt_tokens", prompt_tokens},
                                           {"completion_tokens", completion_tokens},
                                           {"total_tokens", prompt_tokens + completion_tokens}}}};
  return JsonResponse(200, json::serialize(body));
}

Status FakeChatCompletions::Configure(const json::object& body) {
  std::map<std::string, std::deque<ChatStep>> script;
  const json::value* given = body.if_contains("script");
  if (given != nullptr) {
    if (!given->is_object()) return InvalidArgument("script must be an object of model: [steps]");
    for (const auto& [model, steps] : given->as_object()) {
      if (!steps.is_array())
        return InvalidArgument("script." + std::string(model) + ": expected an array");
      auto& queue = script[std::string(model)];
      for (const auto& s : steps.as_array()) {
        GH_ASSIGN_OR_RETURN(ChatStep step, ParseChatStep(s));
        queue.push_back(std::move(step));
      }
    }
  }
  const json::value* key = body.if_contains("api_key");
  if (key != nullptr && !key->is_string()) return InvalidArgument("api_key must be a string");
  MutexLock lock(&mu_);
  if (key != nullptr) api_key_ = std::string(key->as_string());
  if (given != nullptr) script_ = std::move(script);
  return Status::Ok();
}

Status FakeChatCompletions::Append(const json::object& body) {
  std::string model = kDefaultQueue;
  if (const json::value* m = body.if_contains("model")) {
    if (!m->is_string() || m->as_string().empty()) {
      return InvalidArgument("model must be a non-empty string");
    }
    model = std::string(m->as_string());
  }
  const json::value* steps = body.if_contains("steps");
  if (steps == nullptr || !steps->is_array()) return InvalidArgument("steps must be an array");
  std::vector<ChatStep> parsed;
  for (const auto& s : steps->as_array()) {
    GH_ASSIGN_OR_RETURN(ChatStep step, ParseChatStep(s));
    parsed.push_back(std::move(step));
  }
  MutexLock lock(&mu_);
  for (auto& step : parsed) script_[model].push_back(std::move(step));
  return Status::Ok();
}

void FakeChatCompletions::ClearScript() {
  MutexLock lock(&mu_);
  script_.clear();
}

json::object FakeChatCompletions::Render() const {
  MutexLock lock(&mu_);
  json::object requests;
  for (const auto& [model, n] : requests_) requests[model] = n;
  json::object queued;
  for (const auto& [model, q] : script_) queued[model] = static_cast<int64_t>(q.size());
  json::array recent;
  for (const auto& body : recent_) {
    boost::system::error_code ec;
    json::value v = json::parse(body, ec);
    recent.push_back(ec ? json::value(body) : std::move(v));
  }
  return {{"api_key_set", !api_key_.empty()},
          {"requests", std::move(requests)},
          {"rejected", rejected_},
          {"queued", std::move(queued)},
          {"recent", std::move(recent)}};
}

int64_t FakeChatCompletions::requests(const std::string& model) const {
  MutexLock lock(&mu_);
  auto it = requests_.find(model);
  return it == requests_.end() ? 0 : it->second;
}

int64_t FakeChatCompletions::rejected() const {
  MutexLock lock(&mu_);
  return rejected_;
}

std::vector<std::string> FakeChatCompletions::recent() const {
  MutexLock lock(&mu_);
  return {recent_.begin(), recent_.end()};
}

}  // namespace gatehouse::sim
