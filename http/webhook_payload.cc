#include "http/webhook_payload.h"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse_options.hpp>
#include <limits>
#include <system_error>

namespace gatehouse {
namespace {

using boost::json::error_code;
using boost::json::string_view;

// Follows the document's nesting and keeps the values at the two paths the inbox wants:
// depth 1 key "action", and depth 2 key "id" inside depth 1 key "installation".
class PayloadHandler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }

  bool on_object_begin(error_code&) {
    if (depth_ == 0) top_is_object_ = true;
    // An object under "installation" at the top level is the one whose "id" counts; a later
    // "installation" key starts over (the last one wins).
    if (depth_ == 1 && at_ == At::kInstallation) {
      in_installation_ = true;
      payload_.installation_id.reset();
    }
    Enter();
    return true;
  }
  bool on_object_end(std::size_t, error_code&) {
    Leave();
    if (depth_ == 1) in_installation_ = false;
    return true;
  }
  bool on_array_begin(error_code&) {
    Value();
    Enter();
    return true;
  }
  bool on_array_end(std::size_t, error_code&) {
    Leave();
    return true;
  }

  bool on_key_part(string_view s, std::size_t, error_code&) {
    if (Tracked()) key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(string_view s, std::size_t, error_code&) {
    at_ = At::kOther;
    if (!Tracked()) return true;
    key_.append(s.data(), s.size());
    if (depth_ == 1 && key_ == "action") at_ = At::kAction;
    if (depth_ == 1 && key_ == "installation") at_ = At::kInstallation;
    if (depth_ == 2 && in_installation_ && key_ == "id") at_ = At::kInstallationId;
    key_.clear();
    return true;
  }

  bool on_string_part(string_view s, std::size_t, error_code&) {
    if (at_ == At::kAction) string_.append(s.data(), s.size());
    return true;
  }
  bool on_string(string_view s, std::size_t, error_code&) {
    if (at_ == At::kAction) {
      string_.append(s.data(), s.size());
      payload_.action = std::move(string_);
      string_.clear();
      at_ = At::kOther;
      return true;
    }
    Value();
    return true;
  }

  bool on_number_part(string_view, error_code&) { return true; }
  bool on_int64(int64_t i, string_view, error_code&) {
    Number(i);
    return true;
  }
  bool on_uint64(uint64_t u, string_view, error_code&) {
    if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      Number(static_cast<int64_t>(u));
    } else {
      Number(std::nullopt);
    }
    return true;
  }
  bool on_double(double, string_view, error_code&) {
    Number(std::nullopt);
    return true;
  }
  bool on_bool(bool, error_code&) {
    Value();
    return true;
  }
  bool on_null(error_code&) {
    Value();
    return true;
  }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

  bool top_is_object() const { return top_is_object_; }
  WebhookPayload& payload() { return payload_; }

 private:
  enum class At { kOther, kAction, kInstallation, kInstallationId };

  // Keys are compared only where a tracked path can continue.
  bool Tracked() const { return depth_ == 1 || (depth_ == 2 && in_installation_); }
  void Enter() {
    ++depth_;
    at_ = At::kOther;
  }
  void Leave() {
    --depth_;
    at_ = At::kOther;
  }
  void Number(std::optional<int64_t> n) {
    if (at_ == At::kInstallationId) {
      payload_.installation_id = n;
      at_ = At::kOther;
      return;
    }
    Value();
  }
  // A value other than the one its path wants ("action" that is not a string, "installation"
  // that is not an object, "id" that is not an integer) forgets what an earlier key gave.
  void Value() {
    if (at_ == At::kAction) payload_.action.clear();
    if (at_ == At::kInstallation) payload_.installation_id.reset();
    if (at_ == At::kInstallationId) payload_.installation_id.reset();
    at_ = At::kOther;
  }

  int depth_ = 0;
  bool top_is_object_ = false;
  bool in_installation_ = false;
  At at_ = At::kOther;
  std::string key_;
  std::string string_;
  WebhookPayload payload_;
};

}  // namespace

std::optional<WebhookPayload> ParseWebhookPayload(std::string_view body) {
  boost::json::parse_options options;
  options.max_depth = 64;  // GitHub payloads nest a handful of levels
  boost::json::basic_parser<PayloadHandler> parser(options);
  error_code ec;
  const std::size_t used = parser.write_some(false, body.data(), body.size(), ec);
  if (ec || used != body.size() || !parser.done() || !parser.handler().top_is_object()) {
    return std::nullopt;
  }
  return std::move(parser.handler().payload());
}

}  // namespace gatehouse
