#include "decide/queue_policy_reader.h"

#include <charconv>
#include <set>
#include <utility>

#include "base/ascii.h"

namespace gatehouse::decide {

std::optional<RequiredCheck> QueueReader::Check(const YAML::Node& item, const std::string& path) {
  if (item.IsScalar() && !item.Scalar().empty()) return RequiredCheck{item.Scalar(), ""};
  if (!item.IsMap()) {
    Error(item, path, "expected a check name or {name, app}, got " + Describe(item));
    return std::nullopt;
  }
  RequiredCheck check;
  bool ok = true;
  std::set<std::string> seen;
  for (const auto& kv : item) {
    const std::string key = kv.first.Scalar();
    if (!FirstOccurrence(kv.first, path + "." + key, seen)) {
      ok = false;
      continue;
    }
    const YAML::Node& v = kv.second;
    if (key == "name" || key == "app") {
      if (!v.IsScalar() || v.Scalar().empty()) {
        Error(v, path + "." + key, "expected a non-empty string, got " + Describe(v));
        ok = false;
      } else {
        (key == "name" ? check.pattern : check.app) = v.Scalar();
      }
    } else {
      Unknown(kv.first, path + "." + key, {"name", "app"});
      ok = false;
    }
  }
  if (ok && check.pattern.empty()) {
    Error(item, path + ".name", "missing (every required check needs a name)");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return check;
}

std::optional<std::vector<RequiredCheck>> QueueReader::CheckList(const YAML::Node& v,
                                                                 const std::string& path) {
  if (!v.IsSequence()) {
    Error(v, path, "expected a list of checks, got " + Describe(v));
    return std::nullopt;
  }
  std::vector<RequiredCheck> checks;
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    auto c = Check(v[i], path + "[" + std::to_string(i) + "]");
    if (c) {
      checks.push_back(std::move(*c));
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return checks;
}

std::optional<std::map<std::string, int>> QueueReader::Priorities(const YAML::Node& v,
                                                                  const std::string& path) {
  if (!v.IsMap()) {
    Error(v, path, "expected a mapping of label: priority, got " + Describe(v));
    return std::nullopt;
  }
  std::map<std::string, int> out;
  bool ok = true;
  for (const auto& kv : v) {
    const std::string label = kv.first.IsScalar() ? kv.first.Scalar() : "";
    const std::string at = path + "." + label;
    if (label.empty()) {
      Error(kv.first, path, "expected a label name, got " + Describe(kv.first));
      ok = false;
      continue;
    }
    const YAML::Node& p = kv.second;
    int value = 0;
    bool parsed = false;
    if (p.IsScalar()) {
      const std::string& s = p.Scalar();
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      parsed = ec == std::errc() && end == s.data() + s.size() && value >= -kMaxQueuePriority &&
               value <= kMaxQueuePriority;
    }
    if (!parsed) {
      Error(p, at,
            "expected an integer from -" + std::to_string(kMaxQueuePriority) + " to " +
                std::to_string(kMaxQueuePriority) + ", got " + Describe(p));
      ok = false;
      continue;
    }
    // Labels compare case-insensitively on GitHub: two spellings of one label are one key.
    if (!out.emplace(AsciiLower(label), value).second) {
      Error(kv.first, at, "duplicate label (labels compare case-insensitively)");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<Duration> QueueReader::AtLeastTenSeconds(const YAML::Node& v, const std::string& path) {
  std::optional<Duration> d = DurationValue(v, path);
  if (d && *d < std::chrono::seconds(10)) {
    Error(v, path, "must be at least 10s, got " + Describe(v));
    return std::nullopt;
  }
  return d;
}

void QueueReader::Queue(const YAML::Node& node, const std::string& path, MergeQueueOverlay& out) {
  std::optional<YAML::Node> batch_node;  // for the check across keys, below
  Fields(node, path,
         {{"enabled",
           [&](const YAML::Node& v, const std::string& p) {
             out.enabled = Bool(v, p);
           }},
          {"method",
           [&](const YAML::Node& v, const std::string& p) {
             const std::string s = v.IsScalar() ? AsciiLower(v.Scalar()) : "";
             if (s == "update_branch") {
               out.method = QueueMethod::kUpdateBranch;
             } else if (s == "integration_branch") {
               out.method = QueueMethod::kIntegrationBranch;
             } else {
               Error(v, p, "expected one of update_branch, integration_branch, got " + Describe(v));
             }
           }},
          {"batch_size",
           [&](const YAML::Node& v, const std::string& p) {
             std::optional<int> n = NonNegativeInt(v, p);
             if (n && (*n < 1 || *n > kMaxBatchSize)) {
               Error(v, p,
                     "expected 1 to " + std::to_string(kMaxBatchSize) + ", got " + Describe(v));
               n.reset();
             }
             out.batch_size = n;
             if (n) batch_node = v;
           }},
          {"required_checks",
           [&](const YAML::Node& v, const std::string& p) {
             auto checks = CheckList(v, p);
             if (checks && checks->empty()) {
               Error(v, p,
                     "expected at least one check (leave the key out to test the PR's own "
                     "required checks)");
               checks.reset();
             }
             out.required_checks = std::move(checks);
           }},
          {"priorities",
           [&](const YAML::Node& v, const std::string& p) { out.priorities = Priorities(v, p); }},
          {"max_time_in_queue",
           [&](const YAML::Node& v, const std::string& p) {
             out.max_time_in_queue = AtLeastTenSeconds(v, p);
           }},
          {"checks_timeout", [&](const YAML::Node& v, const std::string& p) {
             out.checks_timeout = AtLeastTenSeconds(v, p);
           }}});
  // update_branch tests one PR at a time: a batch needs an integration branch.
  if (batch_node && *out.batch_size > 1 &&
      out.method.value_or(QueueMethod::kUpdateBranch) != QueueMethod::kIntegrationBranch) {
    Error(*batch_node, path + ".batch_size",
          "a batch of " + std::to_string(*out.batch_size) +
              " needs method: integration_branch (update_branch tests one PR at a time)");
  }
}

}  // namespace gatehouse::decide
