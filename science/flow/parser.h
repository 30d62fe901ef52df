// Parsing the PDE language: numbers (1, 0.5, 1e-3), names, + - * / ^ (right-associative, binding
// tighter than unary minus: -u^2 is -(u^2)), parentheses, calls f(a), and "lhs = rhs" for
// equations. Names resolve against a Scope: fields, parameters, coordinates (x, y, t as the scope
// allows), constants pi and e, the functions of functions(), and the operators dt, dx, dy,
// laplacian.
//
// A ParseError reads
//   pde.equation:1:31: expected ')' after the argument of dx, found '='
//     dt(u) + dx(u^2 - nu*dx(dx(u)) = 0
//                                   ^
// and a ConfigError for an unknown name lists what is allowed there.
//
// A minus on a number ("-2", "-pi") gives a negative Number, as to_string writes one, so that
// parse(to_string(e)) is e. Every node's span is where its text is; a coefficient's inlined tree
// carries the span of the name that stands for it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "science/flow/expr.h"

namespace spire::flow {

struct Scope {
  std::vector<std::string> fields;           // Field nodes get their index in this list
  std::map<std::string, double> parameters;  // kept as Parameter nodes (value resolved later)
  std::map<std::string, ExprPtr> coefficients;  // names that stand for an expression (inlined)
  bool x = true, y = false, t = true;        // which coordinates may appear
  bool derivatives = true;                   // whether dt, dx, dy, laplacian may appear
};

// One expression. `where` names the source in messages ("initial.u", "pde.equations[2]").
ExprPtr parse_expression(const std::string& text, const std::string& where, const Scope& scope);

// An equation "lhs = rhs": returns lhs - rhs (a Sub node whose span covers the '=').
ExprPtr parse_equation(const std::string& text, const std::string& where, const Scope& scope);

// The names under dt(...) in an equation's text, in order of appearance, before any scope is known
// (to infer a problem's fields); a ParseError when the text does not parse.
std::vector<std::string> evolved_names(const std::string& text, const std::string& where);

// e's value at one point, for expressions without fields or derivatives (initial conditions,
// coefficient fields, boundary values); Parameters take their values from `parameters`.
double evaluate_point(const Expr& e, double x, double y, double t,
                      const std::map<std::string, double>& parameters = {});

// The message of a ParseError or ConfigError about `span` of `text`: "<where>:<line>:<column>:
// <message>", then the source line and a caret under the span.
std::string located_message(const std::string& where, const std::string& text, const Span& span,
                            const std::string& message);

}  // namespace spire::flow
