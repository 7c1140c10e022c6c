// RequiredCheck: one required check of a policy — a name or glob over check-run names and
// commit-status contexts, optionally restricted to check runs of one app — as the merge gate's
// `rules.required_checks` and the merge queue's `merge_queue.required_checks` write them
// (docs/POLICY.md). Plain value.
#pragma once

#include <string>

namespace gatehouse::decide {

struct RequiredCheck {
  std::string pattern;
  std::string app;  // empty: any app (statuses have no app and never match then)
  bool operator==(const RequiredCheck&) const = default;
};

}  // namespace gatehouse::decide
