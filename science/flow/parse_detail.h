// The parser's entry point with its internal options, shared by parser.cpp's public functions and
// the problem builder (which parses boundary conditions from an offset and infers fields leniently).
#pragma once
#include <string>
#include <vector>

#include "science/flow/parser.h"

namespace spire::flow::detail {

struct ParseOptions {
  bool equation = false;  // "lhs = rhs" (returns lhs - rhs) rather than one expression
  bool lenient = false;   // unknown names become Field nodes with index -1 (to infer the fields)
  size_t begin = 0;       // where in the text the expression starts ("robin: ..." after the colon)
};

ExprPtr parse(const std::string& text, const std::string& where, const Scope& scope,
              const ParseOptions& options);

// The names of the language that are not the user's: coordinates, constants, functions, operators.
bool reserved(const std::string& name);

// Visits every node, parents before children, left to right.
template <class F>
void visit(const Expr& e, F&& f) {
  f(e);
  for (const auto& a : e.args) visit(*a, f);
}

}  // namespace spire::flow::detail
