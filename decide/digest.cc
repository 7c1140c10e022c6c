#include "decide/digest.h"

#include <cstdint>
#include <cstdio>

namespace gatehouse::decide {

std::string StableDigest(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;  // not FNV's standard basis: see decide/digest.h
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;  // FNV-1a 64-bit prime
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace gatehouse::decide
