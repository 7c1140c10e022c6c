// A small command-line parser: `--name value`, `--name=value`, boolean `--name`, and
// positional arguments. Flags must be declared, so a typo is an error, not a silent default.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"

namespace gatehouse {

class Flags {
 public:
  // `valued`: flags that take a value; `booleans`: flags that do not.
  Flags(std::set<std::string> valued, std::set<std::string> booleans)
      : valued_(std::move(valued)), booleans_(std::move(booleans)) {}

  // Parses argv[first..argc). "-h" and "--help" are always accepted as booleans ("help").
  Status Parse(int argc, char** argv, int first);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::string Get(const std::string& name, const std::string& fallback) const;
  // Parses an integer flag within [lo, hi]; `fallback` when absent.
  Result<long long> GetInt(const std::string& name, long long fallback, long long lo,
                           long long hi) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::set<std::string> valued_;
  std::set<std::string> booleans_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

}  // namespace gatehouse
