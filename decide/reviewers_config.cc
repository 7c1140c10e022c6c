// The server's reviewers file. See decide/reviewers_config.h.
#include "decide/reviewers_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <utility>

#include "decide/yaml_reader.h"

namespace gatehouse::decide {
namespace {

constexpr size_t kMaxNameBytes = 64;

bool IsNameOf(std::string_view s, std::string_view extra) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  return std::all_of(s.begin(), s.end(), [extra](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           extra.find(c) != std::string_view::npos;
  });
}

// An environment variable name: [A-Za-z_][A-Za-z0-9_]*.
bool IsEnvName(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// "http://" or "https://" followed by at least a host.
bool IsHttpUrl(std::string_view s) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (s.substr(0, scheme.size()) == scheme) {
      const std::string_view rest = s.substr(scheme.size());
      return !rest.empty() && rest[0] != '/' && rest.find_first_of(" \t\r\n") == rest.npos;
    }
  }
  return false;
}

std::optional<ExecutorType> ParseExecutorType(std::string_view s) {
  for (ExecutorType t : {ExecutorType::kCommand, ExecutorType::kHttp, ExecutorType::kOpenAi,
                         ExecutorType::kBuiltinSecrets}) {
    if (ExecutorTypeName(t) == s) return t;
  }
  return std::nullopt;
}

// Collects every problem of one reviewers file; see YamlReader.
class ReviewersParser : public YamlReader {
 public:
  using YamlReader::YamlReader;

