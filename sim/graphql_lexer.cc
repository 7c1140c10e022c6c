#include "sim/graphql_lexer.h"

#include <cctype>
#include <cstdlib>
#include <map>

namespace gatehouse::sim::graphql {

std::string PunctName(const std::string& p) {
  static const std::map<std::string, std::string> kNames = {
      {"{", "LCURLY"},   {"}", "RCURLY"},     {"(", "LPAREN"},   {")", "RPAREN"}, {"[", "LBRACKET"},
      {"]", "RBRACKET"}, {":", "COLON"},      {"$", "VAR_SIGN"}, {"!", "BANG"},   {"=", "EQUALS"},
      {"@", "DIR_SIGN"}, {"...", "ELLIPSIS"}, {"|", "PIPE"},     {"&", "AMP"}};
  auto it = kNames.find(p);
  return it == kNames.end() ? "UNKNOWN_CHAR" : it->second;
}

Result<Token> Lexer::Next() {
  SkipIgnored();
  Token t;
  t.line = line_;
  t.column = column_;
  if (pos_ >= text_.size()) return t;
  const char c = text_[pos_];
  if (text_.substr(pos_, 3) == "...") {
    Advance(3);
    t.kind = TokenKind::kPunct;
    t.text = "...";
    return t;
  }
  if (std::string_view("!$()[]:={}@|&").find(c) != std::string_view::npos) {
    Advance(1);
    t.kind = TokenKind::kPunct;
    t.text = std::string(1, c);
    return t;
  }
  if (c == '_' || std::isalpha(static_cast<unsigned char>(c))) {
    size_t end = pos_;
    while (end < text_.size() &&
           (text_[end] == '_' || std::isalnum(static_cast<unsigned char>(text_[end])))) {
      ++end;
    }
    t.kind = TokenKind::kName;
    t.text = std::string(text_.substr(pos_, end - pos_));
    Advance(end - pos_);
    return t;
  }
  if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) return Number(t);
  if (c == '"') return String(t);
  return Status(StatusCode::kInvalidArgument,
                "Parse error on \"" + std::string(1, c) + "\" (UNKNOWN_CHAR) at " + Where(t));
}

std::string Lexer::Where(const Token& t) {
  return "[" + std::to_string(t.line) + ", " + std::to_string(t.column) + "]";
}

void Lexer::Advance(size_t n) {
  for (size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
  }
}

void Lexer::SkipIgnored() {
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

Result<Token> Lexer::Number(Token t) {
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
  t.kind = is_float ? TokenKind::kFloat : TokenKind::kInt;
  return t;
}

Result<Token> Lexer::String(Token t) {
  t.kind = TokenKind::kString;
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

void Lexer::AppendUtf8(long code, std::string* out) {
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

Status Lexer::Unterminated(const Token& t) {
  return Status(StatusCode::kInvalidArgument,
                "Parse error on bad Unicode escape sequence or unterminated string at " + Where(t));
}

}  // namespace gatehouse::sim::graphql
