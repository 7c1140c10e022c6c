// QueueReader: the YAML reader of the policy file's `merge_queue:` section (decide/queue_policy.h,
// docs/POLICY.md), a layer of decide/policy.cc's parser, which derives from it so that the
// section's errors are collected with the rest of the file's ("FILE:LINE: merge_queue.key:
// problem"). Also the reader of required-check lists, which `rules.required_checks.checks` and
// `merge_queue.required_checks` share.
//
// Internal to decide/. Not thread-safe (one reader per file); pure, no I/O.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "decide/queue_policy.h"
#include "decide/required_check.h"
#include "decide/review_policy_reader.h"

namespace gatehouse::decide {

class QueueReader : public ReviewsReader {
 public:
  using ReviewsReader::ReviewsReader;

 protected:
  // Parses the `merge_queue:` mapping at `path` into `out` (only the keys written).
  void Queue(const YAML::Node& node, const std::string& path, MergeQueueOverlay& out);

  // A list of checks, each a name (or glob) or {name, app}; nullopt after an error.
  std::optional<std::vector<RequiredCheck>> CheckList(const YAML::Node& v, const std::string& path);

 private:
  std::optional<RequiredCheck> Check(const YAML::Node& item, const std::string& path);
  std::optional<std::map<std::string, int>> Priorities(const YAML::Node& v,
                                                       const std::string& path);
  std::optional<Duration> AtLeastTenSeconds(const YAML::Node& v, const std::string& path);
};

}  // namespace gatehouse::decide
