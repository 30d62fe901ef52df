// A PDE problem after splitting: each equation in Dedalus's form
//
//     M dt(X) + L X = F(X, x, y, t)
//
// where M and L are linear with constant coefficients (treated implicitly) and F is everything else
// (nonlinear terms, coefficients that vary in x or t, forcing; treated explicitly). The splitter
// moves every term of `lhs = rhs` to one side, expands sums through constants and derivatives, and
// puts a term in M when it is a constant times dt(field), in L when it is a constant times
// derivatives in x and y of one field, and in F (with its sign flipped) otherwise. Parameters are
// substituted and constant subexpressions folded ((nu + 1)*dx(dx(u)) is one L term); derivatives of
// terms without fields (forcing such as dx(sin(x)*t)) are taken symbolically, so F differentiates
// only what holds a field.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "science/flow/expr.h"

namespace spire::flow {

// coefficient * dx^dx dy^dy field: one term of M (dx = dy = 0) or of L.
struct LinearTerm {
  int field = 0;
  double coefficient = 1;
  int dx = 0, dy = 0;
};

struct Equation {
  std::string text;             // as the user wrote it
  std::string where;            // "pde.equation" or "pde.equations[2]" (1-based), for messages
  int field = 0;                // the field this equation evolves (dt(field)) or, for an equation
                                // without dt, the field it determines (the one no other equation
                                // evolves); its boundary conditions close this equation
  std::vector<LinearTerm> mass;    // M; empty for a constraint equation
  std::vector<LinearTerm> linear;  // L
  ExprPtr rhs;                     // F; nullptr when zero. Only Number, Coordinate, Field, Neg, Add,
                                   // Sub, Mul, Div, Pow, Call and Diff (axis 0 or 1) remain in it.
  int x_order = 0;                 // highest dx order on any field in M, L or F
  int y_order = 0;
};

enum class BoundaryKind { Dirichlet, Neumann, Robin };

// a*u + b*dx(u) = g(t) at one end of a non-periodic x axis. Dirichlet is a = 1, b = 0; Neumann is
// a = 0, b = 1.
struct BoundaryCondition {
  int field = 0;
  int side = 0;  // 0: left (x = x0), 1: right (x = x1)
  BoundaryKind kind = BoundaryKind::Dirichlet;
  double a = 1, b = 0;
  ExprPtr g;          // an expression in t only (parameters substituted)
  std::string text;   // "dirichlet: 0", as written
  std::string where;  // "bc.left" or "bc.u.left"
};

struct Problem {
  int dims = 1;                      // 1 (x) or 2 (x, y)
  std::vector<std::string> fields;   // in the order of their equations
  std::map<std::string, double> parameters;
  std::vector<Equation> equations;   // equations[i].field == i after building
  std::vector<BoundaryCondition> bcs;  // empty for periodic problems
  bool periodic = true;
};

// What the user wrote, before parsing: the [pde] and [bc] tables of a job, or their Python twin.
struct ProblemText {
  std::vector<std::string> equations;          // "lhs = rhs"
  std::vector<std::string> fields;             // optional; default: the names under dt(), in order
                                               // of appearance, then the names no equation evolves
  std::map<std::string, double> parameters;
  std::map<std::string, std::string> coefficients;  // name -> expression of x (y, t), inlined
  // side "left"/"right" -> condition text, per field ("" when the problem has one field and the
  // job wrote [bc] left = ..., right = ...).
  std::map<std::string, std::map<std::string, std::string>> bcs;
  int dims = 1;
  bool periodic = true;
};

// Parses and splits. ParseError for text that does not parse (with line, column and a caret);
// ConfigError for unknown names (naming the allowed fields, parameters, coordinates and
// functions), a dt() that is not a constant times a field, a field without an equation, or
// boundary conditions on a periodic problem.
Problem build_problem(const ProblemText& text);

// The split as text, one block per equation (`spire pde solve --explain`):
//   equation 1 (evolves u): dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0
//     M: dt(u)
//     L: -0.01*dx(dx(u))                 (implicit)
//     F: -(0.5*dx(u^2))                  (explicit)
std::string explain(const Problem& problem);

}  // namespace spire::flow
