// The PR facts: what the router learns from a webhook that a pass cannot read back from the
// REST endpoints it uses (store/repo_directory.h's PrFact), written by engine/router.cc and read
// by act/. Their names and value formats are defined here, once.
//
//   reopened   "<login> <ROLE>": who reopened it, ROLE the author's association when the
//              author did, else COLLABORATOR (only people with write access can reopen
//              someone else's pull request). `at`: when the delivery was received.
//   closed_by  "<login>", or "<login> merged". `at`: when the delivery was received.
//   command:<comment id>
//              "<login> <ASSOCIATION> <line>": a comment that may address gatehouse (its first
//              non-empty line starts with "/gatehouse" or "@"), who wrote it and their
//              association, and that line (at most 256 bytes). Recorded from
//              issue_comment.created only, so an edit never makes a new command, and the
//              comment id names it once (docs/REVIEWERS.md, "Commands").
//   pushed     the new head SHA (lower case). `at`: GitHub's time of the push (the payload's
//              pull_request.updated_at), so it orders against gatehouse's own reads
//              (act/head_occurrence.h).
//
// Header-only pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gatehouse::decide {

inline constexpr std::string_view kFactReopened = "reopened";
inline constexpr std::string_view kFactClosedBy = "closed_by";
inline constexpr std::string_view kFactPushed = "pushed";
inline constexpr std::string_view kFactCommandPrefix = "command:";

inline std::string CommandFactName(int64_t comment_id) {
  return std::string(kFactCommandPrefix) + std::to_string(comment_id);
}

inline std::string CommandValue(std::string_view login, std::string_view association,
                                std::string_view line) {
  std::string v(login);
  v += ' ';
  v += association.empty() ? std::string_view("NONE") : association;
  v += ' ';
  v += line.substr(0, 256);
  return v;
}

struct CommandFact {
  int64_t comment_id = 0;
  std::string login;
  std::string association;
  std::string line;
};

// A `command:<id>` fact's name and value -> its parts; nullopt for any other fact or a
// malformed one.
inline std::optional<CommandFact> ParseCommandFact(std::string_view name, std::string_view value) {
  if (name.substr(0, kFactCommandPrefix.size()) != kFactCommandPrefix) return std::nullopt;
  CommandFact f;
  std::string_view id = name.substr(kFactCommandPrefix.size());
  if (id.empty() || id.size() > 18) return std::nullopt;
  for (char c : id) {
    if (c < '0' || c > '9') return std::nullopt;
    f.comment_id = f.comment_id * 10 + (c - '0');
  }
  const size_t a = value.find(' ');
  if (a == std::string_view::npos || a == 0) return std::nullopt;
  const size_t b = value.find(' ', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  f.login = std::string(value.substr(0, a));
  f.association = std::string(value.substr(a + 1, b - a - 1));
  f.line = std::string(value.substr(b + 1));
  return f;
}

inline std::string ReopenedValue(std::string_view login, std::string_view role) {
  std::string v(login);
  v += ' ';
  v += role;
  return v;
}

struct ReopenedBy {
  std::string login;
  std::string role;  // as GitHub spells an author association: OWNER, MEMBER, ...
};

// "<login> <ROLE>" -> its parts; nullopt when there is no login. A missing role is empty.
inline std::optional<ReopenedBy> ParseReopenedValue(std::string_view value) {
  const size_t space = value.find(' ');
  ReopenedBy by{std::string(value.substr(0, space)), ""};
  if (by.login.empty()) return std::nullopt;
  if (space != std::string_view::npos) {
    std::string_view role = value.substr(space + 1);
    by.role = std::string(role.substr(0, role.find(' ')));
  }
  return by;
}

inline std::string ClosedByValue(std::string_view login, bool merged) {
  std::string v(login);
  if (merged) v += " merged";
  return v;
}

}  // namespace gatehouse::decide
