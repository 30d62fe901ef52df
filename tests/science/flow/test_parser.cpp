// The PDE language's parser: round trips through to_string, precedence checked by evaluating at a
// point against the arithmetic written out by hand, spans, and the messages users see for bad text.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "engine/core/error.h"
#include "science/flow/parser.h"
#include "tests/common/expect_error.h"

namespace spire::flow {
namespace {

Scope scope_1d() {
  Scope s;
  s.fields = {"u", "v"};
  s.parameters = {{"nu", 0.25}, {"a", 3.0}};
  return s;
}

Scope scope_2d() {
  Scope s = scope_1d();
  s.y = true;
  return s;
}

// Structural equality: same operators, values, names, indices, in the same shape.
bool same(const Expr& a, const Expr& b) {
  if (a.op != b.op || a.value != b.value || a.name != b.name || a.index != b.index || a.args.size() != b.args.size())
    return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same(*a.args[i], *b.args[i])) return false;
  return true;
}

double at(const std::string& text, double x = 0, double y = 0, double t = 0) {
  Scope s;
  s.y = true;
  s.derivatives = false;
  s.parameters = {{"nu", 0.25}};
  return evaluate_point(*parse_expression(text, "test", s), x, y, t, s.parameters);
}

// "<where>:<line>:<col>: ..." plus the source line and a caret under column `col`.
void expect_located(const std::string& message, const std::string& where, int line, int col,
                    const std::string& source_line) {
  std::string head = where + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
  EXPECT_EQ(message.rfind(head, 0), 0u) << message;
  EXPECT_NE(message.find("\n  " + source_line + "\n"), std::string::npos) << message;
  EXPECT_NE(message.find("\n  " + std::string(col - 1, ' ') + "^"), std::string::npos) << message;
}

TEST(ParserRoundTrip, ToStringParsesBackToTheSameTree) {
  for (const char* text : {"dt(u) + dx(0.5*u^2) - nu*dx(dx(u))", "-u^2", "(-u)^2", "a - (u - v)", "a - u - v",
                           "u/(v*a)", "u/v/a", "2^3^2", "(2^3)^2", "u^-2", "-(u + v)*3", "sin(pi*x)*exp(-t)",
                           "laplacian(u) + dy(v*u)", "1e-3*u + .5*v - 2.5e+10", "sech(x)^2 + abs(u - 1)",
                           "--u", "2 - -3", "u*-1", "-(-2)", "(-2)^2", "t*y*x"}) {
    SCOPED_TRACE(text);
    ExprPtr e = parse_expression(text, "test", scope_2d());
    std::string written = to_string(*e);
    ExprPtr again = parse_expression(written, "test", scope_2d());
    EXPECT_TRUE(same(*e, *again)) << written << " vs " << to_string(*again);
    EXPECT_EQ(to_string(*again), written);
  }
}

// A random tree of the shapes the parser makes (a minus on a non-negative number is that number
// negated), depth-limited.
ExprPtr random_tree(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  static const char* fields[] = {"u", "v"};
  if (depth == 0 || pick(4) == 0) {
    switch (pick(4)) {
      case 0: {
        double mantissa = std::uniform_real_distribution<double>(-10, 10)(rng);
        return number(pick(3) == 0 ? std::round(mantissa) : mantissa * std::pow(10.0, pick(13) - 6));
      }
      case 1: return coordinate(pick(3));
      case 2: {
        int i = pick(2);
        return field(fields[i], i);
      }
      default: {
        auto p = std::make_shared<Expr>();
        p->op = Op::Parameter;
        p->name = pick(2) ? "nu" : "a";
        return p;
      }
    }
  }
  ExprPtr a = random_tree(rng, depth - 1);
  switch (pick(10)) {
    case 0:
      if (a->op == Op::Number && a->value >= 0) return number(-a->value);
      return unary(Op::Neg, a);
    case 1: return binary(Op::Add, a, random_tree(rng, depth - 1));
    case 2: return binary(Op::Sub, a, random_tree(rng, depth - 1));
    case 3: return binary(Op::Mul, a, random_tree(rng, depth - 1));
    case 4: return binary(Op::Div, a, random_tree(rng, depth - 1));
    case 5: return binary(Op::Pow, a, random_tree(rng, depth - 1));
    case 6: return call(functions()[pick(int(functions().size()))], a);
    case 7: return diff(pick(3), a);
    case 8: return unary(Op::Laplacian, a);
    default: return binary(Op::Add, random_tree(rng, depth - 1), a);
  }
}

TEST(ParserRoundTrip, RandomTreesSurviveToStringAndParse) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    ExprPtr e = random_tree(rng, 5);
    std::string written = to_string(*e);
    ExprPtr again = parse_expression(written, "test", scope_2d());
    ASSERT_TRUE(same(*e, *again)) << written << "\n  reads back as " << to_string(*again);
  }
}

