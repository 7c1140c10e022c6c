// Glob matching for check names and file paths in policy rules.
//
// `?` matches one character, `*` matches any run of characters, `**` matches any run of
// characters including `/`, and `**/` also matches zero directories ("docs/**/*.md" matches
// "docs/a.md"). In path mode a single `*` or `?` never crosses `/`; in name mode (check
// names such as "ci/build") `/` is an ordinary character. Matching is case-sensitive.
// Pure functions; safe from any thread.
#pragma once

#include <string_view>

namespace gatehouse::decide {

enum class GlobMode { kName, kPath };

bool GlobMatch(std::string_view pattern, std::string_view text, GlobMode mode);

// True when `pattern` contains a wildcard, i.e. it may match more than one name.
bool IsGlob(std::string_view pattern);

}  // namespace gatehouse::decide
