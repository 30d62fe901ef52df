// The tokens of the PDE language, with where each starts, for the parser's carets. Internal to
// science/flow (parser.cpp and the splitter).
#pragma once
#include <string>
#include <vector>

#include "science/flow/expr.h"

namespace spire::flow::detail {

enum class Token { Number, Name, Symbol, End };

struct Lexeme {
  Token kind = Token::End;
  std::string text;  // the name, the symbol ("+", "(", "="), or the number as written
  double value = 0;  // Number
  Span span;
};

// Splits text[begin..] into tokens, ending with one End token (whose span sits just after the last
// character). ParseError, located, for a character the language does not use.
std::vector<Lexeme> lex(const std::string& text, const std::string& where, size_t begin = 0);

// The span from a's start to b's end when both lie on one line, else a.
Span cover(const Span& a, const Span& b);

}  // namespace spire::flow::detail
