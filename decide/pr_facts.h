// The PR facts: what the router learns from a webhook that a pass cannot read back from the
// REST endpoints it uses (store/repo_directory.h's PrFact), written by engine/router.cc and read
// by act/. Their names and value formats are defined here, once.
//
//   reopened   "<login> <ROLE>": who reopened it, ROLE the author's association when the
//              author did, else COLLABORATOR (only people with write access can reopen
//              someone else's pull request). `at`: when the delivery was received.
//   closed_by  "<login>", or "<login> merged". `at`: when the delivery was received.
//   pushed     the new head SHA (lower case). `at`: GitHub's time of the push (the payload's
//              pull_request.updated_at), so it orders against gatehouse's own reads
//              (act/head_occurrence.h).
//
// Header-only pure functions; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gatehouse::decide {

inline constexpr std::string_view kFactReopened = "reopened";
inline constexpr std::string_view kFactClosedBy = "closed_by";
inline constexpr std::string_view kFactPushed = "pushed";

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
