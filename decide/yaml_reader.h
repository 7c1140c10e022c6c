// YamlReader: the common ground of gatehouse's YAML files (the repository policy,
// .github/gatehouse.yml, and the server's own configuration files): every problem of a file
// is collected, each as "FILE:LINE: key.path: problem" naming what was expected and what was
// found, instead of stopping at the first. A parser for one file derives from it and builds
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
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse::decide {

// Parses a duration such as "45s", "30m", "2h", "1d" or "1h30m".
std::optional<Duration> ParseDuration(std::string_view text);

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
  // Records that `key_node` is not one of `allowed`.
  void Unknown(const YAML::Node& key_node, const std::string& path,
               std::initializer_list<std::string_view> allowed);

  std::optional<bool> Bool(const YAML::Node& v, const std::string& path);
  std::optional<int> NonNegativeInt(const YAML::Node& v, const std::string& path);
  std::optional<Duration> DurationValue(const YAML::Node& v, const std::string& path);
  // A list of non-empty strings.
  std::optional<std::vector<std::string>> StringList(const YAML::Node& v, const std::string& path);

  // Parses the mapping `node` key by key; a key that is not listed is an error that names
  // the listed ones, so the accepted keys and their parsers cannot drift apart.
  void Fields(const YAML::Node& node, const std::string& path, std::initializer_list<Field> fields);
  Field BoolField(std::string_view key, std::optional<bool>& out);
  Field StringField(std::string_view key, std::optional<std::string>& out);
  Field StringsField(std::string_view key, std::optional<std::vector<std::string>>& out);

 private:
  std::string filename_;
  std::vector<std::string> errors_;
};

}  // namespace gatehouse::decide
