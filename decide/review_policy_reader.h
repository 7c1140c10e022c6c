// ReviewsReader: the YAML reader of the policy file's `reviews:` section (decide/review_policy.h,
// docs/POLICY.md), a layer of decide/policy.cc's parser: the policy parser derives from it, so
// the section's errors are collected with the rest of the file's, each "FILE:LINE: reviews.key:
// problem". Also the reader of author-association lists, which `rules.authors.maintainer_roles`
// and `reviews.commanders` share.
//
// Internal to decide/. Not thread-safe (one reader per file); pure, no I/O.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "decide/review_policy.h"
#include "decide/snapshot.h"
#include "decide/yaml_reader.h"

namespace gatehouse::decide {

class ReviewsReader : public YamlReader {
 public:
  using YamlReader::YamlReader;

 protected:
  // Parses the `reviews:` mapping at `path`. `out` is set (keys not written take the
  // ReviewsPolicy defaults: a written section replaces the default one wholesale) unless the
  // section has an error.
  void Reviews(const YAML::Node& node, const std::string& path, std::optional<ReviewsPolicy>& out);

  // A list of OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR (any case); nullopt after an error.
  std::optional<std::vector<AuthorRole>> AuthorRoles(const YAML::Node& v, const std::string& path);

 private:
  void RoleRules(const YAML::Node& v, const std::string& path, std::vector<ReviewRoleRule>& out);
  std::optional<ReviewRoleRule> RoleRule(const YAML::Node& item, const std::string& path);
  std::optional<std::set<ReviewTrigger>> Triggers(const YAML::Node& v, const std::string& path);
};

}  // namespace gatehouse::decide
