// The policy file's `reviews:` section. See decide/review_policy_reader.h.
#include "decide/review_policy_reader.h"

#include <map>
#include <utility>

#include "base/ascii.h"
#include "decide/reviewers_config.h"

namespace gatehouse::decide {

void ReviewsReader::Reviews(const YAML::Node& node, const std::string& path,
                            std::optional<ReviewsPolicy>& out) {
  const size_t errors_before = errors().size();
  ReviewsPolicy reviews;
  Fields(node, path,
         {{"commanders",
           [&](const YAML::Node& v, const std::string& p) {
             if (auto roles = AuthorRoles(v, p)) reviews.commanders = std::move(*roles);
           }},
          {"roles",
           [&](const YAML::Node& v, const std::string& p) { RoleRules(v, p, reviews.roles); }}});
  if (errors().size() == errors_before) out = std::move(reviews);
}

std::optional<std::vector<AuthorRole>> ReviewsReader::AuthorRoles(const YAML::Node& v,
                                                                  const std::string& path) {
  auto names = StringList(v, path);
  if (!names) return std::nullopt;
  std::vector<AuthorRole> roles;
  bool ok = true;
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string s = AsciiLower((*names)[i]);
    if (s == "owner") {
      roles.push_back(AuthorRole::kOwner);
    } else if (s == "member") {
      roles.push_back(AuthorRole::kMember);
    } else if (s == "collaborator") {
      roles.push_back(AuthorRole::kCollaborator);
    } else if (s == "contributor") {
      roles.push_back(AuthorRole::kContributor);
    } else {
      Error(
          v[i], path + "[" + std::to_string(i) + "]",
          "expected one of OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, got \"" + (*names)[i] + "\"");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return roles;
}

void ReviewsReader::RoleRules(const YAML::Node& v, const std::string& path,
                              std::vector<ReviewRoleRule>& out) {
  if (!v.IsSequence()) {
    Error(v, path, "expected a list of role rules, got " + Describe(v));
    return;
  }
  std::map<std::string, int> first_line;  // role -> 1-based line of its first rule
  for (size_t i = 0; i < v.size(); ++i) {
    const YAML::Node item = v[i];
    const std::string p = path + "[" + std::to_string(i) + "]";
    auto rule = RoleRule(item, p);
    if (!rule) continue;
    auto [it, inserted] = first_line.emplace(rule->role, item["role"].Mark().line + 1);
    if (!inserted) {
      Error(item["role"], p + ".role",
            "duplicate role \"" + rule->role + "\" (first at line " + std::to_string(it->second) +
                ")");
      continue;
    }
    out.push_back(std::move(*rule));
  }
}

std::optional<ReviewRoleRule> ReviewsReader::RoleRule(const YAML::Node& item,
                                                      const std::string& path) {
  if (!ExpectMap(item, path)) return std::nullopt;
  const size_t errors_before = errors().size();
  ReviewRoleRule rule;
  bool has_role = false;
  auto lines = [&](std::optional<int>& target) {
    return [&](const YAML::Node& v, const std::string& p) { target = NonNegativeInt(v, p); };
  };
  Fields(item, path,
         {{"role",
           [&](const YAML::Node& v, const std::string& p) {
             has_role = true;
             if (v.IsScalar() && IsValidRoleName(v.Scalar())) {
               rule.role = v.Scalar();
             } else {
               Error(v, p,
                     "expected a role name of [a-z0-9_-] (at most 64 bytes), got " + Describe(v));
             }
           }},
          {"required",
           [&](const YAML::Node& v, const std::string& p) {
             if (auto b = Bool(v, p)) rule.required = *b;
           }},
          {"on",
           [&](const YAML::Node& v, const std::string& p) {
             if (auto on = Triggers(v, p)) rule.on = std::move(*on);
           }},
          {"paths",
           [&](const YAML::Node& v, const std::string& p) {
             if (auto globs = StringList(v, p)) rule.paths = std::move(*globs);
           }},
          {"labels",
           [&](const YAML::Node& v, const std::string& p) {
             if (auto names = StringList(v, p)) rule.labels = std::move(*names);
           }},
          {"min_lines", lines(rule.min_lines)},
          {"max_lines", lines(rule.max_lines)}});
  if (!has_role) Error(item, path + ".role", "missing (every rule names the role it configures)");
  if (rule.min_lines && rule.max_lines && *rule.min_lines > *rule.max_lines) {
    Error(item["max_lines"], path + ".max_lines",
          "less than min_lines (" + std::to_string(*rule.max_lines) + " < " +
              std::to_string(*rule.min_lines) + ")");
  }
  if (errors().size() != errors_before) return std::nullopt;
  return rule;
}

std::optional<std::set<ReviewTrigger>> ReviewsReader::Triggers(const YAML::Node& v,
                                                               const std::string& path) {
  auto names = StringList(v, path);
  if (!names) return std::nullopt;
  if (names->empty()) {
    Error(v, path,
          "expected at least one of opened, synchronize, ready_for_review, command (remove the "
          "rule to turn the role off)");
    return std::nullopt;
  }
  std::set<ReviewTrigger> on;
  bool ok = true;
  for (size_t i = 0; i < names->size(); ++i) {
    if (auto t = ParseReviewTrigger(AsciiLower((*names)[i]))) {
      on.insert(*t);
    } else {
      Error(v[i], path + "[" + std::to_string(i) + "]",
            "expected one of opened, synchronize, ready_for_review, command, got \"" + (*names)[i] +
                "\"");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return on;
}

}  // namespace gatehouse::decide
