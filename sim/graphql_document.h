// A GraphQL query document, parsed: what the simulator's POST /graphql (sim/graphql_schema.h)
// executes. The subset GitHub clients send: one `query` operation (named or anonymous, with
// variable definitions and defaults), fields with aliases and arguments (literals of every
// kind, and variables), inline fragments (`... on Type { }`), and named fragments
// (`fragment F on Type { }` spread as `...F`). Variables are substituted while parsing, so
// every argument is a plain JSON value (an enum literal is its name as a string).
//
// Not served, each with an error that says so: mutations and subscriptions, directives
// (`@include`, `@skip`), several operations in one document.
//
// Pure functions over values.
#pragma once

#include <boost/json.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gatehouse::sim::graphql {

struct Selection {
  // A field: its name, the key it answers under (the alias, or the name) and its arguments.
  std::string name;
  std::string key;
  std::map<std::string, boost::json::value> args;
  // An inline fragment (or an expanded named one): name and key are "", `on` is its type
  // condition ("" for a fragment without one, which always applies).
  bool fragment = false;
  std::string on;
  std::vector<Selection> selections;
  int line = 0;  // where it starts in the document (1-based), for error messages
  int column = 0;

  // The string argument `arg`, or "" when it has none or it is not a string (validation
  // against the schema has said which are required).
  std::string StringArg(const std::string& arg) const;
};

struct Document {
  std::string operation_name;  // "" for an anonymous query
  std::vector<Selection> selections;
};

// Parses `text` with `variables` (the request's "variables" object; a variable it lacks takes
// its default, else null). A syntax error says where, as GitHub's do: "Parse error on \"}\"
// (RCURLY) at [3, 5]".
Result<Document> ParseDocument(std::string_view text, const boost::json::object& variables);

}  // namespace gatehouse::sim::graphql
