#include "base/subject.h"

#include "base/ascii.h"

namespace gatehouse {
namespace {

constexpr size_t kMaxFullName = 256;
constexpr size_t kMaxDigits = 18;  // fits int64_t with room to spare

bool IsNameChar(char c) {
  const char l = AsciiLower(c);
  return (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.' || l == '_' || l == '-';
}

// Parses a positive decimal without a sign or leading zeros.
std::optional<int64_t> ParseNumber(std::string_view digits) {
  if (digits.empty() || digits.size() > kMaxDigits || digits[0] == '0') return std::nullopt;
  int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

bool IsRepoFullName(std::string_view s) {
  if (s.empty() || s.size() > kMaxFullName) return false;
  const size_t slash = s.find('/');
  if (slash == 0 || slash == std::string_view::npos || slash + 1 == s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i != slash && !IsNameChar(s[i])) return false;
  }
  return true;
}

std::optional<Subject> Subject::Parse(std::string_view text) {
  const size_t hash = text.find('#');
  if (hash == std::string_view::npos) return std::nullopt;
  const std::optional<int64_t> number = ParseNumber(text.substr(hash + 1));
  if (!number) return std::nullopt;
  return PullRequest(text.substr(0, hash), *number);
}

std::optional<Subject> Subject::PullRequest(std::string_view repo_full_name, int64_t number) {
  if (!IsRepoFullName(repo_full_name) || number <= 0) return std::nullopt;
  std::string key = AsciiLower(repo_full_name);
  const size_t slash = key.find('/');
  const size_t hash = key.size();
  key += '#';
  key += std::to_string(number);
  return Subject(std::move(key), slash, hash, number);
}

std::string RepoOfSubjectKey(std::string_view key) {
  const std::optional<Subject> s = Subject::Parse(key);
  return s ? std::string(s->repo_full_name()) : std::string();
}

}  // namespace gatehouse
