// Model mutations and reads on reactions to issue comments, with GitHub's guards: one
// reaction per (user, content) and comment, a known content, an existing comment.
#include <algorithm>
#include <array>
#include <string_view>

#include "sim/model.h"

namespace gatehouse::sim {
namespace {

constexpr std::array<std::string_view, 8> kContents = {"+1",    "-1",     "laugh",  "confused",
                                                       "heart", "hooray", "rocket", "eyes"};

}  // namespace

Outcome Model::AddReaction(const std::string& who, const std::string& repo, int64_t comment_id,
                           const std::string& content, Reaction* out) {
  MutexLock lock(&mu_);
  const std::string detail = "comment=" + std::to_string(comment_id) + " content=" + content;
  RepoState* rs = FindLocked(repo);
  const Comment* comment = nullptr;
  if (rs != nullptr) {
    for (const Comment& c : rs->comments) {
      if (c.id == comment_id) comment = &c;
    }
  }
  if (comment == nullptr) {
    return RecordLocked(who, "reaction", repo, 0, "", {404, "Not Found"}, detail);
  }
  const int number = comment->number;
  if (std::find(kContents.begin(), kContents.end(), content) == kContents.end()) {
    return RecordLocked(who, "reaction", repo, number, "",
                        {422, "Validation Failed: content is not a valid reaction: " + content},
                        detail);
  }
  for (const Reaction& r : rs->reactions) {
    if (r.comment_id == comment_id && r.user == who && r.content == content) {
      if (out) *out = r;
      return RecordLocked(who, "reaction", repo, number, "", {200, ""},
                          detail + " id=" + std::to_string(r.id) + " existing");
    }
  }
  Reaction r;
  r.id = ++next_id_;
  r.comment_id = comment_id;
  r.user = who;
  r.content = content;
  r.created_at = clock_->Now();
  rs->reactions.push_back(r);
  if (out) *out = r;
  return RecordLocked(who, "reaction", repo, number, "", {201, ""},
                      detail + " id=" + std::to_string(r.id));
}

std::optional<std::vector<Reaction>> Model::ReactionsFor(const std::string& repo,
                                                         int64_t comment_id) const {
  MutexLock lock(&mu_);
  const RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return std::nullopt;
  if (std::none_of(rs->comments.begin(), rs->comments.end(),
                   [comment_id](const Comment& c) { return c.id == comment_id; })) {
    return std::nullopt;
  }
  std::vector<Reaction> out;
  for (const Reaction& r : rs->reactions) {
    if (r.comment_id == comment_id) out.push_back(r);
  }
  return out;
}

}  // namespace gatehouse::sim