TEST(ParserRoundTrip, NamesBecomeTheirNodes) {
  Scope s = scope_1d();
  s.coefficients["kappa"] = parse_expression("1 + x", "coef", s);
  ExprPtr e = parse_expression("kappa*v + nu + pi + e + t", "test", s);
  // Sum left-associated: ((((kappa*v) + nu) + pi) + e) + t.
  const Expr* n = e.get();
  EXPECT_EQ(n->args[1]->op, Op::Coordinate);
  EXPECT_EQ(n->args[1]->index, 2);
  n = n->args[0].get();
  EXPECT_EQ(n->args[1]->op, Op::Number);
  EXPECT_DOUBLE_EQ(n->args[1]->value, std::numbers::e);
  n = n->args[0].get();
  EXPECT_DOUBLE_EQ(n->args[1]->value, std::numbers::pi);
  n = n->args[0].get();
  EXPECT_EQ(n->args[1]->op, Op::Parameter);  // kept until a Problem is built
  EXPECT_EQ(n->args[1]->name, "nu");
  const Expr& product = *n->args[0];
  EXPECT_EQ(product.op, Op::Mul);
  EXPECT_EQ(to_string(*product.args[0]), "1 + x");  // the coefficient, inlined
  EXPECT_EQ(product.args[1]->op, Op::Field);
  EXPECT_EQ(product.args[1]->index, 1);
}

TEST(ParserPrecedence, MatchesTheArithmeticWrittenOut) {
  EXPECT_EQ(at("2^3^2"), 512.0);  // right-associative
  EXPECT_EQ(at("(2^3)^2"), 64.0);
  EXPECT_EQ(at("-2^2"), -4.0);  // ^ binds tighter than unary minus
  EXPECT_EQ(at("(-2)^2"), 4.0);
  EXPECT_EQ(at("2^-1"), 0.5);
  EXPECT_EQ(at("10 - 4 - 3"), 3.0);  // left-associative
  EXPECT_EQ(at("2/4/2"), 0.25);
  EXPECT_EQ(at("2 + 3*4^2/8 - -1"), 2 + 3 * 16 / 8.0 + 1);
  EXPECT_EQ(at("1e-3"), 1e-3);
  EXPECT_EQ(at(".5"), 0.5);
  EXPECT_EQ(at("2."), 2.0);
  EXPECT_EQ(at("1.5E+2"), 150.0);
  EXPECT_NEAR(at("sin(pi*x)*exp(-t) + nu", 0.3, 0, 0.7), std::sin(std::numbers::pi * 0.3) * std::exp(-0.7) + 0.25, 1e-15);
  EXPECT_NEAR(at("sech(x)^2 + tanh(y) + sqrt(abs(x - 2)) + log(e)", 0.4, -0.2), 1 / std::pow(std::cosh(0.4), 2) +
                                                                                    std::tanh(-0.2) + std::sqrt(1.6) + 1,
              1e-15);
  // -u^2 is -(u^2), and a minus on a literal is a negative number.
  ExprPtr e = parse_expression("-u^2", "test", scope_1d());
  EXPECT_EQ(e->op, Op::Neg);
  EXPECT_EQ(e->args[0]->op, Op::Pow);
  ExprPtr n = parse_expression("-2", "test", scope_1d());
  EXPECT_EQ(n->op, Op::Number);
  EXPECT_EQ(n->value, -2.0);
}

