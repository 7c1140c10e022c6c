#include "sim/commit_graph.h"

#include <algorithm>

namespace gatehouse::sim {

CommitGraph::CommitGraph(std::string root) { history_.push_back(std::move(root)); }

int CommitGraph::HistoryIndex(const std::string& sha) const {
  // Newest first: what the model asks about is mostly recent.
  for (size_t i = history_.size(); i-- > 0;) {
    if (history_[i] == sha) return static_cast<int>(i);
  }
  return -1;
}

bool CommitGraph::AtOrBefore(const std::string& a, const std::string& b) const {
  const int ia = HistoryIndex(a);
  const int ib = HistoryIndex(b);
  return ia >= 0 && ib >= 0 && ia <= ib;
}

void CommitGraph::Commit(const std::string& sha) { history_.push_back(sha); }

void CommitGraph::Landed(int number, const std::string& head) {
  landed_.push_back({.at = tip(), .number = number, .head = head});
}

void CommitGraph::MoveTip(const std::string& sha) {
  const std::optional<Content> content = ContentOf(sha);
  if (!content) return;
  if (const int at = HistoryIndex(sha); at >= 0) {
    history_.resize(static_cast<size_t>(at) + 1);  // back to a commit it had
    return;
  }
  // Up to the base the new tip holds: a fast-forward's base is the tip itself.
  if (const int base = HistoryIndex(content->base); base >= 0) {
    history_.resize(static_cast<size_t>(base) + 1);
  }
  history_.push_back(sha);
  for (const auto& [number, head] : content->pulls) Landed(number, head);
}

void CommitGraph::OpenHead(int number, const std::string& sha) {
  heads_.emplace(sha, Head{.number = number, .base = tip(), .parent = ""});
}

void CommitGraph::PushHead(int number, const std::string& sha, const std::string& parent) {
  const auto on = heads_.find(parent);
  heads_.emplace(sha, Head{.number = number,
                           .base = on == heads_.end() ? tip() : on->second.base,
                           .parent = parent});
}

void CommitGraph::UpdateHead(int number, const std::string& sha, const std::string& parent) {
  heads_.emplace(sha, Head{.number = number, .base = tip(), .parent = parent});
}

bool CommitGraph::HeadAtOrAfter(int number, const std::string& later,
                                const std::string& head) const {
  // Each head is recorded once, after its parent: the walk ends.
  for (std::string at = later; !at.empty();) {
    if (at == head) return true;
    const auto it = heads_.find(at);
    if (it == heads_.end() || it->second.number != number) return false;
    at = it->second.parent;
  }
  return false;
}

bool CommitGraph::Holds(const Content& content, int number, const std::string& head) const {
  for (const auto& [n, h] : content.pulls) {
    if (n == number && HeadAtOrAfter(number, h, head)) return true;
  }
  return std::any_of(landed_.begin(), landed_.end(), [&](const Land& l) {
    return l.number == number && AtOrBefore(l.at, content.base) &&
           HeadAtOrAfter(number, l.head, head);
  });
}

std::optional<CommitGraph::Content> CommitGraph::ContentOf(const std::string& sha) const {
  if (sha.empty()) return std::nullopt;
  if (HistoryIndex(sha) >= 0) return Content{.base = sha, .pulls = {}};
  if (auto merge = merges_.find(sha); merge != merges_.end()) return merge->second;
  if (auto head = heads_.find(sha); head != heads_.end()) {
    return Content{.base = head->second.base, .pulls = {{head->second.number, sha}}};
  }
  return std::nullopt;
}

bool CommitGraph::Contains(const std::string& a, const std::string& b) const {
  if (a == b) return Knows(a);
  const std::optional<Content> ca = ContentOf(a);
  const std::optional<Content> cb = ContentOf(b);
  if (!ca || !cb || !AtOrBefore(cb->base, ca->base)) return false;
  return std::all_of(cb->pulls.begin(), cb->pulls.end(),
                     [&](const auto& pull) { return Holds(*ca, pull.first, pull.second); });
}

CommitGraph::Merge CommitGraph::Merged(const std::string& into, const std::string& head) const {
  Merge out;
  const Content ours = ContentOf(into).value_or(Content{});
  const Content theirs = ContentOf(head).value_or(Content{});
  out.content = ours;
  if (HistoryIndex(theirs.base) > HistoryIndex(ours.base)) out.content.base = theirs.base;
  for (const auto& pull : theirs.pulls) {
    // Named copies: a lambda may not capture a structured binding (clang 14).
    const int number = pull.first;
    const std::string& h = pull.second;
    if (Holds(ours, number, h)) continue;
    // An earlier head of the PR is superseded by the one merged now.
    auto& pulls = out.content.pulls;
    pulls.erase(std::remove_if(pulls.begin(), pulls.end(),
                               [&](const auto& p) {
                                 return p.first == number && HeadAtOrAfter(number, h, p.second);
                               }),
                pulls.end());
    pulls.emplace_back(number, h);
    out.brought.push_back(number);
  }
  return out;
}

void CommitGraph::AddMerge(const std::string& sha, Content content) {
  merges_.emplace(sha, std::move(content));
}

}  // namespace gatehouse::sim
