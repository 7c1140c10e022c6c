#include "sim/graphql_document.h"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>

namespace gatehouse::sim::graphql {
namespace json = boost::json;
namespace {

enum class Kind { kEnd, kPunct, kName, kInt, kFloat, kString };

struct Token {
  Kind kind = Kind::kEnd;
  std::string text;  // the punctuator, the name, the number's digits or the string's value
  int line = 1;
  int column = 1;
};

// GitHub's names for the punctuators in its parse errors.
std::string PunctName(const std::string& p) {
  static const std::map<std::string, std::string> kNames = {
      {"{", "LCURLY"},   {"}", "RCURLY"},     {"(", "LPAREN"},   {")", "RPAREN"}, {"[", "LBRACKET"},
      {"]", "RBRACKET"}, {":", "COLON"},      {"$", "VAR_SIGN"}, {"!", "BANG"},   {"=", "EQUALS"},
      {"@", "DIR_SIGN"}, {"...", "ELLIPSIS"}, {"|", "PIPE"},     {"&", "AMP"}};
  auto it = kNames.find(p);
  return it == kNames.end() ? "UNKNOWN_CHAR" : it->second;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // The next token; an error for a character GraphQL has no use for or an unterminated string.
  Result<Token> Next() {
    SkipIgnored();
    Token t;
    t.line = line_;
    t.column = column_;
    if (pos_ >= text_.size()) return t;
    const char c = text_[pos_];
    if (text_.substr(pos_, 3) == "...") {
      Advance(3);
      t.kind = Kind::kPunct;
      t.text = "...";
      return t;
    }
    if (std::string_view("!$()[]:={}@|&").find(c) != std::string_view::npos) {
      Advance(1);
      t.kind = Kind::kPunct;
      t.text = std::string(1, c);
      return t;
    }
    if (c == '_' || std::isalpha(static_cast<unsigned char>(c))) {
      size_t end = pos_;
      while (end < text_.size() &&
             (text_[end] == '_' || std::isalnum(static_cast<unsigned char>(text_[end])))) {
        ++end;
      }
      t.kind = Kind::kName;
      t.text = std::string(text_.substr(pos_, end - pos_));
      Advance(end - pos_);
      return t;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return Number(t);
    if (c == '"') return String(t);
    return Status(StatusCode::kInvalidArgument,
                  "Parse error on \"" + std::string(1, c) + "\" (UNKNOWN_CHAR) at " + Where(t));
  }

  static std::string Where(const Token& t) {
    return "[" + std::to_string(t.line) + ", " + std::to_string(t.column) + "]";
  }

 private:
  void Advance(size_t n) {
    for (size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
    }
  }

  void SkipIgnored() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
        Advance(1);
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance(1);
      } else if (text_.substr(pos_, 3) == "\xEF\xBB\xBF") {
        Advance(3);  // a byte-order mark
      } else {
        return;
      }
    }
  }

  Result<Token> Number(Token t) {
    size_t end = pos_;
    if (text_[end] == '-') ++end;
    bool is_float = false;
    auto digits = [&] {
      const size_t start = end;
      while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
      return end > start;
    };
    bool ok = digits();
    if (ok && end < text_.size() && text_[end] == '.') {
      ++end;
      is_float = true;
      ok = digits();
    }
    if (ok && end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      ++end;
      is_float = true;
      if (end < text_.size() && (text_[end] == '+' || text_[end] == '-')) ++end;
      ok = digits();
    }
    t.text = std::string(text_.substr(pos_, end - pos_));
    Advance(end - pos_);
    if (!ok) {
      return Status(StatusCode::kInvalidArgument,
                    "Parse error on \"" + t.text + "\" (error) at " + Where(t));
    }
    t.kind = is_float ? Kind::kFloat : Kind::kInt;
    return t;
  }