TEST(ParserPrecedence, EquationIsLhsMinusRhs) {
  ExprPtr e = parse_equation("dt(u) = nu*dx(dx(u)) - u", "pde.equation", scope_1d());
  EXPECT_EQ(e->op, Op::Sub);
  EXPECT_EQ(e->span.column, 7);  // the '='
  EXPECT_EQ(to_string(*e), "dt(u) - (nu*dx(dx(u)) - u)");
  EXPECT_EQ(e->args[0]->op, Op::Diff);
  EXPECT_EQ(e->args[0]->index, 2);
}

TEST(ParserSpans, EveryNodeKnowsWhereItCameFrom) {
  ExprPtr e = parse_expression("dt(u) + dx(u^2)\n  - nu*u", "test", scope_1d());
  // (dt(u) + dx(u^2)) - nu*u: the subtraction spans two lines, so keeps its left operand's start.
  const Expr& sum = *e->args[0];
  EXPECT_EQ(sum.span.line, 1);
  EXPECT_EQ(sum.span.column, 1);
  EXPECT_EQ(sum.span.length, 15);
  const Expr& dx = *sum.args[1];
  EXPECT_EQ(dx.span.column, 9);
  EXPECT_EQ(dx.span.length, 7);
  EXPECT_EQ(dx.args[0]->args[0]->span.column, 12);  // the u in u^2
  const Expr& nu = *e->args[1]->args[0];
  EXPECT_EQ(nu.name, "nu");
  EXPECT_EQ(nu.span.line, 2);
  EXPECT_EQ(nu.span.column, 5);
  EXPECT_EQ(nu.span.length, 2);
}

TEST(ParserErrors, LocatedMessageHasLineColumnAndCaret) {
  EXPECT_EQ(located_message("a", "xy + z", {1, 6, 1}, "bad"), "a:1:6: bad\n  xy + z\n       ^");
  EXPECT_EQ(located_message("b", "u\n  + sin(x)", {2, 5, 6}, "here"), "b:2:5: here\n    + sin(x)\n      ^~~~~~");
}

TEST(ParserErrors, MissingParenthesisPointsWhereItWasExpected) {
  std::string text = "dt(u) + dx(u^2 - nu*dx(dx(u)) = 0";
  std::string m = message_of<ParseError>([&] { parse_equation(text, "pde.equation", scope_1d()); });
  EXPECT_NE(m.find("expected ')' after the argument of dx"), std::string::npos) << m;
  expect_located(m, "pde.equation", 1, int(text.find('=')) + 1, text);
}

TEST(ParserErrors, UnknownNamesListWhatIsAllowed) {
  std::string m = message_of<ConfigError>([] { parse_equation("dt(u) = nuu*u", "pde.equation", scope_1d()); });
  expect_located(m, "pde.equation", 1, 9, "dt(u) = nuu*u");
  for (const char* part : {"unknown name 'nuu'", "fields: u, v", "parameters: a, nu", "coordinates: x, t",
                           "constants: pi, e", "functions: sin, cos, tan, exp, log, sqrt, tanh, sech, abs",
                           "operators: dt, dx, laplacian"})
    EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
  EXPECT_TRUE(m.ends_with("\n  dt(u) = nuu*u\n          ^~~")) << m;  // the caret spans the name

  m = message_of<ConfigError>([] { parse_expression("sine(x)", "initial.u", scope_1d()); });
  EXPECT_NE(m.find("unknown function 'sine'; functions: sin, cos"), std::string::npos) << m;
  expect_located(m, "initial.u", 1, 1, "sine(x)");

  m = message_of<ConfigError>([] { parse_expression("u*y", "pde.equation", scope_1d()); });
  EXPECT_NE(m.find("coordinate y"), std::string::npos) << m;
  EXPECT_NE(m.find("coordinates: x, t"), std::string::npos) << m;
  m = message_of<ConfigError>([] { parse_expression("dy(u)", "pde.equation", scope_1d()); });
  EXPECT_NE(m.find("dy needs a y axis"), std::string::npos) << m;
  Scope initial = scope_1d();
  initial.derivatives = false;
  m = message_of<ConfigError>([&] { parse_expression("1 + dx(u)", "initial.u", initial); });
  EXPECT_NE(m.find("dx is not allowed here"), std::string::npos) << m;
  expect_located(m, "initial.u", 1, 5, "1 + dx(u)");
}

