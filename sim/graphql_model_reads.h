// ModelReads: what one GraphQL query reads of the simulator's Model, each thing read once and
// kept for the rest of the query. A query answers from the state it read first, the way the
// REST endpoint it stands for would have (a commit's check runs are listed once, not once per
// field that asks), and the objects it hands out keep stable addresses until it is destroyed,
// so the executor can point into them while it resolves.
//
// Repositories and pull requests are looked up by the executor's caller-visible rules (which
// installation sees which repository); everything under a repository is read in the
// repository given. Not thread-safe: one per query.
#pragma once

#include <boost/json.hpp>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "sim/model.h"

namespace gatehouse::sim::graphql {

class ModelReads {
 public:
  explicit ModelReads(const Model& model) : model_(model) {}
  ModelReads(const ModelReads&) = delete;
  ModelReads& operator=(const ModelReads&) = delete;

  // The repository `full_name` when `installation_id` may see it (0 sees every one), else
  // null.
  const Repository* Repo(const std::string& full_name, int64_t installation_id);
  // The pull request `number` of `repo`, or null when there is none.
  const PullRequest* Pull(const Repository& repo, int64_t number);

  // The repository's pull requests whose GraphQL state (OPEN, CLOSED or MERGED) is one of
  // `states` (every one when empty), oldest first: Repository.pullRequests' default order.
  std::vector<const PullRequest*> Pulls(const Repository& repo,
                                        const std::vector<std::string>& states);
  // Whether `sha` is a commit of the repository (Model::KnowsCommit).
  bool KnowsCommit(const Repository& repo, const std::string& sha);
  // The PR's changed files, as GET /pulls/{n}/files lists them.
  const boost::json::array& FilesOf(const Repository& repo, const PullRequest& pr);
  // The PR's conversation comments, oldest first (as GET /issues/{n}/comments).
  const std::vector<Comment>& CommentsOf(const Repository& repo, int number);
  // Every check run on the SHA (as GET /commits/{sha}/check-runs).
  const std::vector<CheckRun>& RunsOf(const Repository& repo, const std::string& sha);
  // The combined status's statuses: the latest per context (as GET /commits/{sha}/status).
  const std::vector<CommitStatus>& StatusesOf(const Repository& repo, const std::string& sha);
  // The combined status's state, upper-cased as GraphQL's StatusState: FAILURE when any
  // latest status failed or errored, else PENDING when one is pending, else SUCCESS.
  std::string CombinedState(const Repository& repo, const std::string& sha);

 private:
  const Model& model_;
  std::deque<Repository> repos_;  // deques: stable addresses
  std::deque<PullRequest> pulls_;
  std::map<std::string, std::vector<CheckRun>> runs_;
  std::map<std::string, std::vector<Comment>> comments_;
  std::map<std::string, boost::json::array> files_;
  std::map<std::string, std::vector<CommitStatus>> statuses_;
};

}  // namespace gatehouse::sim::graphql
