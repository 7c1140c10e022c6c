// sim::CommitGraph: the least git history the simulator needs to say whether one commit
// contains another — enough for a merge queue's integration branch (POST /merges) and for
// fast-forwarding the default branch to a tested commit (PATCH /git/refs).
//
// A repository's commits are of three sorts, and each *holds* a default-branch commit (its
// base) and a set of PR heads (PR number, head SHA) on top of it:
//   - the default branch's commits, a list oldest first (history): each holds itself and no
//     head (the PRs that landed in it are recorded as landed, below);
//   - PR heads: a head holds the default branch's tip when it was made (a PR opened, or an
//     update-branch merging the base in), or what the head it was pushed on top of held, and
//     itself;
//   - merge commits (POST /merges): the later of their parents' bases and both parents' heads.
// A PR head `h` is held by a commit that holds `h` or a later head of that PR (one pushed, or
// updated, on top of `h`, transitively), or whose base is at or after the default-branch
// commit that PR head landed in. "A contains B" is: A == B, or B's base is at or before A's
// base in the history and every head B holds is held by A. A fast-forward of the default
// branch from D to X is allowed iff X contains D.
//
// New SHAs are made by the model; the graph only records them. Not thread-safe: a plain value
// owned by the model's per-repository state and guarded by the model's lock.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gatehouse::sim {

class CommitGraph {
 public:
  // What a commit holds.
  struct Content {
    std::string base;                                // a default-branch commit
    std::vector<std::pair<int, std::string>> pulls;  // (PR number, head SHA) on top of it
  };
  // A merge commit to be: what it holds and the PRs it brings in that its base side lacked.
  struct Merge {
    Content content;
    std::vector<int> brought;
  };

  CommitGraph() = default;
  // A repository whose default branch starts at `root`.
  explicit CommitGraph(std::string root);

  // ---- the default branch ----
  const std::string& tip() const { return history_.back(); }
  // A new commit on top of the tip (a PR's merge commit, the base moving on).
  void Commit(const std::string& sha);
  // PR `number`'s head `head` is in the tip (the PR was merged into it).
  void Landed(int number, const std::string& head);
  // The default branch moves to `sha`, a known commit: its history becomes the history up to
  // `sha`'s base (all of it for a fast-forward) and then `sha`, or is cut after `sha` when
  // `sha` is in it already; the heads `sha` holds have landed in it.
  void MoveTip(const std::string& sha);

  // ---- PR heads (a SHA already known is not recorded again: a force-push back) ----
  // PR `number` opened at `sha`, on the tip.
  void OpenHead(int number, const std::string& sha);
  // `sha` pushed on top of the PR's head `parent`.
  void PushHead(int number, const std::string& sha, const std::string& parent);
  // `sha` made by an update-branch from `parent`: the tip merged in.
  void UpdateHead(int number, const std::string& sha, const std::string& parent);

  // ---- merge commits ----
  // What merging `head` into `into` (both known) makes.
  Merge Merged(const std::string& into, const std::string& head) const;
  void AddMerge(const std::string& sha, Content content);

  // ---- reads ----
  bool Knows(const std::string& sha) const { return ContentOf(sha).has_value(); }
  // What `sha` holds; nullopt for a commit the graph does not know.
  std::optional<Content> ContentOf(const std::string& sha) const;
  bool Contains(const std::string& a, const std::string& b) const;

 private:
  struct Head {
    int number = 0;
    std::string base;
    std::string parent;  // the head it was pushed or updated on; "" for a PR's first
  };
  struct Land {
    std::string at;  // the default-branch commit
    int number = 0;
    std::string head;
  };

  int HistoryIndex(const std::string& sha) const;  // -1 when not in the history
  bool AtOrBefore(const std::string& a, const std::string& b) const;
  // Whether PR `number`'s head `later` is `head` or was made on top of it.
  bool HeadAtOrAfter(int number, const std::string& later, const std::string& head) const;
  bool Holds(const Content& content, int number, const std::string& head) const;

  std::vector<std::string> history_;  // the default branch, oldest first; never empty
  std::map<std::string, Head> heads_;
  std::map<std::string, Content> merges_;
  std::vector<Land> landed_;
};

}  // namespace gatehouse::sim