  Result<Token> String(Token t) {
    t.kind = Kind::kString;
    if (text_.substr(pos_, 3) == "\"\"\"") {  // a block string, taken as written
      const size_t end = text_.find("\"\"\"", pos_ + 3);
      if (end == std::string_view::npos) return Unterminated(t);
      t.text = std::string(text_.substr(pos_ + 3, end - pos_ - 3));
      Advance(end + 3 - pos_);
      return t;
    }
    Advance(1);
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_];
      if (c == '\n') return Unterminated(t);
      if (c == '\\' && pos_ + 1 < text_.size()) {
        const char e = text_[pos_ + 1];
        static const std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
        const size_t at = kFrom.find(e);
        if (at != std::string_view::npos) {
          t.text += kTo[at];
          Advance(2);
          continue;
        }
        if (e == 'u' && pos_ + 6 <= text_.size()) {
          const std::string hex(text_.substr(pos_ + 2, 4));
          char* stop = nullptr;
          const long code = std::strtol(hex.c_str(), &stop, 16);
          if (stop != hex.c_str() + 4) return Unterminated(t);
          AppendUtf8(code, &t.text);
          Advance(6);
          continue;
        }
        return Unterminated(t);
      }
      t.text += c;
      Advance(1);
    }
    if (pos_ >= text_.size()) return Unterminated(t);
    Advance(1);
    return t;
  }

  static void AppendUtf8(long code, std::string* out) {
    const auto u = static_cast<unsigned long>(code);
    if (u < 0x80) {
      *out += static_cast<char>(u);
    } else if (u < 0x800) {
      *out += static_cast<char>(0xC0 | (u >> 6));
      *out += static_cast<char>(0x80 | (u & 0x3F));
    } else {
      *out += static_cast<char>(0xE0 | (u >> 12));
      *out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (u & 0x3F));
    }
  }

  static Status Unterminated(const Token& t) {
    return Status(
        StatusCode::kInvalidArgument,
        "Parse error on bad Unicode escape sequence or unterminated string at " + Where(t));
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

// The deepest nesting of selections and values the simulator follows (GitHub refuses deep
// queries too); it keeps the recursion bounded for any input.
constexpr int kMaxDepth = 64;

class Parser {
 public:
  Parser(std::string_view text, const json::object& variables)
      : lexer_(text), variables_(variables) {}

  Result<Document> Parse() {
    if (Status s = Step(); !s.ok()) return s;
    Document doc;
    bool have_operation = false;
    while (tok_.kind != Kind::kEnd) {
      if (IsName("fragment")) {
        if (Status s = FragmentDefinition(); !s.ok()) return s;
        continue;
      }
      if (have_operation) {
        return Status(StatusCode::kInvalidArgument,
                      "the simulator serves one operation per document");
      }
      have_operation = true;
      if (IsName("mutation") || IsName("subscription")) {
        return Status(StatusCode::kInvalidArgument,
                      "the simulator serves queries only, not a " + tok_.text);
      }
      if (IsName("query")) {
        if (Status s = Step(); !s.ok()) return s;
        if (tok_.kind == Kind::kName) {
          doc.operation_name = op_name_ = tok_.text;
          if (Status s = Step(); !s.ok()) return s;
        }
        if (IsPunct("(")) {
          if (Status s = VariableDefinitions(); !s.ok()) return s;
        }
      }
      if (Status s = NoDirectives(); !s.ok()) return s;
      auto set = SelectionSet(0);
      if (!set.ok()) return set.status();
      doc.selections = std::move(set).value();
    }
    if (!have_operation) {
      return Status(StatusCode::kInvalidArgument, "the document holds no query operation");
    }
    std::set<std::string> expanding;
    if (Status s = Expand(&doc.selections, &expanding, 0); !s.ok()) return s;
    return doc;
  }

 private:
  bool IsName(std::string_view name) const { return tok_.kind == Kind::kName && tok_.text == name; }
  bool IsPunct(std::string_view p) const { return tok_.kind == Kind::kPunct && tok_.text == p; }

  Status Step() {
    auto t = lexer_.Next();
    if (!t.ok()) return t.status();
    tok_ = std::move(t).value();
    return Status();
  }

  Status Unexpected() const {
    if (tok_.kind == Kind::kEnd) {
      return Status(StatusCode::kInvalidArgument, "Unexpected end of document");
    }
    const std::string kind = tok_.kind == Kind::kPunct    ? PunctName(tok_.text)
                             : tok_.kind == Kind::kName   ? "IDENTIFIER"
                             : tok_.kind == Kind::kString ? "STRING"
                             : tok_.kind == Kind::kInt    ? "INT"
                                                          : "FLOAT";
    return Status(StatusCode::kInvalidArgument,
                  "Parse error on \"" + tok_.text + "\" (" + kind + ") at " + Lexer::Where(tok_));
  }

  Status Expect(std::string_view p) {
    if (!IsPunct(p)) return Unexpected();
    return Step();
  }

  Result<std::string> Name() {
    if (tok_.kind != Kind::kName) return Unexpected();
    std::string name = tok_.text;
    if (Status s = Step(); !s.ok()) return s;
    return name;
  }

  Status NoDirectives() const {
    if (!IsPunct("@")) return Status();
    return Status(StatusCode::kInvalidArgument,
                  "directives are not served by the simulator (at " + Lexer::Where(tok_) + ")");
  }

  // ( $name: Type = default ... ): each variable's value from the request, or its default.
  Status VariableDefinitions() {
    if (Status s = Step(); !s.ok()) return s;
    while (!IsPunct(")")) {
      if (Status s = Expect("$"); !s.ok()) return s;
      auto name = Name();
      if (!name.ok()) return name.status();
      if (Status s = Expect(":"); !s.ok()) return s;
      if (Status s = Type(0); !s.ok()) return s;
      json::value value = nullptr;
      if (IsPunct("=")) {
        if (Status s = Step(); !s.ok()) return s;
        auto v = Value(0, /*constant=*/true);
        if (!v.ok()) return v.status();
        value = std::move(v).value();
      }
      if (const json::value* given = variables_.if_contains(*name)) value = *given;
      defined_[*name] = std::move(value);
    }
    return Step();
  }

  Status Type(int depth) {
    if (depth > kMaxDepth) return TooDeep();
    if (IsPunct("[")) {
      if (Status s = Step(); !s.ok()) return s;
      if (Status s = Type(depth + 1); !s.ok()) return s;
      if (Status s = Expect("]"); !s.ok()) return s;
    } else if (auto name = Name(); !name.ok()) {
      return name.status();
    }
    if (IsPunct("!")) return Step();
    return Status();
  }

  Status TooDeep() const {
    return Status(StatusCode::kInvalidArgument,
                  "the document nests deeper than " + std::to_string(kMaxDepth) + " levels");
  }

  Result<json::value> Value(int depth, bool constant) {
    if (depth > kMaxDepth) return TooDeep();
    if (IsPunct("$") && !constant) {
      if (Status s = Step(); !s.ok()) return s;
      auto name = Name();
      if (!name.ok()) return name.status();
      auto it = defined_.find(*name);
      if (it == defined_.end()) {
        return Status(StatusCode::kInvalidArgument,
                      "Variable $" + *name + " is used by " +
                          (op_name_.empty() ? "the query" : op_name_) + " but not declared");
      }
      return it->second;
    }
    json::value v;
    switch (tok_.kind) {
      case Kind::kInt:
        v = static_cast<int64_t>(std::strtoll(tok_.text.c_str(), nullptr, 10));
        break;
      case Kind::kFloat:
        v = std::strtod(tok_.text.c_str(), nullptr);
        break;
      case Kind::kString:
        v = tok_.text;
        break;
      case Kind::kName:
        if (tok_.text == "true" || tok_.text == "false") {
          v = tok_.text == "true";
        } else if (tok_.text == "null") {
          v = nullptr;
        } else {
          v = tok_.text;  // an enum value
        }
        break;
      case Kind::kPunct:
        if (tok_.text == "[") return List(depth, constant);
        if (tok_.text == "{") return Object(depth, constant);
        return Unexpected();
      case Kind::kEnd:
        return Unexpected();
    }
    if (Status s = Step(); !s.ok()) return s;
    return v;
  }

  Result<json::value> List(int depth, bool constant) {
    if (Status s = Step(); !s.ok()) return s;
    json::array out;
    while (!IsPunct("]")) {
      auto v = Value(depth + 1, constant);
      if (!v.ok()) return v.status();
      out.push_back(std::move(v).value());
    }
    if (Status s = Step(); !s.ok()) return s;
    return json::value(std::move(out));
  }

  Result<json::value> Object(int depth, bool constant) {
    if (Status s = Step(); !s.ok()) return s;
    json::object out;
    while (!IsPunct("}")) {
      auto name = Name();
      if (!name.ok()) return name.status();
      if (Status s = Expect(":"); !s.ok()) return s;
      auto v = Value(depth + 1, constant);
      if (!v.ok()) return v.status();
      out[*name] = std::move(v).value();
    }
    if (Status s = Step(); !s.ok()) return s;
    return json::value(std::move(out));
  }

  Result<std::vector<Selection>> SelectionSet(int depth) {
    if (depth > kMaxDepth) return TooDeep();
    if (Status s = Expect("{"); !s.ok()) return s;
    std::vector<Selection> out;
    while (!IsPunct("}")) {
      auto sel = OneSelection(depth);
      if (!sel.ok()) return sel.status();
      out.push_back(std::move(sel).value());
    }
    if (out.empty()) return Unexpected();
    if (Status s = Step(); !s.ok()) return s;
    return out;
  }

  Result<Selection> OneSelection(int depth) {
    Selection sel;
    sel.line = tok_.line;
    sel.column = tok_.column;
    if (IsPunct("...")) {
      if (Status s = Step(); !s.ok()) return s;
      sel.fragment = true;
      if (tok_.kind == Kind::kName && tok_.text != "on") {
        sel.name = tok_.text;  // a spread of a named fragment, expanded by Expand
        if (Status s = Step(); !s.ok()) return s;
        if (Status s = NoDirectives(); !s.ok()) return s;
        return sel;
      }
      if (IsName("on")) {
        if (Status s = Step(); !s.ok()) return s;
        auto on = Name();
        if (!on.ok()) return on.status();
        sel.on = std::move(on).value();
      }
      if (Status s = NoDirectives(); !s.ok()) return s;
      auto set = SelectionSet(depth + 1);
      if (!set.ok()) return set.status();
      sel.selections = std::move(set).value();
      return sel;
    }
    auto name = Name();
    if (!name.ok()) return name.status();
    sel.name = sel.key = std::move(name).value();
    if (IsPunct(":")) {  // `key: field`
      if (Status s = Step(); !s.ok()) return s;
      auto field = Name();
      if (!field.ok()) return field.status();
      sel.name = std::move(field).value();
    }
    if (IsPunct("(")) {
      if (Status s = Step(); !s.ok()) return s;
      while (!IsPunct(")")) {
        auto arg = Name();
        if (!arg.ok()) return arg.status();
        if (Status s = Expect(":"); !s.ok()) return s;
        auto v = Value(depth + 1, /*constant=*/false);
        if (!v.ok()) return v.status();
        sel.args[*arg] = std::move(v).value();
      }
      if (Status s = Step(); !s.ok()) return s;
    }
    if (Status s = NoDirectives(); !s.ok()) return s;
    if (IsPunct("{")) {
      auto set = SelectionSet(depth + 1);
      if (!set.ok()) return set.status();
      sel.selections = std::move(set).value();
    }
    return sel;
  }

  Status FragmentDefinition() {
    if (Status s = Step(); !s.ok()) return s;
    auto name = Name();
    if (!name.ok()) return name.status();
    if (!IsName("on")) return Unexpected();
    if (Status s = Step(); !s.ok()) return s;
    auto on = Name();
    if (!on.ok()) return on.status();
    if (Status s = NoDirectives(); !s.ok()) return s;
    auto set = SelectionSet(1);
    if (!set.ok()) return set.status();
    if (fragments_.count(*name) != 0) {
      return Status(StatusCode::kInvalidArgument,
                    "There can be only one fragment named \"" + *name + "\"");
    }
    Selection frag;
    frag.fragment = true;
    frag.on = std::move(on).value();
    frag.selections = std::move(set).value();
    fragments_[*name] = std::move(frag);
    return Status();
  }

  // Replaces each spread `...F` by F's inline fragment; an unknown or cyclic spread is an error.
  Status Expand(std::vector<Selection>* selections, std::set<std::string>* expanding, int depth) {
    if (depth > kMaxDepth) return TooDeep();
    for (Selection& sel : *selections) {
      if (sel.fragment && !sel.name.empty()) {
        auto it = fragments_.find(sel.name);
        if (it == fragments_.end()) {
          return Status(StatusCode::kInvalidArgument,
                        "Fragment " + sel.name + " was used, but not defined");
        }
        if (!expanding->insert(sel.name).second) {
          return Status(StatusCode::kInvalidArgument,
                        "Fragment " + sel.name + " contains an infinite loop");
        }
        const std::string name = sel.name;
        Selection expanded = it->second;
        expanded.line = sel.line;
        expanded.column = sel.column;
        sel = std::move(expanded);
        if (Status s = Expand(&sel.selections, expanding, depth + 1); !s.ok()) return s;
        expanding->erase(name);
        continue;
      }
      if (Status s = Expand(&sel.selections, expanding, depth + 1); !s.ok()) return s;
    }
    return Status();
  }

  Lexer lexer_;
  const json::object& variables_;
  Token tok_;
  std::string op_name_;
  std::map<std::string, json::value> defined_;
  std::map<std::string, Selection> fragments_;
};

}  // namespace

Result<Document> ParseDocument(std::string_view text, const json::object& variables) {
  return Parser(text, variables).Parse();
}

}  // namespace gatehouse::sim::graphql
