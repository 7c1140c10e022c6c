// See app/reviewers_setup.h.
#include "app/reviewers_setup.h"

#include <fstream>
#include <sstream>
#include <utility>

namespace gatehouse::app {

Result<decide::ReviewersConfig> ReadReviewersFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read the reviewers file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return decide::ParseReviewersConfig(text.str(), path);
}

Result<LoadedReviewers> LoadReviewers(const std::string& path) {
  auto config = ReadReviewersFile(path);
  if (!config.ok()) return config.status();
  LoadedReviewers loaded;
  loaded.config = std::move(config).value();
  for (const decide::ReviewerSpec& r : loaded.config.reviewers) {
    auto executor = review::MakeExecutor(r.executor);
    if (!executor.ok()) {
      return InvalidArgument(path + ": reviewer " + r.name + ": " + executor.status().message());
    }
    loaded.executors[r.name] = std::shared_ptr<review::ReviewExecutor>(std::move(executor).value());
  }
  return loaded;
}

}  // namespace gatehouse::app
