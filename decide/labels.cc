#include "decide/labels.h"

#include <algorithm>

#include "base/ascii.h"

namespace gatehouse::decide {

bool HasLabel(const std::vector<std::string>& labels, std::string_view name) {
  return std::any_of(labels.begin(), labels.end(),
                     [&](const std::string& l) { return EqualsIgnoreCase(l, name); });
}

}  // namespace gatehouse::decide
