// Labels as GitHub compares them: by name, case-insensitively ("Ready-To-Merge" is the label
// "ready-to-merge"). The gate's label rules, the planner's label wishes, the executor's
// reconciliation and the pass's history all ask through this one function.
//
// Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gatehouse::decide {

// Whether `labels` (a PR's label names) contain `name`, ignoring ASCII case.
bool HasLabel(const std::vector<std::string>& labels, std::string_view name);

}  // namespace gatehouse::decide
