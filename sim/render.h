// GitHub-shaped JSON for the model's objects, shared by the REST API and the webhook
// payloads so that both say the same thing about a PR. Only the fields a GitHub client or a
// webhook router reads are rendered, with GitHub's names and types (null where GitHub sends
// null). Pure functions.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/app_identity.h"
#include "sim/faults.h"
#include "sim/model.h"

namespace gatehouse::sim {

// A timestamp as GitHub writes it: UTC, whole seconds ("2026-11-30T12:00:00Z"). A client must
// cope with several events in one second, as it must on GitHub.
std::string GitHubTime(Time t);

// `type` "" guesses from the login: installation:* and *[bot] are "Bot", others "User".
// Every rendered user shows the App as AppLogin() (sim/app_identity.h).
boost::json::object RenderUser(const std::string& login, const std::string& type = "");
// The id RenderUser gives `login`: deterministic and non-negative, for every length of login.
int64_t StableUserId(std::string_view login);
boost::json::object RenderRepo(const Repository& repo);
// The full PR, as GET /pulls/{n} and webhooks carry it.
boost::json::object RenderPull(const Repository& repo, const PullRequest& pr);
// The PR as list endpoints (GET /pulls, GET /commits/{sha}/pulls) carry it: GitHub's
// "pull-request-simple", without merged, mergeable, mergeable_state, merged_by, commits,
// additions, deletions and changed_files.
boost::json::object RenderPullInList(const Repository& repo, const PullRequest& pr);
// GET /pulls/{n}/files: one entry per changed file. A described file (PullRequest::
// file_changes) shows as given; the others share the PR's remaining additions and deletions,
// with a synthetic patch of that many "-removed line i of PATH" / "+added line i of PATH"
// lines (none beyond kMaxSyntheticPatchLines lines, as GitHub omits the patch of a large diff).
boost::json::array RenderPullFiles(const PullRequest& pr);
inline constexpr int kMaxSyntheticPatchLines = 1000;
// The synthetic patch of an undescribed file; "" for no lines or too many.
std::string SyntheticPatch(const std::string& path, int additions, int deletions);
boost::json::object RenderReview(const Repository& repo, int number, const Review& review);
boost::json::object RenderCheckRun(const Repository& repo, const CheckRun& run,
                                   const std::vector<const PullRequest*>& prs);
boost::json::object RenderStatus(const Repository& repo, const CommitStatus& status);
boost::json::object RenderComment(const Repository& repo, const Comment& comment);
boost::json::object RenderReaction(const Reaction& reaction);

// The webhook payload for `n` (action, number, the object, repository, installation,
// sender), shaped like the fixtures in ../shared/fixtures/github-webhooks/.
boost::json::object RenderWebhook(const Notification& n);
// What webhook rules match the delivery of `n` on: its action and its PR (n.pr), or every
// PR a check run, check suite or status lists (n.prs).
DeliveryMeta DeliveryMetaOf(const Notification& n);

}  // namespace gatehouse::sim
