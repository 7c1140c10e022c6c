// Reading a webhook payload for the router (engine/router.cc): fields by dotted path, each
// typed getter saying which field was missing or mistyped, and the checks that keep what a
// payload names (repositories, commits) well-formed before it becomes a subject key.
//
// Internal to routing; pure functions over the decoded payload, safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/subject.h"  // IsRepoFullName: the alphabet of owner and repository names

namespace gatehouse::routing {

// Event and action names are echoed into `why`; a hostile or broken sender should not be able
// to make that string (stored with the delivery, printed by the CLI) arbitrarily long. `s`
// clipped to 64 bytes, with "..." when it was longer.
std::string Clip(std::string_view s);

// A commit SHA: 40 hex digits, or 64 for SHA-256 repositories (either case).
bool IsSha(std::string_view s);

// Reads fields of one payload by dotted path ("pull_request.head.sha"). Each typed getter
// returns nullopt on a missing or mistyped field and remembers a `why` that names the field,
// so callers read as a column of early returns and the ignore reason is always specific.
// Borrows `root`, which must outlive the reader.
class PayloadReader {
 public:
  explicit PayloadReader(const boost::json::object& root) : root_(root) {}

  // The value at `path`, or nullptr when any step is missing or not an object. A JSON null
  // counts as missing: GitHub sends null for absent optional objects (issue.pull_request).
  const boost::json::value* Find(std::string_view path) const;

  std::optional<std::string_view> String(std::string_view path);
  // GitHub numbers PRs from 1; anything else cannot name a pull request.
  std::optional<int64_t> PositiveInt(std::string_view path);
  // A validated "owner/repo" from repository.full_name (as sent, not lower-cased).
  std::optional<std::string_view> RepoFullName();
  // A commit SHA (IsSha), lower-cased.
  std::optional<std::string> Sha(std::string_view path);

  // Why the last getter that failed did.
  const std::string& why() const { return why_; }

 private:
  std::nullopt_t Fail(std::string_view path, const std::string& what);

  const boost::json::object& root_;
  std::string why_;
};

// A string field, or nullopt when it is missing, not a string, or empty. Records no `why`.
std::optional<std::string_view> NonEmptyString(const PayloadReader& in, std::string_view path);

}  // namespace gatehouse::routing
