// The linear/nonlinear split. Besides the structure of M, L and F for known equations (Burgers, KdV,
// Navier-Stokes in vorticity form), every split is checked against the equation it came from: for
// smooth test fields, M dt(X) + L X - F must equal lhs - rhs at any point, with derivatives taken
// by finite differences in a small evaluator written here (independent of the solver's).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <string>

#include "engine/core/error.h"
#include "science/flow/parser.h"
#include "science/flow/problem.h"
#include "tests/common/expect_error.h"

namespace spire::flow {
namespace {

using Fn = std::function<double(double, double, double)>;

struct TestFields {
  std::vector<Fn> value;  // X(x, y, t)
  std::vector<Fn> rate;   // what dt(X) stands for (any function: the residual is linear in it)
};

double call_fn(const std::string& f, double a) {
  if (f == "sin") return std::sin(a);
  if (f == "cos") return std::cos(a);
  if (f == "exp") return std::exp(a);
  if (f == "tanh") return std::tanh(a);
  if (f == "sech") return 1 / std::cosh(a);
  ADD_FAILURE() << "test evaluator lacks " << f;
  return 0;
}

// Evaluates a tree at (x, y, t): fields from `fields`, dx and dy by fourth-order central differences,
// dt(a) as a with every field replaced by its rate (right for the linear arguments dt takes), or
// by differences in t when a has no field.
double eval(const Expr& e, double x, double y, double t, const TestFields& fields,
            const std::map<std::string, double>& parameters, int dims, bool rate = false) {
  auto arg = [&](int i, double xx, double yy) { return eval(*e.args[i], xx, yy, t, fields, parameters, dims, rate); };
  const double h = 4e-3;
  auto d = [&](int axis, const Expr& a) {
    auto f = [&](double s) {
      return eval(a, x + (axis == 0) * s, y + (axis == 1) * s, t + (axis == 2) * s, fields, parameters, dims, rate);
    };
    return (-f(2 * h) + 8 * f(h) - 8 * f(-h) + f(-2 * h)) / (12 * h);
  };
  switch (e.op) {
    case Op::Number: return e.value;
    case Op::Parameter: return parameters.at(e.name);
    case Op::Coordinate: return e.index == 0 ? x : e.index == 1 ? y : t;
    case Op::Field: return (rate ? fields.rate : fields.value)[e.index](x, y, t);
    case Op::Neg: return -arg(0, x, y);
    case Op::Add: return arg(0, x, y) + arg(1, x, y);
    case Op::Sub: return arg(0, x, y) - arg(1, x, y);
    case Op::Mul: return arg(0, x, y) * arg(1, x, y);
    case Op::Div: return arg(0, x, y) / arg(1, x, y);
    case Op::Pow: return std::pow(arg(0, x, y), arg(1, x, y));
    case Op::Call: return call_fn(e.name, arg(0, x, y));
    case Op::Diff:
      if (e.index == 2) {
        bool has_field = false;
        std::function<void(const Expr&)> look = [&](const Expr& n) {
          has_field = has_field || n.op == Op::Field;
          for (const auto& c : n.args) look(*c);
        };
        look(*e.args[0]);
        return has_field ? eval(*e.args[0], x, y, t, fields, parameters, dims, true) : d(2, *e.args[0]);
      }
      return d(e.index, *e.args[0]);
    case Op::Laplacian: {
      Expr inner;
      inner.op = Op::Diff;
      inner.index = 0;
      inner.args = {e.args[0]};
      double s = d(0, inner);
      if (dims == 2) {
        inner.index = 1;
        s += d(1, inner);
      }
      return s;
    }
  }
  return 0;
}

// M dt(X) + L X - F of equation i, at one point.
double split_residual(const Problem& p, int i, double x, double y, double t, const TestFields& f) {
  const Equation& eq = p.equations[i];
  double r = 0;
  for (const auto& m : eq.mass) r += m.coefficient * f.rate[m.field](x, y, t);
  for (const auto& l : eq.linear) {
    ExprPtr e = field(p.fields[l.field], l.field);
    for (int k = 0; k < l.dx; ++k) e = diff(0, e);
    for (int k = 0; k < l.dy; ++k) e = diff(1, e);
    r += l.coefficient * eval(*e, x, y, t, f, {}, p.dims);
  }
  if (eq.rhs) r -= eval(*eq.rhs, x, y, t, f, {}, p.dims);
  return r;
}

// lhs - rhs of equation i as written, at one point.
double written_residual(const ProblemText& text, const Problem& p, int i, double x, double y, double t,
                        const TestFields& f) {
  Scope s;
  s.fields = p.fields;
  s.parameters = text.parameters;
  s.y = text.dims == 2;
  Scope cs = s;
  cs.fields.clear();
  cs.derivatives = false;
  // Coefficients may name each other: parse until every one has its turn after those it uses.
  for (size_t pass = 0; pass < text.coefficients.size(); ++pass)
    for (const auto& [name, expression] : text.coefficients) {
      try {
        cs.coefficients[name] = s.coefficients[name] = parse_expression(expression, "c", cs);
      } catch (const ConfigError&) {
      }
    }
  const Equation& eq = p.equations[i];
  return eval(*parse_equation(eq.text, eq.where, s), x, y, t, f, text.parameters, text.dims);
}

TestFields test_fields(size_t n) {
  TestFields f;
  for (size_t k = 0; k < n; ++k) {
    double a = 0.7 + 0.3 * k, b = 0.2 + 0.1 * k;
    f.value.push_back([=](double x, double y, double t) { return 0.4 + std::sin(a * x + b * y + 0.3) * std::cos(0.5 * t) + b * y; });
    f.rate.push_back([=](double x, double y, double t) { return std::exp(0.3 * x) - a * y + t; });
  }
  return f;
}

// The split reproduces the written equation at a few points.
void expect_split_matches(const ProblemText& text, const Problem& p) {
  TestFields f = test_fields(p.fields.size());
  for (size_t i = 0; i < p.equations.size(); ++i)
    for (double x : {-0.8, 0.1, 1.3})
      for (double y : {0.0, 0.6}) {
        double t = 0.37;
        double want = written_residual(text, p, int(i), x, y, t, f);
        double got = split_residual(p, int(i), x, y, t, f);
        EXPECT_NEAR(got, want, 1e-7 * (1 + std::abs(want))) << p.equations[i].text << " at x=" << x << " y=" << y;
      }
}

ProblemText one(const std::string& equation, std::map<std::string, double> parameters = {}) {
  ProblemText t;
  t.equations = {equation};
  t.parameters = std::move(parameters);
  return t;
}

void expect_linear(const LinearTerm& t, int field, double c, int dx, int dy = 0) {
  EXPECT_EQ(t.field, field);
  EXPECT_DOUBLE_EQ(t.coefficient, c);
  EXPECT_EQ(t.dx, dx);
  EXPECT_EQ(t.dy, dy);
}

TEST(ProblemSplit, Burgers) {
  ProblemText text = one("dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0", {{"nu", 0.01}});
  Problem p = build_problem(text);
  ASSERT_EQ(p.fields, std::vector<std::string>{"u"});
  ASSERT_EQ(p.equations.size(), 1u);
  const Equation& eq = p.equations[0];
  EXPECT_EQ(eq.where, "pde.equation");
  ASSERT_EQ(eq.mass.size(), 1u);
  expect_linear(eq.mass[0], 0, 1, 0);
  ASSERT_EQ(eq.linear.size(), 1u);
  expect_linear(eq.linear[0], 0, -0.01, 2);
  ASSERT_TRUE(eq.rhs);
  EXPECT_EQ(to_string(*eq.rhs), "-(0.5*dx(u^2))");
  EXPECT_EQ(eq.x_order, 2);
  EXPECT_EQ(eq.y_order, 0);
  expect_split_matches(text, p);
}

TEST(ProblemSplit, KdV) {
  ProblemText text = one("dt(u) + 6*u*dx(u) + dx(dx(dx(u))) = 0");
  Problem p = build_problem(text);
  const Equation& eq = p.equations[0];
  ASSERT_EQ(eq.linear.size(), 1u);
  expect_linear(eq.linear[0], 0, 1, 3);
  EXPECT_EQ(eq.x_order, 3);
  ASSERT_TRUE(eq.rhs);
  EXPECT_EQ(to_string(*eq.rhs).find("dx(dx"), std::string::npos);  // the dispersion is implicit
  expect_split_matches(text, p);
}

TEST(ProblemSplit, NavierStokesVorticitySystem) {
  ProblemText text;
  text.dims = 2;
  text.equations = {"dt(w) + dy(psi)*dx(w) - dx(psi)*dy(w) - nu*laplacian(w) = 0", "laplacian(psi) + w = 0"};
  text.parameters = {{"nu", 1e-3}};
  Problem p = build_problem(text);
  ASSERT_EQ(p.fields, (std::vector<std::string>{"w", "psi"}));
  ASSERT_EQ(p.equations.size(), 2u);
  const Equation& w = p.equations[0];
  EXPECT_EQ(w.field, 0);
  ASSERT_EQ(w.mass.size(), 1u);
  ASSERT_EQ(w.linear.size(), 2u);
  expect_linear(w.linear[0], 0, -1e-3, 2, 0);
  expect_linear(w.linear[1], 0, -1e-3, 0, 2);
  EXPECT_EQ(w.x_order, 2);
  EXPECT_EQ(w.y_order, 2);
  const Equation& psi = p.equations[1];
  EXPECT_EQ(psi.field, 1);
  EXPECT_TRUE(psi.mass.empty());
  ASSERT_EQ(psi.linear.size(), 3u);
  expect_linear(psi.linear[0], 1, 1, 2, 0);
  expect_linear(psi.linear[1], 1, 1, 0, 2);
  expect_linear(psi.linear[2], 0, 1, 0, 0);
  EXPECT_FALSE(psi.rhs);
  expect_split_matches(text, p);

  // Written the other way round: the equations are reordered to follow the fields.
  std::swap(text.equations[0], text.equations[1]);
  Problem q = build_problem(text);
  ASSERT_EQ(q.fields, (std::vector<std::string>{"w", "psi"}));
  EXPECT_EQ(q.equations[0].where, "pde.equations[2]");
  EXPECT_EQ(q.equations[1].where, "pde.equations[1]");
  EXPECT_EQ(q.equations[1].field, 1);
  expect_split_matches(text, q);
}

TEST(ProblemSplit, ConstantsFold) {
  ProblemText text = one("dt(u) = (nu + 1)*dx(dx(u)) - 0.5*nu*2*u + 2*dx(u)/4 + sin(pi/2)*u - u*nu*2", {{"nu", 0.5}});
  Problem p = build_problem(text);
  const Equation& eq = p.equations[0];
  EXPECT_FALSE(eq.rhs);
  ASSERT_EQ(eq.linear.size(), 3u);
  expect_linear(eq.linear[0], 0, -1.5, 2);
  expect_linear(eq.linear[1], 0, 0.5 - 1 + 1, 0);  // 0.5*nu*2 - sin(pi/2) + nu*2
  expect_linear(eq.linear[2], 0, -0.5, 1);
  expect_split_matches(text, p);

  Problem mass = build_problem(one("2*dt(u) + dt(u)/4 - dt(3*u) = u"));
  ASSERT_EQ(mass.equations[0].mass.size(), 1u);
  EXPECT_DOUBLE_EQ(mass.equations[0].mass[0].coefficient, -0.75);
}

TEST(ProblemSplit, VariableCoefficientsAndForcingAreExplicit) {
  ProblemText text = one("dt(u) = dx(kappa*dx(u)) + t*u + sin(x)*exp(-t) + 2 - nu*dx(dx(u))", {{"nu", 0.1}});
  text.coefficients = {{"kappa", "1 + 0.5*cos(x)"}};
  Problem p = build_problem(text);
  const Equation& eq = p.equations[0];
  ASSERT_EQ(eq.linear.size(), 1u);
  expect_linear(eq.linear[0], 0, 0.1, 2);
  ASSERT_TRUE(eq.rhs);
  EXPECT_EQ(eq.x_order, 2);
  std::string f = to_string(*eq.rhs);
  EXPECT_EQ(f.find("kappa"), std::string::npos) << f;  // inlined
  EXPECT_EQ(f.find("nu"), std::string::npos) << f;     // substituted
  expect_split_matches(text, p);
}

TEST(ProblemSplit, DerivativesOfFieldFreeTermsAreExact) {
  ProblemText text = one("dt(u) = dx(sin(x)*t) + dx(dx(x^3)) + laplacian(exp(-x^2)) + dt(sin(t))*u + dx((2 + x)^t/(1 + x^2))");
  Problem p = build_problem(text);
  ASSERT_TRUE(p.equations[0].rhs);
  std::string f = to_string(*p.equations[0].rhs);
  EXPECT_EQ(f.find("dx"), std::string::npos) << f;
  EXPECT_EQ(f.find("dt"), std::string::npos) << f;
  EXPECT_EQ(p.equations[0].x_order, 0);
  expect_split_matches(text, p);  // finite differences of what was written
  ProblemText two = text;
  two.dims = 2;
  two.equations = {"dt(u) = laplacian(sin(x)*cos(2*y)) + dy(u*y)"};
  Problem q = build_problem(two);
  std::string g = to_string(*q.equations[0].rhs);
  EXPECT_EQ(g.find("dx"), std::string::npos) << g;
  EXPECT_EQ(g.find("dy"), g.find("dy(u*y)")) << g;  // only the term with a field keeps its derivative
  expect_split_matches(two, q);
}

TEST(ProblemSplit, CoefficientsMayUseEachOther) {
  ProblemText text = one("dt(u) = dx(kappa*dx(u)) + s*u", {{"k0", 0.5}});
  text.coefficients = {{"kappa", "k0*s + 1"}, {"s", "2 + cos(x)"}};
  Problem p = build_problem(text);
  EXPECT_EQ(to_string(*p.equations[0].rhs).find("kappa"), std::string::npos);
  expect_split_matches(text, p);
  text.coefficients = {{"kappa", "k0*s + 1"}, {"s", "2 + kappa"}};
  std::string m = message_of<ConfigError>([&] { build_problem(text); });
  EXPECT_NE(m.find("kappa, s refer to each other"), std::string::npos) << m;
  text.coefficients = {{"kappa", "u + 1"}};
  m = message_of<ConfigError>([&] { build_problem(text); });
  EXPECT_NE(m.find("pde.coefficients.kappa:1:1: unknown name 'u'"), std::string::npos) << m;
}

TEST(ProblemSplit, ConstantsMustBeFinite) {
  // dt terms that cancel are an error, not a constraint equation
  std::string c = message_of<ConfigError>([] { build_problem(one("dt(u) = dt(u) + u")); });
  EXPECT_NE(c.find("cancel"), std::string::npos) << c;
  std::string m = message_of<ConfigError>([] { build_problem(one("dt(u) = u/(nu - 1)", {{"nu", 1}})); });
  EXPECT_NE(m.find("division by zero"), std::string::npos) << m;
  EXPECT_EQ(m.rfind("pde.equation:1:11:", 0), 0u) << m;
  m = message_of<ConfigError>([] { build_problem(one("dt(u) = 1e300*(1e300*dx(u))")); });
  EXPECT_NE(m.find("the constant factor of this term is not finite"), std::string::npos) << m;
  EXPECT_EQ(m.rfind("pde.equation:1:", 0), 0u) << m;
  m = message_of<ConfigError>([] { build_problem(one("dt(u) = u^2*(1/(nu - 1))", {{"nu", 1}})); });
  EXPECT_NE(m.find("this constant is not finite"), std::string::npos) << m;
  EXPECT_EQ(m.rfind("pde.equation:1:13:", 0), 0u) << m;
}

// Random equations in u: sums, constant factors and divisors, nested dx (at most `dx_budget` deep),
// products with fields and coefficients; the split must reproduce each.
std::string random_terms(std::mt19937& rng, int depth, int dx_budget) {
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  static const char* leaves[] = {"u", "2.5", "x", "nu", "u^2", "sin(x)*u", "dx(u)", "t*u", "v"};
  static const char* constants[] = {"0.5", "nu", "(nu + 1)", "-3", "2^-1", "sin(pi/3)"};
  if (depth == 0) return leaves[pick(9)];
  auto sub = [&](int budget) { return random_terms(rng, depth - 1, budget); };
  switch (pick(8)) {
    case 0: return "(" + sub(dx_budget) + " + " + sub(dx_budget) + ")";
    case 1: return "(" + sub(dx_budget) + " - " + sub(dx_budget) + ")";
    case 2: return std::string(constants[pick(6)]) + "*" + sub(dx_budget);
    case 3: return sub(dx_budget) + "/" + constants[pick(6)];
    case 4: return "-(" + sub(dx_budget) + ")";
    case 5: return dx_budget > 0 ? "dx(" + sub(dx_budget - 1) + ")" : sub(dx_budget);
    case 6: return "u*" + sub(dx_budget);
    default: return "cos(x)*(" + sub(dx_budget) + ")";
  }
}

TEST(ProblemSplit, RandomEquationsSplitExactly) {
  std::mt19937 rng(11);
  for (int i = 0; i < 60; ++i) {
    ProblemText text;
    text.parameters = {{"nu", 0.3}};
    text.equations = {"dt(u) + " + random_terms(rng, 4, 3) + " = " + random_terms(rng, 3, 3) + " - 0.5*dt(3*u)",
                      "dt(v) = " + random_terms(rng, 2, 2)};
    SCOPED_TRACE(text.equations[0]);
    Problem p = build_problem(text);
    ASSERT_EQ(p.equations[0].mass.size(), 1u);
    EXPECT_DOUBLE_EQ(p.equations[0].mass[0].coefficient, 2.5);
    expect_split_matches(text, p);
  }
}

TEST(ProblemSplit, DtOnlyAsConstantTimesField) {
  struct Case {
    const char* text;
    const char* says;
    int column;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"dt(u*u) = 0", "dt may only be applied to a constant times a field", 1},
           {"dt(dt(u)) = u", "dt may only be applied to a constant times a field", 1},
           {"dt(u) = u*dt(u)", "dt may appear only as a constant times dt(field)", 11},
           {"dt(u) + dx(dt(u)) = 0", "dt may appear only as a constant times dt(field)", 12},
           {"dt(x*u) = 0", "dt may only be applied", 1},
       }) {
    SCOPED_TRACE(c.text);
    std::string m = message_of<ConfigError>([&] { build_problem(one(c.text)); });
    EXPECT_NE(m.find(c.says), std::string::npos) << m;
    EXPECT_EQ(m.rfind("pde.equation:1:" + std::to_string(c.column) + ": ", 0), 0u) << m;
    EXPECT_NE(m.find("\n  " + std::string(c.column - 1, ' ') + "^~"), std::string::npos) << m;
  }
}

