// evaluate_point: an expression's value at one point, for what has no fields or derivatives
// (initial conditions, coefficient fields, boundary values, the splitter's constant folding).
#include <cmath>

#include "engine/core/error.h"
#include "science/flow/parser.h"

namespace spire::flow {

namespace {
double apply(const std::string& f, double a) {
  if (f == "sin") return std::sin(a);
  if (f == "cos") return std::cos(a);
  if (f == "tan") return std::tan(a);
  if (f == "exp") return std::exp(a);
  if (f == "log") return std::log(a);
  if (f == "sqrt") return std::sqrt(a);
  if (f == "tanh") return std::tanh(a);
  if (f == "sech") return 1 / std::cosh(a);
  if (f == "abs") return std::abs(a);
  if (f == "sinh") return std::sinh(a);
  if (f == "cosh") return std::cosh(a);
  throw ValueError("evaluate_point: unknown function '" + f + "'");
}

// a^b with integer exponents by multiplication (exact for small integers, as the grid evaluator).
double power(double a, double b) {
  if (b == std::floor(b) && std::abs(b) <= 64) {
    long n = long(std::abs(b));
    double r = 1, p = a;
    while (n) {
      if (n & 1) r *= p;
      p *= p;
      n >>= 1;
    }
    return b < 0 ? 1 / r : r;
  }
  return std::pow(a, b);
}
}  // namespace

double evaluate_point(const Expr& e, double x, double y, double t, const std::map<std::string, double>& parameters) {
  auto arg = [&](int i) { return evaluate_point(*e.args[i], x, y, t, parameters); };
  switch (e.op) {
    case Op::Number: return e.value;
    case Op::Parameter: {
      auto p = parameters.find(e.name);
      if (p == parameters.end()) throw ValueError("evaluate_point: no value for the parameter '" + e.name + "'");
      return p->second;
    }
    case Op::Coordinate: return e.index == 0 ? x : e.index == 1 ? y : t;
    case Op::Neg: return -arg(0);
    case Op::Add: return arg(0) + arg(1);
    case Op::Sub: return arg(0) - arg(1);
    case Op::Mul: return arg(0) * arg(1);
    case Op::Div: return arg(0) / arg(1);
    case Op::Pow: return power(arg(0), arg(1));
    case Op::Call: return apply(e.name, arg(0));
    case Op::Field:
      throw ValueError("evaluate_point: the expression contains the field '" + e.name + "'; only expressions of "
                       "x, y, t and parameters have a value at a point");
    case Op::Diff:
    case Op::Laplacian:
      throw ValueError("evaluate_point: the expression contains a derivative (" + to_string(e) +
                       "); only expressions of x, y, t and parameters have a value at a point");
  }
  throw ValueError("evaluate_point: unknown node");
}

}  // namespace spire::flow
