// Subject: what one mailbox is about (DESIGN.md §2). Every signal, work item, lease, ledger
// entry and audit row names its subject by key; today every subject is a pull request,
// keyed "owner/repo#N".
//
// A Subject is parsed once, at the edge where a key or a user's text comes in, and then
// carried as a value: the owner and repository are lower-cased (GitHub compares them
// case-insensitively), both are checked against GitHub's name alphabet [A-Za-z0-9._-] so
// that '/', '#', whitespace and control characters can never make a key ambiguous, and the
// number is a positive decimal without leading zeros. `key()` is the canonical spelling the
// store indexes by; Parse(key()) gives back the same subject.
//
// A merge queue's key is a QueueKey (below), parsed here too, so that no code outside this file
// splits keys by hand. (A review run's mailbox key is store/review_runs.h's ReviewWorkKey.)
//
// Value type; safe to copy and to read from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gatehouse {

// Whether `full_name` is "owner/repo" in GitHub's name alphabet (either case), at most 256
// characters.
bool IsRepoFullName(std::string_view full_name);

class Subject {
 public:
  // "Owner/Repo#12" (any case) -> the subject; nullopt when `text` is not that shape.
  static std::optional<Subject> Parse(std::string_view text);
  // The pull request `number` of `repo_full_name` ("Owner/Repo", any case); nullopt when the
  // name is not IsRepoFullName or the number is not positive.
  static std::optional<Subject> PullRequest(std::string_view repo_full_name, int64_t number);

  // "owner/repo#12": the canonical key.
  const std::string& key() const { return key_; }
  // "owner/repo", lower-cased.
  std::string_view repo_full_name() const { return std::string_view(key_).substr(0, hash_); }
  std::string_view owner() const { return std::string_view(key_).substr(0, slash_); }
  std::string_view repo_name() const {
    return std::string_view(key_).substr(slash_ + 1, hash_ - slash_ - 1);
  }
  int64_t number() const { return number_; }

  friend bool operator==(const Subject& a, const Subject& b) { return a.key_ == b.key_; }
  friend bool operator<(const Subject& a, const Subject& b) { return a.key_ < b.key_; }

 private:
  Subject(std::string key, size_t slash, size_t hash, int64_t number)
      : key_(std::move(key)), slash_(slash), hash_(hash), number_(number) {}

  std::string key_;
  size_t slash_;
  size_t hash_;
  int64_t number_;
};

// Whether `name` is a branch name git and GitHub accept (git check-ref-format, for a branch):
// 1 to 255 bytes of printable ASCII or UTF-8, no space, none of ~ ^ : ? * [ \, no "..", "//"
// or "@{", not "@" alone, no component starting with '.' or ending with ".lock", not starting
// or ending with '/' or ending with '.'.
bool IsBranchName(std::string_view name);

// A merge queue's mailbox (DESIGN.md §9, docs/MERGE_QUEUE.md): one per repository and base
// branch, keyed "owner/repo@<base>/queue". Owner and repository are lower-cased as in a
// Subject; the branch keeps its case (git's branch names are case-sensitive) and may hold '/'
// ("acme/app@release/2.x/queue"). A repository name never holds '@', so the first '@' ends it;
// the key ends with "/queue", so a branch that itself ends with "/queue" still round-trips.
// Value type, like Subject.
class QueueKey {
 public:
  // "Owner/Repo@main/queue" -> the queue; nullopt when `text` is not that shape.
  static std::optional<QueueKey> Parse(std::string_view text);
  // The queue of `base` in `repo_full_name`; nullopt for a name that is not IsRepoFullName or
  // a branch that is not IsBranchName.
  static std::optional<QueueKey> Of(std::string_view repo_full_name, std::string_view base);

  const std::string& key() const { return key_; }
  std::string_view repo_full_name() const { return std::string_view(key_).substr(0, at_); }
  std::string_view base() const {
    return std::string_view(key_).substr(at_ + 1, key_.size() - at_ - 1 - kSuffix.size());
  }

  friend bool operator==(const QueueKey& a, const QueueKey& b) { return a.key_ == b.key_; }
  friend bool operator<(const QueueKey& a, const QueueKey& b) { return a.key_ < b.key_; }

 private:
  static constexpr std::string_view kSuffix = "/queue";
  QueueKey(std::string key, size_t at) : key_(std::move(key)), at_(at) {}

  std::string key_;
  size_t at_;  // the '@' between repository and branch
};

// The repository part of a subject key ("owner/repo#12" -> "owner/repo"); empty when `key` is
// not a subject. For code that holds keys from the store and only needs the repository.
std::string RepoOfSubjectKey(std::string_view key);

}  // namespace gatehouse
