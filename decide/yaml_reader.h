// YamlReader: the common ground of gatehouse's YAML files (the repository policy,
// .github/gatehouse.yml, and the server's own configuration files): every problem of a file
// is collected, each as "FILE:LINE: key.path: problem" naming what was expected and what was
// found, instead of stopping at the first; one line each (control characters in what the
// file wrote are escaped as \xNN). A parser for one file derives from it and builds
// on its typed readers; each reader returns nullopt after recording its error, so a parser
// reads as a list of keys and never crashes on a wrong type.
//
// Also the duration syntax those files share ("45s", "30m", "2h", "1d", "1h30m").
//
// Not thread-safe (one reader per file); pure, no I/O.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse::decide {

// Parses a duration such as "45s", "30m", "2h", "1d" or "1h30m"; nullopt for anything else,
// and for anything longer than kMaxDurationSeconds (100 years).
inline constexpr int64_t kMaxDurationSeconds = int64_t{100} * 365 * 86400;
std::optional<Duration> ParseDuration(std::string_view text);

// The YAML text with every line break as YAML defines them (CR LF, a lone CR, LF) written as
// LF, as the YAML spec normalizes them. yaml-cpp takes a lone CR for part of a plain scalar
// ("nal\r" instead of "nal"), and its emitter writes it back raw, so the same file meant two
// things; every YAML text is loaded through this (policy_fuzz_test found it).
std::string NormalizeLineBreaks(std::string_view yaml);

class YamlReader {
 public:
  explicit YamlReader(std::string_view filename) : filename_(filename) {}

  const std::vector<std::string>& errors() const { return errors_; }
  // OK when no error was recorded; otherwise InvalidArgument with every error, one per line.
  Status Finish() const;

  void Error(const YAML::Node& at, std::string_view key, std::string_view problem);
  void AddError(int zero_based_line, std::string_view key, std::string_view problem);

  // What a node holds, for "expected X, got Y" messages.
  static std::string Describe(const YAML::Node& n);

  // One key of a mapping and what to do with its value.
  struct Field {
    std::string_view key;
    std::function<void(const YAML::Node& value, const std::string& path)> parse;
  };

 protected:
  // Returns false (after recording an error) unless `v` is a mapping.
  bool ExpectMap(const YAML::Node& v, std::string_view key);
  // False (after recording "duplicate key") when `key_node` already appeared in the mapping
  // whose keys `seen` collects. yaml-cpp keeps every copy of a repeated key; reading each
  // would let a second `reviewers:` add reviewers past the checks made on the first.
  bool FirstOccurrence(const YAML::Node& key_node, const std::string& path,
                       std::set<std::string>& seen);
  // Records that `key_node` is not one of `allowed`.
  void Unknown(const YAML::Node& key_node, const std::string& path,
               std::initializer_list<std::string_view> allowed);

  std::optional<bool> Bool(const YAML::Node& v, const std::string& path);
  std::optional<int> NonNegativeInt(const YAML::Node& v, const std::string& path);
  std::optional<Duration> DurationValue(const YAML::Node& v, const std::string& path);
  // A list of non-empty strings.
  std::optional<std::vector<std::string>> StringList(const YAML::Node& v, const std::string& path);

  // Parses the mapping `node` key by key; a key that is not listed is an error that names
  // the listed ones, so the accepted keys and their parsers cannot drift apart. A key given
  // twice is an error ("duplicate key"), and only its first value is read.
  void Fields(const YAML::Node& node, const std::string& path, std::initializer_list<Field> fields);
  Field BoolField(std::string_view key, std::optional<bool>& out);
  Field StringField(std::string_view key, std::optional<std::string>& out);
  Field StringsField(std::string_view key, std::optional<std::vector<std::string>>& out);

 private:
  std::string filename_;
  std::vector<std::string> errors_;
};

}  // namespace gatehouse::decide
