// PolicySource: where a pass gets a repository's policy (docs/PASS.md, "The policy").
//
// The operator override file `<override_dir>/<owner>/<repo>.yml` if it exists (for
// repositories that cannot carry the file), else `<policy_path>` (`.github/gatehouse.yml`) on
// the repository's default branch, merged key by key over the server defaults
// (decide::ParsePolicy). No file means the defaults. GitHubClient caches the file by ETag, so an
// unchanged file costs a 304, and this class caches the parsed policy by its text, so an
// unchanged file is not parsed again.
//
// Thread-safe: one PolicySource serves every worker of a pool.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "base/mutex.h"
#include "decide/policy.h"
#include "github/github.h"

namespace gatehouse::act {

// The operator override file of `repo` under `override_dir`, and its text (nullopt when there
// is none, or no `override_dir`).
std::string OverridePolicyPath(const std::string& override_dir, const RepoRef& repo);
std::optional<std::string> ReadOverridePolicy(const std::string& override_dir, const RepoRef& repo);

struct LoadedPolicy {
  decide::Policy policy;  // what the pass decides by (the defaults when `error` is set)
  std::string source;     // "defaults", "<owner>/<repo>:<policy_path>", or the override file
  std::string error;      // non-empty: the file is invalid (every error, with line and key)
};

class PolicySource {
 public:
  struct Options {
    decide::Policy defaults;   // the server defaults under every repository's file
    std::string policy_path;   // the file on the default branch
    std::string override_dir;  // "" = none
  };
  PolicySource(GitHub& github, Options options);

  // The policy for `repo`, read with `call`. An invalid file is not an error here: the result
  // carries the defaults and the file's errors. Fails only when the file cannot be read (a
  // GitHub error other than 404, which means "no file").
  GitHubResult<LoadedPolicy> Load(const CallContext& call, const RepoRef& repo);

  const std::string& policy_path() const { return options_.policy_path; }

 private:
  GitHub& github_;
  const Options options_;

  Mutex mu_;
  // Parsed policies by source text; key: source + '\0' + text. Bounded: cleared past 4096
  // entries (one per repository and file version).
  std::map<std::string, LoadedPolicy> parsed_ GUARDED_BY(mu_);
};

}  // namespace gatehouse::act
