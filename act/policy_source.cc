#include "act/policy_source.h"

#include <fstream>
#include <sstream>
#include <utility>

namespace gatehouse::act {

PolicySource::PolicySource(GitHub& github, Options options)
    : github_(github), options_(std::move(options)) {}

std::string OverridePolicyPath(const std::string& override_dir, const RepoRef& repo) {
  return override_dir + "/" + repo.owner + "/" + repo.name + ".yml";
}

std::optional<std::string> ReadOverridePolicy(const std::string& override_dir,
                                              const RepoRef& repo) {
  if (override_dir.empty()) return std::nullopt;
  std::ifstream in(OverridePolicyPath(override_dir, repo), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

GitHubResult<LoadedPolicy> PolicySource::Load(const CallContext& call, const RepoRef& repo) {
  std::string source;
  std::string text;
  bool found = false;
  if (auto local = ReadOverridePolicy(options_.override_dir, repo)) {
    source = OverridePolicyPath(options_.override_dir, repo);
    text = std::move(*local);
    found = true;
  }
  if (!found) {
    auto file = github_.GetFileContents(call, repo, options_.policy_path, "");
    if (file.ok()) {
      source = repo.FullName() + ":" + options_.policy_path;
      text = std::move(file).value();
      found = true;
    } else if (file.error().kind != GitHubErrorKind::kNotFound) {
      return file.error();
    }
  }
  if (!found) return LoadedPolicy{options_.defaults, "defaults", ""};

  const std::string cache_key = source + '\0' + text;
  {
    MutexLock lock(&mu_);
    if (auto it = parsed_.find(cache_key); it != parsed_.end()) return it->second;
  }
  LoadedPolicy loaded;
  loaded.source = source;
  auto policy = decide::ParsePolicy(text, options_.defaults, source);
  if (policy.ok()) {
    loaded.policy = std::move(policy).value();
  } else {
    loaded.policy = options_.defaults;
    loaded.error = policy.status().message();
  }
  MutexLock lock(&mu_);
  if (parsed_.size() > 4096) parsed_.clear();
  parsed_.emplace(cache_key, loaded);
  return loaded;
}

}  // namespace gatehouse::act