TEST(ParserErrors, MalformedTextSaysWhatWasExpected) {
  struct Case {
    const char* text;
    bool equation;
    const char* says;
    int column;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"", true, "empty equation", 1},
           {"   ", false, "empty expression", 1},
           {"dt(u) + u", true, "expected '=' in the equation", 10},
           {"dt(u) = u = 2", true, "a second '='", 11},
           {"u + 1 = 2", false, "'=' in an expression", 7},
           {"u + 2 v", false, "expected an operator between '2' and 'v' (a product needs '*': 2*v)", 7},
           {"2(u + 1)", false, "a product needs '*'", 2},
           {"u + 1 ,", false, "unexpected ','", 7},
           {"u + 2)", false, "unmatched ')'", 6},
           {"u + $", false, "unexpected character '$'", 5},
           {"sin(u, 2)", false, "sin takes 1 argument, got 2", 1},
           {"dx()", false, "dx takes 1 argument, got 0", 1},
           {"(u + 1", false, "expected ')' to close the '(' at 1:1", 7},
           {"u * ", false, "expected an expression, found the end", 4},
           {"u(x)", false, "'u' is not a function", 1},
           {"sin + 1", false, "expected '(' after sin", 1},
           {"()", false, "empty parentheses", 2},
       }) {
    SCOPED_TRACE(c.text);
    std::string m = message_of<ParseError>([&] {
      if (c.equation) parse_equation(c.text, "w", scope_1d());
      else parse_expression(c.text, "w", scope_1d());
    });
    EXPECT_NE(m.find(c.says), std::string::npos) << m;
    EXPECT_EQ(m.rfind("w:1:" + std::to_string(c.column) + ": ", 0), 0u) << m;
    EXPECT_NE(m.find("\n  " + std::string(c.column - 1, ' ') + "^"), std::string::npos) << m;
  }
}

TEST(ParserErrors, SecondLineErrorsShowThatLine) {
  std::string m = message_of<ConfigError>([] { parse_equation("dt(u) =\n   nu*w", "pde.equations[2]", scope_1d()); });
  expect_located(m, "pde.equations[2]", 2, 7, "   nu*w");
}

TEST(ParserEvaluate, FieldsAndDerivativesHaveNoValueAtAPoint) {
  EXPECT_THROW(evaluate_point(*parse_expression("1 + u", "t", scope_1d()), 0, 0, 0), ValueError);
  EXPECT_THROW(evaluate_point(*parse_expression("dx(x)", "t", scope_1d()), 0, 0, 0), ValueError);
  ExprPtr p = parse_expression("nu*x + a", "t", scope_1d());
  EXPECT_THROW(evaluate_point(*p, 1, 0, 0), ValueError);  // no parameter values given
  EXPECT_EQ(evaluate_point(*p, 2, 0, 0, {{"nu", 0.5}, {"a", 1}}), 2.0);
}

TEST(ParserEvolvedNames, NamesUnderDtInOrder) {
  EXPECT_EQ(evolved_names("dt(v) + dt(2*u) = u*v - dt(v)", "e"), (std::vector<std::string>{"v", "u"}));
  EXPECT_EQ(evolved_names("dt(w) + dy(psi)*dx(w) = nu*laplacian(w)", "e"), (std::vector<std::string>{"w"}));
  EXPECT_TRUE(evolved_names("laplacian(psi) + w = 0", "e").empty());
  EXPECT_THROW(evolved_names("dt(u) = (u", "e"), ParseError);
}

}  // namespace
}  // namespace spire::flow
