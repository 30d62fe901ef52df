// The expression tree of Spire's PDE language. The parser builds it from text ("dt(u) +
// dx(0.5*u^2) - nu*dx(dx(u)) = 0"); the splitter (problem.h) lowers it, and the evaluator computes
// what is left of it (the explicit terms) on the dealiased grid. Trees are immutable and shared.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace spire::flow {

// Where a node came from in its source text, for error messages with a caret.
struct Span {
  int line = 1;    // 1-based, within the source text
  int column = 1;  // 1-based
  int length = 1;
};

enum class Op {
  Number,      // value
  Parameter,   // name; replaced by a Number when a Problem is built
  Coordinate,  // axis: 0 x, 1 y, 2 t
  Field,       // name, index (into Problem::fields)
  Neg,         // -args[0]
  Add,         // args[0] + args[1]
  Sub,         // args[0] - args[1]
  Mul,         // args[0] * args[1]
  Div,         // args[0] / args[1]
  Pow,         // args[0] ^ args[1]
  Call,        // name(args[0]): sin cos tan exp log sqrt tanh sech abs (see functions())
  Diff,        // d/d(axis) args[0]; axis 0 dx, 1 dy, 2 dt
  Laplacian,   // laplacian(args[0]); lowered to dx(dx(.)) [+ dy(dy(.))] when a Problem is built
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  Op op = Op::Number;
  double value = 0;   // Number
  std::string name;   // Parameter, Field, Call; Coordinate "x" "y" "t"
  int index = -1;     // Field: field index; Coordinate and Diff: axis
  std::vector<ExprPtr> args;
  Span span;
};

// Builders (span left default), for code that makes trees: the splitter, the dataset families.
ExprPtr number(double value);
ExprPtr coordinate(int axis);
ExprPtr field(const std::string& name, int index);
ExprPtr unary(Op op, ExprPtr a);                    // Neg, Diff (axis in index), Laplacian
ExprPtr binary(Op op, ExprPtr a, ExprPtr b);        // Add Sub Mul Div Pow
ExprPtr call(const std::string& function, ExprPtr a);
ExprPtr diff(int axis, ExprPtr a);

// The functions the language knows, in the order error messages list them.
const std::vector<std::string>& functions();

// The expression as the language writes it, fully parenthesised where precedence needs it
// ("-(0.5*dx(u^2)) + 0.01*dx(dx(u))"); parse(to_string(e)) gives e back.
std::string to_string(const Expr& e);

}  // namespace spire::flow
