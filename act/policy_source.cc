#include "act/policy_source.h"

#include <fstream>
#include <sstream>
#include <utility>

namespace gatehouse::act {

PolicySource::PolicySource(GitHub& github, Options options)
    : github_(github), options_(std::move(options)) {}

GitHubResult<LoadedPolicy> PolicySource::Load(const CallContext& call, const RepoRef& repo) {
  std::string source;
  std::string text;
  bool found = false;
  if (!options_.override_dir.empty()) {
    source = options_.override_dir + "/" + repo.owner + "/" + repo.name + ".yml";
    std::ifstream in(source, std::ios::binary);
    if (in) {
      std::ostringstream buf;
      buf << in.rdbuf();
      text = buf.str();
      found = true;
    }
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
