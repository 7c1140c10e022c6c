#include "sim/delivery_log.h"

#include <algorithm>
#include <boost/json.hpp>

namespace gatehouse::sim {
namespace {

int64_t IdAt(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  const boost::json::object* inner = v ? v->if_object() : nullptr;
  const boost::json::value* id = inner ? inner->if_contains("id") : nullptr;
  if (id == nullptr) return 0;
  if (id->is_int64()) return id->as_int64();
  if (id->is_uint64()) return static_cast<int64_t>(id->as_uint64());
  return 0;
}

}  // namespace

std::string DeliveryLog::StatusText(const AttemptOutcome& outcome) {
  if (outcome.status_code >= 200 && outcome.status_code < 300) return "OK";
  if (outcome.status_code != 0) {
    return "Invalid HTTP Response: " + std::to_string(outcome.status_code);
  }
  if (outcome.timed_out) return "timed out";
  if (outcome.connect_failed) return "failed to connect";
  return outcome.error.empty() ? "failed to connect" : outcome.error;
}

int64_t DeliveryLog::Record(DeliveryAttempt attempt, const AttemptOutcome& outcome) {
  attempt.status_code = outcome.status_code;
  attempt.status = StatusText(outcome);
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(attempt.payload, ec);
  if (const boost::json::object* o = ec ? nullptr : v.if_object()) {
    if (const auto* a = o->if_contains("action"); a && a->is_string()) {
      attempt.action = std::string(a->as_string());
    }
    attempt.installation_id = IdAt(*o, "installation");
    attempt.repository_id = IdAt(*o, "repository");
  }
  MutexLock lock(&mu_);
  attempt.id = ++next_id_;
  attempts_.push_back(std::move(attempt));
  return attempts_.back().id;
}

std::vector<DeliveryAttempt> DeliveryLog::Page(std::optional<int64_t> cursor, size_t per_page,
                                               std::optional<int64_t>* next_cursor) const {
  MutexLock lock(&mu_);
  std::vector<DeliveryAttempt> out;
  *next_cursor = std::nullopt;
  // Newest first: walk the ascending vector backwards from the cursor.
  auto end = cursor ? std::upper_bound(attempts_.begin(), attempts_.end(), *cursor,
                                       [](int64_t c, const DeliveryAttempt& a) { return c < a.id; })
                    : attempts_.end();
  for (auto it = end; it != attempts_.begin();) {
    --it;
    if (out.size() == per_page) {
      *next_cursor = it->id;
      break;
    }
    out.push_back(*it);
  }
  return out;
}

std::optional<DeliveryAttempt> DeliveryLog::Find(int64_t id) const {
  MutexLock lock(&mu_);
  auto it = std::lower_bound(attempts_.begin(), attempts_.end(), id,
                             [](const DeliveryAttempt& a, int64_t i) { return a.id < i; });
  if (it == attempts_.end() || it->id != id) return std::nullopt;
  return *it;
}

std::vector<DeliveryAttempt> DeliveryLog::All() const {
  MutexLock lock(&mu_);
  return attempts_;
}

}  // namespace gatehouse::sim