TEST(ProblemFields, CountsAndNames) {
  ProblemText two;
  two.equations = {"dt(u) = v", "dt(u) = u"};
  std::string m = message_of<ConfigError>([&] { build_problem(two); });
  EXPECT_NE(m.find("already evolves"), std::string::npos) << m;

  ProblemText extra = one("dt(u) = -u");
  extra.fields = {"u", "v"};
  m = message_of<ConfigError>([&] { build_problem(extra); });
  EXPECT_NE(m.find("1 equation for 2 fields (u, v)"), std::string::npos) << m;

  ProblemText unknown = one("dt(u) = -u*nuu", {{"nu", 1}});
  m = message_of<ConfigError>([&] { build_problem(unknown); });
  EXPECT_NE(m.find("unknown name 'nuu'; fields: u; parameters: nu"), std::string::npos) << m;

  m = message_of<ConfigError>([&] { build_problem(one("dt(u) = -u", {{"pi", 3}})); });
  EXPECT_NE(m.find("'pi' is a name of the language"), std::string::npos) << m;
  ProblemText clash = one("dt(u) = -u", {{"nu", 1}});
  clash.fields = {"u", "nu"};
  clash.equations.push_back("nu = 0");
  EXPECT_THROW(build_problem(clash), ConfigError);
  EXPECT_THROW(build_problem(ProblemText{}), ConfigError);
  m = message_of<ConfigError>([&] { build_problem(one("nu = 2", {{"nu", 1}})); });
  EXPECT_NE(m.find("the equations name no field"), std::string::npos) << m;

  // Explicit fields set the order when they name every evolved field.
  ProblemText ordered;
  ordered.equations = {"dt(u) = v", "dt(v) = -u"};
  ordered.fields = {"v", "u"};
  Problem p = build_problem(ordered);
  EXPECT_EQ(p.fields, (std::vector<std::string>{"v", "u"}));
  EXPECT_EQ(p.equations[0].text, "dt(v) = -u");
}

TEST(ProblemExplain, ListsTheSplit) {
  Problem p = build_problem(one("dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0", {{"nu", 0.01}}));
  std::string s = explain(p);
  EXPECT_NE(s.find("equation 1 (evolves u): dt(u) + dx(0.5*u^2) - nu*dx(dx(u)) = 0\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  M: dt(u)\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  L: -0.01*dx(dx(u))"), std::string::npos) << s;
  EXPECT_NE(s.find("(implicit)"), std::string::npos) << s;
  EXPECT_NE(s.find("  F: -(0.5*dx(u^2))"), std::string::npos) << s;
  EXPECT_NE(s.find("(explicit)"), std::string::npos) << s;
}

}  // namespace
}  // namespace spire::flow