  void Parse(const YAML::Node& root, ReviewersConfig& out) {
    if (!root.IsMap()) {
      Error(root, "(top level)",
            root.IsNull() ? "the file is empty (expected a mapping with reviewers)"
                          : "expected a mapping, got " + Describe(root));
      return;
    }
    bool saw_reviewers = false;
    std::set<std::string> seen;
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (!FirstOccurrence(kv.first, key, seen)) continue;
      if (key == "availability_budget") {
        if (auto d = PositiveDuration(kv.second, key)) out.availability_budget = *d;
      } else if (key == "reviewers") {
        saw_reviewers = true;
        Reviewers(kv.second, key, out.reviewers);
      } else {
        Unknown(kv.first, key, {"availability_budget", "reviewers"});
      }
    }
    if (!saw_reviewers) Error(root, "reviewers", "missing (the file must list its reviewers)");
  }

 private:
  std::optional<Duration> PositiveDuration(const YAML::Node& v, const std::string& path) {
    auto d = DurationValue(v, path);
    if (d && *d <= Duration::zero()) {
      Error(v, path, "expected a duration greater than zero, got " + Describe(v));
      return std::nullopt;
    }
    return d;
  }

  std::optional<int> PositiveInt(const YAML::Node& v, const std::string& path) {
    if (v.IsScalar()) {
      const std::string& s = v.Scalar();
      int value = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      if (ec == std::errc() && end == s.data() + s.size() && value >= 1) return value;
    }
    Error(v, path, "expected an integer >= 1, got " + Describe(v));
    return std::nullopt;
  }

  std::optional<std::string> NonEmptyString(const YAML::Node& v, const std::string& path) {
    if (v.IsScalar() && !v.Scalar().empty()) return v.Scalar();
    Error(v, path, "expected a non-empty string, got " + Describe(v));
    return std::nullopt;
  }

  void Reviewers(const YAML::Node& v, const std::string& path, std::vector<ReviewerSpec>& out) {
    if (!v.IsSequence()) {
      Error(v, path, "expected a list of reviewers, got " + Describe(v));
      return;
    }
    std::map<std::string, int> first_line;  // name -> 1-based line of its first entry
    for (size_t i = 0; i < v.size(); ++i) {
      const YAML::Node item = v[i];
      const std::string p = path + "[" + std::to_string(i) + "]";
      auto spec = Reviewer(item, p);
      if (!spec) continue;
      const int line = item["name"].Mark().line + 1;
      auto [it, inserted] = first_line.emplace(spec->name, line);
      if (!inserted) {
        Error(item["name"], p + ".name",
              "duplicate reviewer \"" + spec->name + "\" (first at line " +
                  std::to_string(it->second) + ")");
        continue;
      }
      out.push_back(std::move(*spec));
    }
  }

  // Parses one reviewer; nullopt (after recording why) when anything in it is wrong.
  std::optional<ReviewerSpec> Reviewer(const YAML::Node& item, const std::string& path) {
    if (!ExpectMap(item, path)) return std::nullopt;
    const size_t errors_before = errors().size();
    ReviewerSpec spec;
    bool has_name = false, has_roles = false, has_executor = false;
    Fields(item, path,
           {{"name",
             [&](const YAML::Node& v, const std::string& p) {
               has_name = true;
               if (v.IsScalar() && IsValidReviewerName(v.Scalar())) {
                 spec.name = v.Scalar();
               } else {
                 Error(v, p,
                       "expected a name of [a-z0-9_.-] (at most 64 bytes), got " + Describe(v));
               }
             }},
            {"roles",
             [&](const YAML::Node& v, const std::string& p) {
               has_roles = true;
               Roles(v, p, spec.roles);
             }},
            {"executor",
             [&](const YAML::Node& v, const std::string& p) {
               has_executor = true;
               Executor(v, p, spec.executor);
             }},
            {"concurrency",
             [&](const YAML::Node& v, const std::string& p) {
               if (auto n = PositiveInt(v, p)) spec.concurrency = *n;
             }},
            {"timeout",
             [&](const YAML::Node& v, const std::string& p) {
               if (auto d = PositiveDuration(v, p)) spec.timeout = *d;
             }},
            {"paused", [&](const YAML::Node& v, const std::string& p) {
               if (auto b = Bool(v, p)) spec.paused = *b;
             }}});
    if (!has_name) Error(item, path + ".name", "missing (every reviewer needs a name)");
    if (!has_roles)
      Error(item, path + ".roles", "missing (every reviewer serves at least one role)");
    if (!has_executor) Error(item, path + ".executor", "missing (every reviewer needs one)");
    if (errors().size() != errors_before) return std::nullopt;
    return spec;
  }

  // A non-empty list of distinct role names.
  void Roles(const YAML::Node& v, const std::string& path, std::vector<std::string>& out) {
    auto names = StringList(v, path);
    if (!names) return;
    if (names->empty()) {
      Error(v, path, "expected at least one role");
      return;
    }
    for (size_t i = 0; i < names->size(); ++i) {
      const std::string& role = (*names)[i];
      const std::string p = path + "[" + std::to_string(i) + "]";
      if (!IsValidRoleName(role)) {
        Error(v[i], p,
              "expected a role name of [a-z0-9_-] (at most 64 bytes), got \"" + role + "\"");
      } else if (std::find(out.begin(), out.end(), role) != out.end()) {
        Error(v[i], p, "duplicate role \"" + role + "\"");
      } else {
        out.push_back(role);
      }
    }
  }

  void Executor(const YAML::Node& v, const std::string& path, ExecutorSpec& out) {
    if (!ExpectMap(v, path)) return;
    const YAML::Node type_node = v["type"];
    if (!type_node) {
      Error(v, path + ".type", "missing (expected one of: command, http, openai, builtin:secrets)");
      return;
    }
    std::optional<ExecutorType> type;
    if (type_node.IsScalar()) type = ParseExecutorType(type_node.Scalar());
    if (!type) {
      Error(type_node, path + ".type",
            "expected one of command, http, openai, builtin:secrets, got " + Describe(type_node));
      return;
    }
    out.type = *type;
    ExecutorKeys(v, path, out);
  }

  // The keys of an executor of a known type, then what that type needs.
  void ExecutorKeys(const YAML::Node& v, const std::string& path, ExecutorSpec& out) {
    const Field type_field{"type", [](const YAML::Node&, const std::string&) {}};
    auto string_field = [this](std::string_view key, std::string& target) {
      return Field{key, [this, &target](const YAML::Node& n, const std::string& p) {
                     if (auto s = NonEmptyString(n, p)) target = *s;
                   }};
    };
    auto env_field = [this](std::string_view key, std::string& target) {
      return Field{key, [this, &target](const YAML::Node& n, const std::string& p) {
                     if (n.IsScalar() && IsEnvName(n.Scalar())) {
                       target = n.Scalar();
                     } else {
                       Error(n, p, "expected an environment variable name, got " + Describe(n));
                     }
                   }};
    };
    switch (out.type) {
      case ExecutorType::kCommand:
        Fields(v, path, {type_field, {"argv", [&](const YAML::Node& n, const std::string& p) {
                                        if (auto a = StringList(n, p)) out.argv = std::move(*a);
                                      }}});
        if (!v["argv"]) {
          Error(v, path + ".argv", "missing (a command executor needs the program to run)");
        } else if (out.argv.empty() && v["argv"].IsSequence() && v["argv"].size() == 0) {
          Error(v["argv"], path + ".argv",
                "expected a non-empty list (the program and its arguments)");
        }
        return;
      case ExecutorType::kHttp:
        Fields(v, path,
               {type_field, string_field("url", out.url), env_field("secret_env", out.secret_env)});
        Require(v, path, "url", out.url, "an http executor needs a url");
        if (!v["secret_env"]) {
          Error(v, path + ".secret_env",
                "required for an http executor (requests are HMAC-signed)");
        }
        if (!out.url.empty() && !IsHttpUrl(out.url)) {
          Error(v["url"], path + ".url",
                "expected an http:// or https:// URL, got \"" + out.url + "\"");
        }
        return;
      case ExecutorType::kOpenAi:
        Fields(v, path,
               {type_field, string_field("base_url", out.base_url),
                string_field("model", out.model), env_field("api_key_env", out.api_key_env)});
        Require(v, path, "base_url", out.base_url, "an openai executor needs a base_url");
        Require(v, path, "model", out.model, "an openai executor needs a model");
        if (!out.base_url.empty() && !IsHttpUrl(out.base_url)) {
          Error(v["base_url"], path + ".base_url",
                "expected an http:// or https:// URL, got \"" + out.base_url + "\"");
        }
        return;
      case ExecutorType::kBuiltinSecrets:
        Fields(v, path, {type_field});
        return;
    }
  }

  // Records `why` when `key` is absent (a present but bad value has its own error already).
  void Require(const YAML::Node& v, const std::string& path, std::string_view key,
               const std::string& value, std::string_view why) {
    if (value.empty() && !v[std::string(key)]) {
      Error(v, path + "." + std::string(key), "missing (" + std::string(why) + ")");
    }
  }
};

}  // namespace

