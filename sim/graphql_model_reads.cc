#include "sim/graphql_model_reads.h"

#include <algorithm>
#include <optional>

#include "sim/render.h"

namespace gatehouse::sim::graphql {

const Repository* ModelReads::Repo(const std::string& full_name, int64_t installation_id) {
  std::optional<Repository> repo = model_.GetRepo(full_name);
  if (!repo || (installation_id != 0 && repo->installation_id != installation_id)) return nullptr;
  repos_.push_back(std::move(*repo));
  return &repos_.back();
}

bool ModelReads::KnowsCommit(const Repository& repo, const std::string& sha) {
  return model_.KnowsCommit(repo.full_name(), sha);
}

const PullRequest* ModelReads::Pull(const Repository& repo, int64_t number) {
  if (number <= 0 || number > 999'999'999) return nullptr;
  std::optional<PullRequest> pr = model_.GetPull(repo.full_name(), static_cast<int>(number));
  if (!pr) return nullptr;
  pulls_.push_back(std::move(*pr));
  return &pulls_.back();
}

std::vector<const PullRequest*> ModelReads::Pulls(const Repository& repo,
                                                  const std::vector<std::string>& states) {
  std::vector<PullRequest> listed = model_.ListPulls(repo.full_name(), "all");  // newest first
  std::vector<const PullRequest*> out;
  for (auto it = listed.rbegin(); it != listed.rend(); ++it) {
    const std::string state = it->merged ? "MERGED" : it->state == "open" ? "OPEN" : "CLOSED";
    if (!states.empty() && std::find(states.begin(), states.end(), state) == states.end()) continue;
    pulls_.push_back(std::move(*it));
    out.push_back(&pulls_.back());
  }
  return out;
}

const boost::json::array& ModelReads::FilesOf(const Repository& repo, const PullRequest& pr) {
  const std::string key = repo.full_name() + " #" + std::to_string(pr.number);
  auto it = files_.find(key);
  if (it == files_.end()) it = files_.emplace(key, RenderPullFiles(pr)).first;
  return it->second;
}

const std::vector<Comment>& ModelReads::CommentsOf(const Repository& repo, int number) {
  const std::string key = repo.full_name() + " #" + std::to_string(number);
  auto it = comments_.find(key);
  if (it == comments_.end())
    it = comments_.emplace(key, model_.CommentsFor(repo.full_name(), number)).first;
  return it->second;
}

const std::vector<CheckRun>& ModelReads::RunsOf(const Repository& repo, const std::string& sha) {
  const std::string key = repo.full_name() + " " + sha;
  auto it = runs_.find(key);
  if (it == runs_.end()) it = runs_.emplace(key, model_.CheckRunsFor(repo.full_name(), sha)).first;
  return it->second;
}

const std::vector<CommitStatus>& ModelReads::StatusesOf(const Repository& repo,
                                                        const std::string& sha) {
  const std::string key = repo.full_name() + " " + sha;
  auto it = statuses_.find(key);
  if (it != statuses_.end()) return it->second;
  std::vector<CommitStatus> latest;
  for (auto& st : model_.StatusesFor(repo.full_name(), sha)) {
    const bool seen = std::any_of(latest.begin(), latest.end(),
                                  [&](const CommitStatus& s) { return s.context == st.context; });
    if (!seen) latest.push_back(std::move(st));
  }
  return statuses_.emplace(key, std::move(latest)).first->second;
}

std::string ModelReads::CombinedState(const Repository& repo, const std::string& sha) {
  bool fail = false, pending = false;
  for (const auto& st : StatusesOf(repo, sha)) {
    fail |= st.state == "failure" || st.state == "error";
    pending |= st.state == "pending";
  }
  return fail ? "FAILURE" : pending ? "PENDING" : "SUCCESS";
}

}  // namespace gatehouse::sim::graphql
