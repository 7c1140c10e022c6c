#include "sim/graphql_document.h"

#include <cstdlib>
#include <set>
#include <utility>

#include "sim/graphql_lexer.h"

namespace gatehouse::sim::graphql {
namespace json = boost::json;
namespace {

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
    while (tok_.kind != TokenKind::kEnd) {
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
        if (tok_.kind == TokenKind::kName) {
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
  bool IsName(std::string_view name) const {
    return tok_.kind == TokenKind::kName && tok_.text == name;
  }
  bool IsPunct(std::string_view p) const {
    return tok_.kind == TokenKind::kPunct && tok_.text == p;
  }

  Status Step() {
    auto t = lexer_.Next();
    if (!t.ok()) return t.status();
    tok_ = std::move(t).value();
    return Status();
  }

  Status Unexpected() const {
    if (tok_.kind == TokenKind::kEnd) {
      return Status(StatusCode::kInvalidArgument, "Unexpected end of document");
    }
    const std::string kind = tok_.kind == TokenKind::kPunct    ? PunctName(tok_.text)
                             : tok_.kind == TokenKind::kName   ? "IDENTIFIER"
                             : tok_.kind == TokenKind::kString ? "STRING"
                             : tok_.kind == TokenKind::kInt    ? "INT"
                                                               : "FLOAT";
    return Status(StatusCode::kInvalidArgument,
                  "Parse error on \"" + tok_.text + "\" (" + kind + ") at " + Lexer::Where(tok_));
  }

  Status Expect(std::string_view p) {
    if (!IsPunct(p)) return Unexpected();
    return Step();
  }

  Result<std::string> Name() {
    if (tok_.kind != TokenKind::kName) return Unexpected();
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
      case TokenKind::kInt:
        v = static_cast<int64_t>(std::strtoll(tok_.text.c_str(), nullptr, 10));
        break;
      case TokenKind::kFloat:
        v = std::strtod(tok_.text.c_str(), nullptr);
        break;
      case TokenKind::kString:
        v = tok_.text;
        break;
      case TokenKind::kName:
        if (tok_.text == "true" || tok_.text == "false") {
          v = tok_.text == "true";
        } else if (tok_.text == "null") {
          v = nullptr;
        } else {
          v = tok_.text;  // an enum value
        }
        break;
      case TokenKind::kPunct:
        if (tok_.text == "[") return List(depth, constant);
        if (tok_.text == "{") return Object(depth, constant);
        return Unexpected();
      case TokenKind::kEnd:
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
      if (tok_.kind == TokenKind::kName && tok_.text != "on") {
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

std::string Selection::StringArg(const std::string& arg) const {
  auto it = args.find(arg);
  return it != args.end() && it->second.is_string() ? std::string(it->second.as_string())
                                                    : std::string();
}

}  // namespace gatehouse::sim::graphql