std::string_view ExecutorTypeName(ExecutorType type) {
  switch (type) {
    case ExecutorType::kCommand:
      return "command";
    case ExecutorType::kHttp:
      return "http";
    case ExecutorType::kOpenAi:
      return "openai";
    case ExecutorType::kBuiltinSecrets:
      return "builtin:secrets";
  }
  return "command";
}

std::vector<const ReviewerSpec*> ReviewersConfig::ForRole(std::string_view role) const {
  std::vector<const ReviewerSpec*> out;
  for (const ReviewerSpec& r : reviewers) {
    if (std::find(r.roles.begin(), r.roles.end(), role) != r.roles.end()) out.push_back(&r);
  }
  return out;
}

const ReviewerSpec* ReviewersConfig::Find(std::string_view name) const {
  for (const ReviewerSpec& r : reviewers) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

bool IsValidRoleName(std::string_view role) { return IsNameOf(role, ""); }
bool IsValidReviewerName(std::string_view name) { return IsNameOf(name, "."); }

Result<ReviewersConfig> ParseReviewersConfig(std::string_view yaml, std::string_view filename) {
  ReviewersParser parser(filename);
  ReviewersConfig config;
  try {
    const YAML::Node root = YAML::Load(NormalizeLineBreaks(yaml));
    parser.Parse(root, config);
  } catch (const YAML::Exception& e) {
    parser.AddError(e.mark.line, "(syntax)", e.msg);
  }
  GH_RETURN_IF_ERROR(parser.Finish());
  return config;
}

}  // namespace gatehouse::decide
