// Symbolic derivatives of expressions without fields (forcing terms, coefficients under a dx): exact,
// where differentiating them on the grid would add aliasing (and, for a non-periodic s(x) on a
// Fourier grid, Gibbs oscillations).
#include <cmath>

#include "engine/core/error.h"
#include "science/flow/split.h"

namespace spire::flow::detail {

namespace {

bool is(const ExprPtr& e, double v) { return e->op == Op::Number && e->value == v; }

ExprPtr neg(const ExprPtr& a) {
  if (a->op == Op::Number) return number(-a->value);
  if (a->op == Op::Neg) return a->args[0];
  return unary(Op::Neg, a);
}

ExprPtr add(const ExprPtr& a, const ExprPtr& b) {
  if (is(a, 0)) return b;
  if (is(b, 0)) return a;
  if (a->op == Op::Number && b->op == Op::Number) return number(a->value + b->value);
  return binary(Op::Add, a, b);
}

ExprPtr sub(const ExprPtr& a, const ExprPtr& b) {
  if (is(b, 0)) return a;
  if (is(a, 0)) return neg(b);
  if (a->op == Op::Number && b->op == Op::Number) return number(a->value - b->value);
  return binary(Op::Sub, a, b);
}

ExprPtr mul(const ExprPtr& a, const ExprPtr& b) {
  if (is(a, 0) || is(b, 0)) return number(0);
  if (is(a, 1)) return b;
  if (is(b, 1)) return a;
  if (a->op == Op::Number && b->op == Op::Number) return number(a->value * b->value);
  if (a->op == Op::Neg) return neg(mul(a->args[0], b));  // signs out front: -(2*x*exp(-x^2))
  if (b->op == Op::Neg) return neg(mul(a, b->args[0]));
  if (b->op == Op::Number) return binary(Op::Mul, b, a);  // constants in front: 2*cos(x)
  return binary(Op::Mul, a, b);
}

ExprPtr div(const ExprPtr& a, const ExprPtr& b) {
  if (is(a, 0)) return number(0);
  if (is(b, 1)) return a;
  return binary(Op::Div, a, b);
}

ExprPtr pow(const ExprPtr& a, double n) {
  if (n == 1) return a;
  return binary(Op::Pow, a, number(n));
}

// f'(a) for the language's functions; e is f(a) itself.
ExprPtr outer(const std::string& f, const ExprPtr& a, const ExprPtr& e) {
  if (f == "sin") return call("cos", a);
  if (f == "cos") return neg(call("sin", a));
  if (f == "tan") return pow(call("cos", a), -2);
  if (f == "exp") return e;
  if (f == "log") return div(number(1), a);
  if (f == "sqrt") return div(number(0.5), e);
  if (f == "tanh") return pow(call("sech", a), 2);
  if (f == "sech") return neg(mul(e, call("tanh", a)));
  if (f == "abs") return div(a, e);
  if (f == "sinh") return call("cosh", a);
  if (f == "cosh") return call("sinh", a);
  throw ValueError("derivative: unknown function '" + f + "'");
}

}  // namespace

ExprPtr derivative(const ExprPtr& e, int axis) {
  const Expr& n = *e;
  switch (n.op) {
    case Op::Number: return number(0);
    case Op::Coordinate: return number(n.index == axis ? 1 : 0);
    case Op::Neg: return neg(derivative(n.args[0], axis));
    case Op::Add: return add(derivative(n.args[0], axis), derivative(n.args[1], axis));
    case Op::Sub: return sub(derivative(n.args[0], axis), derivative(n.args[1], axis));
    case Op::Mul: {
      const ExprPtr &a = n.args[0], &b = n.args[1];
      return add(mul(derivative(a, axis), b), mul(a, derivative(b, axis)));
    }
    case Op::Div: {
      const ExprPtr &a = n.args[0], &b = n.args[1];
      ExprPtr da = derivative(a, axis), db = derivative(b, axis);
      if (is(db, 0)) return div(da, b);
      return div(sub(mul(da, b), mul(a, db)), mul(b, b));
    }
    case Op::Pow: {
      const ExprPtr &a = n.args[0], &b = n.args[1];
      ExprPtr da = derivative(a, axis), db = derivative(b, axis);
      if (b->op == Op::Number) return mul(mul(b, pow(a, b->value - 1)), da);
      // a^b = exp(b log a): (a^b)' = a^b (b' log a + b a'/a)
      return mul(e, add(mul(db, call("log", a)), div(mul(b, da), a)));
    }
    case Op::Call: {
      ExprPtr da = derivative(n.args[0], axis);
      if (is(da, 0)) return number(0);
      return mul(outer(n.name, n.args[0], e), da);
    }
    default: break;
  }
  throw ValueError("derivative: " + to_string(n) + " has fields or derivatives in it");
}

}  // namespace spire::flow::detail
