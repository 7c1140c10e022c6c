// The GraphQL lexer of the simulator's query documents (sim/graphql_document.h): names,
// punctuators, numbers and strings (with escapes and block strings), skipping whitespace,
// commas, comments and a byte-order mark, each token with the line and column it starts at.
// Errors read as GitHub's parse errors do ("Parse error on ... at [line, column]").
//
// A Lexer walks one text it does not own; the text must outlive it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gatehouse::sim::graphql {

enum class TokenKind { kEnd, kPunct, kName, kInt, kFloat, kString };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // the punctuator, the name, the number's digits or the string's value
  int line = 1;
  int column = 1;
};

// GitHub's name for a punctuator in its parse errors ("LCURLY" for "{").
std::string PunctName(const std::string& p);

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // The next token (kEnd at the end); an error for a character GraphQL has no use for or an
  // unterminated string.
  Result<Token> Next();

  // "[line, column]" of a token, as GitHub's errors give it.
  static std::string Where(const Token& t);

 private:
  void Advance(size_t n);
  void SkipIgnored();
  Result<Token> Number(Token t);
  Result<Token> String(Token t);
  static void AppendUtf8(long code, std::string* out);
  static Status Unterminated(const Token& t);

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace gatehouse::sim::graphql
