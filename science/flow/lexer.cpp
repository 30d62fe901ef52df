#include "science/flow/lexer.h"

#include <cctype>
#include <charconv>

#include "engine/core/error.h"
#include "science/flow/parser.h"

namespace spire::flow::detail {

namespace {
bool digit(char c) { return c >= '0' && c <= '9'; }
bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return name_start(c) || digit(c); }
}  // namespace

std::vector<Lexeme> lex(const std::string& text, const std::string& where, size_t begin) {
  int line = 1, column = 1;
  for (size_t i = 0; i < begin && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  const int first_line = line, first_column = column;
  std::vector<Lexeme> out;
  size_t i = begin;
  auto at = [&](size_t k) { return k < text.size() ? text[k] : '\0'; };
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      column = 1;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++column;
      ++i;
      continue;
    }
    Lexeme t;
    t.span = {line, column, 1};
    size_t start = i;
    if (digit(c) || (c == '.' && digit(at(i + 1)))) {
      while (digit(at(i))) ++i;
      if (at(i) == '.') {
        ++i;
        while (digit(at(i))) ++i;
      }
      // An exponent only when digits follow ("2e" stays 2 then the name e).
      if (at(i) == 'e' || at(i) == 'E') {
        size_t k = i + 1;
        if (at(k) == '+' || at(k) == '-') ++k;
        if (digit(at(k))) {
          while (digit(at(k))) ++k;
          i = k;
        }
      }
      t.kind = Token::Number;
      t.text = text.substr(start, i - start);
      // from_chars: independent of the process's locale (Python may have set one).
      auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), t.value);
      if (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)
        throw ParseError(located_message(where, text, t.span, "malformed number '" + t.text + "'"));
      if (r.ec == std::errc::result_out_of_range)
        throw ParseError(located_message(where, text, {line, column, int(i - start)},
                                         "number '" + t.text + "' is out of range"));
    } else if (name_start(c)) {
      while (name_char(at(i))) ++i;
      t.kind = Token::Name;
      t.text = text.substr(start, i - start);
    } else if (std::string("+-*/^(),=").find(c) != std::string::npos) {
      ++i;
      t.kind = Token::Symbol;
      t.text = std::string(1, c);
    } else {
      std::string shown = std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "?";
      throw ParseError(located_message(where, text, t.span,
                                       "unexpected character '" + shown +
                                           "'; the language uses numbers, names, + - * / ^ ( ) , and ="));
    }
    t.span.length = int(i - start);
    column += int(i - start);
    out.push_back(std::move(t));
  }
  Lexeme end;
  end.kind = Token::End;
  // Just after the last token, so "missing '='" points at the end of what was written.
  end.span = out.empty() ? Span{first_line, first_column, 1}
                         : Span{out.back().span.line, out.back().span.column + out.back().span.length, 1};
  out.push_back(end);
  return out;
}

Span cover(const Span& a, const Span& b) {
  if (a.line != b.line || b.column < a.column) return a;
  return {a.line, a.column, b.column + b.length - a.column};
}

}  // namespace spire::flow::detail
