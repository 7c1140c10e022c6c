// The command grammar of PR comments. See decide/commands.h.
#include "decide/commands.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "base/ascii.h"

namespace gatehouse::decide {
namespace {

constexpr std::string_view kBotSuffix = "[bot]";
constexpr size_t kMaxEchoedWord = 40;

constexpr std::array<std::pair<std::string_view, ParsedCommand::Kind>, 5> kWords = {{
    {"review", ParsedCommand::Kind::kReview},
    {"queue", ParsedCommand::Kind::kQueue},
    {"dequeue", ParsedCommand::Kind::kDequeue},
    {"merge", ParsedCommand::Kind::kMerge},
    {"refresh", ParsedCommand::Kind::kRefresh},
}};

std::string_view WithoutBotSuffix(std::string_view login) {
  if (login.size() > kBotSuffix.size() &&
      EqualsIgnoreCase(login.substr(login.size() - kBotSuffix.size()), kBotSuffix)) {
    login.remove_suffix(kBotSuffix.size());
  }
  return login;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The first line of `body` that holds more than whitespace, split into words.
std::vector<std::string_view> FirstLineWords(std::string_view body) {
  std::vector<std::string_view> words;
  while (!body.empty() && words.empty()) {
    const size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && IsSpace(line[i])) ++i;
      const size_t start = i;
      while (i < line.size() && !IsSpace(line[i])) ++i;
      if (i > start) words.push_back(line.substr(start, i - start));
    }
  }
  return words;
}

// Whether `word` addresses gatehouse: "/gatehouse" or "@<login>" (a trailing ':' or ',' allowed).
bool AddressesUs(std::string_view word, std::string_view app_login) {
  if (EqualsIgnoreCase(word, "/gatehouse")) return true;
  if (word.empty() || word[0] != '@') return false;
  word.remove_prefix(1);
  if (!word.empty() && (word.back() == ':' || word.back() == ',')) word.remove_suffix(1);
  const std::string_view base = WithoutBotSuffix(app_login);
  return !base.empty() && EqualsIgnoreCase(WithoutBotSuffix(word), base);
}

}  // namespace

ParsedCommand ParseCommand(std::string_view body, std::string_view app_login) {
  ParsedCommand cmd;
  const std::vector<std::string_view> words = FirstLineWords(body);
  if (words.empty() || !AddressesUs(words[0], app_login)) return cmd;
  cmd.kind = ParsedCommand::Kind::kUnknown;
  if (words.size() < 2) return cmd;
  for (const auto& [word, kind] : kWords) {
    if (EqualsIgnoreCase(words[1], word)) cmd.kind = kind;
  }
  if (cmd.kind == ParsedCommand::Kind::kUnknown) {
    cmd.word = std::string(words[1]);
  } else if (cmd.kind == ParsedCommand::Kind::kReview && words.size() >= 3) {
    cmd.role = AsciiLower(words[2]);
  }
  return cmd;
}

bool IsQueueCommand(ParsedCommand::Kind kind) {
  return kind == ParsedCommand::Kind::kQueue || kind == ParsedCommand::Kind::kDequeue ||
         kind == ParsedCommand::Kind::kMerge || kind == ParsedCommand::Kind::kRefresh;
}

std::string_view CommandWord(ParsedCommand::Kind kind) {
  for (const auto& [word, k] : kWords) {
    if (k == kind) return word;
  }
  return "";
}

bool IsSelf(std::string_view author, std::string_view app_login) {
  return EqualsIgnoreCase(author, app_login) ||
         EqualsIgnoreCase(author, std::string(WithoutBotSuffix(app_login)) + "[bot]");
}

std::string Echo(std::string_view word) {
  std::string out(word.substr(0, kMaxEchoedWord));
  std::replace(out.begin(), out.end(), '`', '\'');
  return out;
}

}  // namespace gatehouse::decide
