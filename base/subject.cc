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

bool IsBranchName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "@") return false;
  if (name.front() == '/' || name.back() == '/' || name.back() == '.') return false;
  if (name.find("..") != std::string_view::npos || name.find("//") != std::string_view::npos ||
      name.find("@{") != std::string_view::npos) {
    return false;
  }
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == 0x7f) return false;  // controls and space
    if (c == '~' || c == '^' || c == ':' || c == '?' || c == '*' || c == '[' || c == '\\') {
      return false;
    }
  }
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view part = name.substr(start, end - start);
    if (part.front() == '.') return false;  // not empty: "//" and the ends were refused above
    if (part.size() >= 5 && part.substr(part.size() - 5) == ".lock") return false;
    start = end + 1;
  }
  return true;
}

std::optional<QueueKey> QueueKey::Parse(std::string_view text) {
  if (text.size() <= kSuffix.size() || text.substr(text.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  const size_t at = text.find('@');
  if (at == std::string_view::npos) return std::nullopt;
  return Of(text.substr(0, at), text.substr(at + 1, text.size() - kSuffix.size() - at - 1));
}

std::optional<QueueKey> QueueKey::Of(std::string_view repo_full_name, std::string_view base) {
  if (!IsRepoFullName(repo_full_name) || !IsBranchName(base)) return std::nullopt;
  std::string key = AsciiLower(repo_full_name);
  const size_t at = key.size();
  key += '@';
  key += base;
  key += kSuffix;
  return QueueKey(std::move(key), at);
}

std::string RepoOfSubjectKey(std::string_view key) {
  const std::optional<Subject> s = Subject::Parse(key);
  return s ? std::string(s->repo_full_name()) : std::string();
}

}  // namespace gatehouse
