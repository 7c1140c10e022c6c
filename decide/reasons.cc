#include "decide/reasons.h"

#include <algorithm>

namespace gatehouse::decide {

bool IsBackgroundPass(const std::vector<std::string>& reasons) {
  return !reasons.empty() && std::all_of(reasons.begin(), reasons.end(), [](const std::string& r) {
    return r == kReasonSwept || r == kReasonMergeableUnknown || r == kReasonTimer;
  });
}

}  // namespace gatehouse::decide
