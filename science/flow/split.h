// The splitter's pieces (internal to science/flow): lowering a parsed tree (parameters to numbers,
// laplacian to second derivatives, constants folded), expanding it into a sum of terms, and sorting
// the terms into M, L and F.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "science/flow/problem.h"

namespace spire::flow::detail {

// Where a tree came from, for messages with a caret.
struct Source {
  std::string where;
  std::string text;
};

// Parameters become numbers, laplacian(a) becomes dx(dx(a)) [+ dy(dy(a)) when dims == 2], every
// subtree without fields, coordinates or derivatives becomes one number, and derivatives of
// subtrees without fields are taken symbolically. ConfigError, located, for
// a constant that is not finite (1/0) or a parameter without a value.
ExprPtr lower(const ExprPtr& e, const std::map<std::string, double>& parameters, int dims, const Source& source);

// d e / d(axis) for e without fields, parameters or derivatives (axis 0 x, 1 y, 2 t), simplified
// where a factor is 0 or 1.
ExprPtr derivative(const ExprPtr& e, int axis);

// coefficient * factor; a constant term has the factor 1.
struct Term {
  double coefficient = 1;
  ExprPtr factor;
};

// A lowered tree as a sum of terms, expanded through + - and negation, through multiplication and
// division by constants, and through dx and dy (which are linear). dt(.) comes out as dt(field)
// terms; ConfigError, located at the dt, when what is under a dt is not a constant times a field.
std::vector<Term> expand(const ExprPtr& e, const Source& source);

// Whether e is nested dx/dy of one field (dx(dy(dx(u))), or u itself): the field and the orders.
bool derivative_of_field(const Expr& e, int& field, int& dx, int& dy);

// F as one tree from terms c*factor (c*factor summed; constant terms collected into one number);
// nullptr when there is nothing.
ExprPtr sum_of(const std::vector<Term>& terms);

struct Split {
  std::vector<LinearTerm> mass, linear;
  ExprPtr rhs;  // F = -(the terms that are neither)
};

// Sorts the terms of a lowered `lhs - rhs` into M, L and F. ConfigError, located, for a dt anywhere
// but in a constant times dt(field).
Split split(const ExprPtr& equation, const Source& source);

// The highest number of nested derivatives along `axis` above any field in e.
int derivative_order(const Expr& e, int axis);

}  // namespace spire::flow::detail
