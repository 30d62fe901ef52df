#include "science/flow/expr.h"

#include <cmath>
#include <sstream>

namespace spire::flow {

namespace {
ExprPtr make(Op op, std::vector<ExprPtr> args = {}) {
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->args = std::move(args);
  return e;
}

// Binding strength, for deciding where to_string needs parentheses.
int precedence(const Expr& e) {
  switch (e.op) {
    case Op::Add: case Op::Sub: return 1;
    case Op::Mul: case Op::Div: return 2;
    case Op::Neg: return 3;
    case Op::Pow: return 4;
    case Op::Number: return std::signbit(e.value) ? 3 : 5;  // -0 too: "-0^u" would read as -(0^u)
    default: return 5;
  }
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}
}  // namespace

ExprPtr number(double value) {
  auto e = std::make_shared<Expr>();
  e->value = value;
  return e;
}

ExprPtr coordinate(int axis) {
  auto e = std::make_shared<Expr>();
  e->op = Op::Coordinate;
  e->index = axis;
  e->name = std::string(1, "xyt"[axis == 0 ? 0 : axis == 1 ? 1 : 2]);  // not = "x": GCC 12's false -Wrestrict
  return e;
}

ExprPtr field(const std::string& name, int index) {
  auto e = std::make_shared<Expr>();
  e->op = Op::Field;
  e->name = name;
  e->index = index;
  return e;
}

ExprPtr unary(Op op, ExprPtr a) { return make(op, {std::move(a)}); }
ExprPtr binary(Op op, ExprPtr a, ExprPtr b) { return make(op, {std::move(a), std::move(b)}); }

ExprPtr call(const std::string& function, ExprPtr a) {
  auto e = std::make_shared<Expr>();
  e->op = Op::Call;
  e->name = function;
  e->args = {std::move(a)};
  return e;
}

ExprPtr diff(int axis, ExprPtr a) {
  auto e = std::make_shared<Expr>();
  e->op = Op::Diff;
  e->index = axis;
  e->args = {std::move(a)};
  return e;
}

const std::vector<std::string>& functions() {
  static const std::vector<std::string> names{"sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sech",
                                              "abs", "sinh", "cosh"};
  return names;
}

std::string to_string(const Expr& e) {
  // Wraps a child in parentheses when it binds looser than its parent needs; `right` marks the
  // right operand of a non-associative operator (a - (b - c), a / (b * c), a ^ (b ^ c) stay).
  auto child = [&](const Expr& c, int need, bool right = false) {
    int p = precedence(c);
    bool wrap = p < need || (right && p == need);
    if (!wrap) return to_string(c);
    std::string s(1, '(');  // appended rather than "(" + ...: GCC 12 warns falsely (-Wrestrict) on that
    s += to_string(c);
    s += ')';
    return s;
  };
  switch (e.op) {
    case Op::Number: return number_text(e.value);
    case Op::Parameter: case Op::Field: return e.name;
    case Op::Coordinate: return e.index == 0 ? "x" : e.index == 1 ? "y" : "t";
    case Op::Neg: return std::string(1, '-').append(child(*e.args[0], 4));
    // a + (b + c) keeps its parentheses so that the tree parses back the same (the parser nests left).
    case Op::Add: return child(*e.args[0], 1) + " + " + child(*e.args[1], 1, true);
    case Op::Sub: return child(*e.args[0], 1) + " - " + child(*e.args[1], 1, true);
    case Op::Mul: return child(*e.args[0], 2) + "*" + child(*e.args[1], 2, true);
    case Op::Div: return child(*e.args[0], 2) + "/" + child(*e.args[1], 2, true);
    // a^b^c is a^(b^c): the left operand needs parentheses when it is itself a power.
    case Op::Pow: return child(*e.args[0], 5) + "^" + child(*e.args[1], 4);
    case Op::Call: return e.name + "(" + to_string(*e.args[0]) + ")";
    case Op::Diff: return std::string(e.index == 0 ? "dx" : e.index == 1 ? "dy" : "dt") + "(" + to_string(*e.args[0]) + ")";
    case Op::Laplacian: return "laplacian(" + to_string(*e.args[0]) + ")";
  }
  return "?";
}

}  // namespace spire::flow
