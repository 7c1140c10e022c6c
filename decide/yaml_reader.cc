// The common ground of gatehouse's YAML files. See decide/yaml_reader.h.
#include "decide/yaml_reader.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "base/ascii.h"

namespace gatehouse::decide {

std::string NormalizeLineBreaks(std::string_view yaml) {
  std::string out;
  out.reserve(yaml.size());
  for (size_t i = 0; i < yaml.size(); ++i) {
    if (yaml[i] != '\r') {
      out += yaml[i];
    } else if (i + 1 >= yaml.size() || yaml[i + 1] != '\n') {
      out += '\n';  // a lone CR; the CR of CR LF is dropped and its LF kept
    }
  }
  return out;
}

std::optional<Duration> ParseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // Counted in seconds and bounded, so that no spelling ("9999999999999999d") can overflow
  // the arithmetic or the microsecond Duration.
  int64_t total_seconds = 0;
  while (!text.empty()) {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || n < 0 || end == text.data() + text.size()) return std::nullopt;
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    const char unit = text.front();
    text.remove_prefix(1);
    int64_t unit_seconds = 0;
    switch (unit) {
      case 's':
        unit_seconds = 1;
        break;
      case 'm':
        unit_seconds = 60;
        break;
      case 'h':
        unit_seconds = 3600;
        break;
      case 'd':
        unit_seconds = 86400;
        break;
      default:
        return std::nullopt;
    }
    if (n > (kMaxDurationSeconds - total_seconds) / unit_seconds) return std::nullopt;
    total_seconds += n * unit_seconds;
  }
  return std::chrono::seconds(total_seconds);
}

namespace {

// Keys and values are echoed into messages that hold one error per line (and end up in
// check runs and logs): a control character a file smuggles in (a quoted "a\nb" key) is
// written as \xNN instead.
void AppendPrintable(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0x0f]);
    } else {
      out.push_back(c);
    }
  }
}

}  // namespace

Status YamlReader::Finish() const {
  if (errors_.empty()) return Status::Ok();
  std::string msg;
  for (const std::string& e : errors_) {
    if (!msg.empty()) msg += "\n";
    msg += e;
  }
  return InvalidArgument(std::move(msg));
}

// What a node holds, for "expected X, got Y" messages.
std::string YamlReader::Describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return "\"" + n.Scalar() + "\"";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

void YamlReader::Error(const YAML::Node& at, std::string_view key, std::string_view problem) {
  AddError(at.Mark().line, key, problem);
}
void YamlReader::AddError(int zero_based_line, std::string_view key, std::string_view problem) {
  std::string msg = filename_ + ":";
  if (zero_based_line >= 0) msg += std::to_string(zero_based_line + 1) + ":";
  msg += " ";
  AppendPrintable(msg, key);
  msg += ": ";
  AppendPrintable(msg, problem);
  errors_.push_back(std::move(msg));
}

// Returns false (after recording an error) unless `v` is a mapping.
bool YamlReader::ExpectMap(const YAML::Node& v, std::string_view key) {
  if (v.IsMap()) return true;
  Error(v, key, "expected a mapping, got " + Describe(v));
  return false;
}

void YamlReader::Unknown(const YAML::Node& key_node, const std::string& path,
                         std::initializer_list<std::string_view> allowed) {
  std::string list;
  for (std::string_view a : allowed) {
    if (!list.empty()) list += ", ";
    list += a;
  }
  Error(key_node, path, "unknown key (expected one of: " + list + ")");
}

std::optional<bool> YamlReader::Bool(const YAML::Node& v, const std::string& path) {
  if (v.IsScalar()) {
    const std::string s = AsciiLower(v.Scalar());
    if (s == "true") return true;
    if (s == "false") return false;
  }
  Error(v, path, "expected true or false, got " + Describe(v));
  return std::nullopt;
}

std::optional<int> YamlReader::NonNegativeInt(const YAML::Node& v, const std::string& path) {
  if (v.IsScalar()) {
    const std::string& s = v.Scalar();
    int value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size() && value >= 0) return value;
  }
  Error(v, path, "expected a non-negative integer, got " + Describe(v));
  return std::nullopt;
}

std::optional<Duration> YamlReader::DurationValue(const YAML::Node& v, const std::string& path) {
  if (v.IsScalar()) {
    if (auto d = ParseDuration(v.Scalar())) return d;
  }
  Error(v, path, "expected a duration such as 30m, 2h or 1h30m, got " + Describe(v));
  return std::nullopt;
}

std::optional<std::vector<std::string>> YamlReader::StringList(const YAML::Node& v,
                                                               const std::string& path) {
  if (!v.IsSequence()) {
    Error(v, path, "expected a list of strings, got " + Describe(v));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    const YAML::Node item = v[i];
    if (!item.IsScalar() || item.Scalar().empty()) {
      Error(item, path + "[" + std::to_string(i) + "]",
            "expected a non-empty string, got " + Describe(item));
      ok = false;
      continue;
    }
    out.push_back(item.Scalar());
  }
  if (!ok) return std::nullopt;
  return out;
}

// Parses the mapping `node` key by key; a key that is not listed is an error that names
// the listed ones, so the accepted keys and their parsers cannot drift apart.
bool YamlReader::FirstOccurrence(const YAML::Node& key_node, const std::string& path,
                                 std::set<std::string>& seen) {
  if (seen.insert(key_node.Scalar()).second) return true;
  Error(key_node, path, "duplicate key");
  return false;
}

void YamlReader::Fields(const YAML::Node& node, const std::string& path,
                        std::initializer_list<Field> fields) {
  if (!ExpectMap(node, path)) return;
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const std::string p = path + "." + key;
    if (!FirstOccurrence(kv.first, p, seen)) continue;
    auto it =
        std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.key == key; });
    if (it != fields.end()) {
      it->parse(kv.second, p);
      continue;
    }
    std::string list;
    for (const Field& f : fields) {
      if (!list.empty()) list += ", ";
      list += f.key;
    }
    Error(kv.first, p, "unknown key (expected one of: " + list + ")");
  }
}

YamlReader::Field YamlReader::BoolField(std::string_view key, std::optional<bool>& out) {
  return {key, [this, &out](const YAML::Node& v, const std::string& p) { out = Bool(v, p); }};
}
YamlReader::Field YamlReader::StringField(std::string_view key, std::optional<std::string>& out) {
  return {key, [this, &out](const YAML::Node& v, const std::string& p) {
            if (v.IsScalar() && !v.Scalar().empty()) {
              out = v.Scalar();
            } else {
              Error(v, p, "expected a non-empty string, got " + Describe(v));
            }
          }};
}
YamlReader::Field YamlReader::StringsField(std::string_view key,
                                           std::optional<std::vector<std::string>>& out) {
  return {key, [this, &out](const YAML::Node& v, const std::string& p) { out = StringList(v, p); }};
}

}  // namespace gatehouse::decide
