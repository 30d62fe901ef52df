// The evaluator of explicit terms against analytic values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <numbers>

#include "engine/core/error.h"
#include "science/flow/evaluate.h"
#include "science/flow/space.h"

namespace spire::flow {
namespace {

constexpr double pi = std::numbers::pi;

ExprPtr num(double v) { return number(v); }
ExprPtr X() { return coordinate(0); }
ExprPtr Y() { return coordinate(1); }
ExprPtr T() { return coordinate(2); }
ExprPtr add(ExprPtr a, ExprPtr b) { return binary(Op::Add, a, b); }
ExprPtr sub(ExprPtr a, ExprPtr b) { return binary(Op::Sub, a, b); }
ExprPtr mul(ExprPtr a, ExprPtr b) { return binary(Op::Mul, a, b); }
ExprPtr div(ExprPtr a, ExprPtr b) { return binary(Op::Div, a, b); }
ExprPtr pow(ExprPtr a, ExprPtr b) { return binary(Op::Pow, a, b); }
ExprPtr neg(ExprPtr a) { return unary(Op::Neg, a); }

Problem one_field(ExprPtr rhs, int dims = 1) {
  Problem p;
  p.dims = dims;
  p.fields = {"u"};
  Equation e;
  e.rhs = rhs;
  e.mass = {{0, 1.0, 0, 0}};
  p.equations = {e};
  return p;
}

Discretization disc1(int n, double dealias) {
  Discretization d;
  d.nx = n;
  d.dealias = dealias;
  return d;
}

// Coefficients of f sampled on the space's grid.
template <class F>
std::vector<cplx> coeffs_of(const Space& s, F f) {
  std::vector<double> g(s.grid_size(false));
  const auto& x = s.coordinates(0, false);
  if (s.discretization().dims == 1) {
    for (size_t i = 0; i < g.size(); ++i) g[i] = f(x[i], 0.0);
  } else {
    const auto& y = s.coordinates(1, false);
    for (size_t i = 0; i < x.size(); ++i)
      for (size_t j = 0; j < y.size(); ++j) g[i * y.size() + j] = f(x[i], y[j]);
  }
  std::vector<cplx> c(s.coeff_size(false));
  s.forward(g.data(), c.data(), false);
  return c;
}

std::vector<double> grid_of(const Space& s, const std::vector<cplx>& c) {
  std::vector<double> g(s.grid_size(false));
  s.backward(c.data(), g.data(), false);
  return g;
}

TEST(Evaluate, BurgersFluxDerivative) {
  // F = -dx(0.5 u^2) = -u u_x, u = sin(pi x) + 0.5 cos(2 pi x): band-limited, so exact once dealiased.
  auto rhs = neg(diff(0, mul(num(0.5), pow(field("u", 0), num(2)))));
  Problem p = one_field(rhs);
  auto s = make_space(disc1(16, 1.5));
  Evaluator ev(p, *s);
  auto u = coeffs_of(*s, [](double x, double) { return std::sin(pi * x) + 0.5 * std::cos(2 * pi * x); });
  std::vector<cplx> F(s->coeff_size(false));
  for (int call = 0; call < 2; ++call) {  // a second call must give the same (no stale state)
    ev.explicit_terms({u.data()}, 0.0, {F.data()});
    auto f = grid_of(*s, F);
    const auto& x = s->coordinates(0, false);
    for (size_t i = 0; i < x.size(); ++i) {
      const double uu = std::sin(pi * x[i]) + 0.5 * std::cos(2 * pi * x[i]);
      const double ux = pi * std::cos(pi * x[i]) - pi * std::sin(2 * pi * x[i]);
      EXPECT_NEAR(f[i], -uu * ux, 1e-13) << i;
    }
  }
}

TEST(Evaluate, BurgersFluxOnAChebyshevSpace) {
  // The evaluator sees only the Space interface: the same F on a bounded interval, u = x^3 - x.
  auto rhs = neg(diff(0, mul(num(0.5), pow(field("u", 0), num(2)))));
  Problem p = one_field(rhs);
  p.periodic = false;
  Discretization d = disc1(16, 1.5);
  d.basis = "chebyshev";
  d.periodic = false;
  auto s = make_space(d);
  Evaluator ev(p, *s);
  auto u = coeffs_of(*s, [](double x, double) { return x * x * x - x; });
  std::vector<cplx> F(s->coeff_size(false));
  ev.explicit_terms({u.data()}, 0.0, {F.data()});
  auto f = grid_of(*s, F);
  const auto& x = s->coordinates(0, false);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(f[i], -(x[i] * x[i] * x[i] - x[i]) * (3 * x[i] * x[i] - 1), 1e-12) << x[i];
}

TEST(Evaluate, SmoothNonlinearTermsConvergeSpectrally) {
  // F = -dx(exp(u)) with u = sin(pi x): -pi cos(pi x) exp(sin(pi x)).
  auto rhs = neg(diff(0, call("exp", field("u", 0))));
  Problem p = one_field(rhs);
  double previous = 1;
  for (int n : {8, 12, 16, 20, 24, 32}) {
    auto s = make_space(disc1(n, 1.5));
    Evaluator ev(p, *s);
    auto u = coeffs_of(*s, [](double x, double) { return std::sin(pi * x); });
    std::vector<cplx> F(s->coeff_size(false));
    ev.explicit_terms({u.data()}, 0.0, {F.data()});
    auto f = grid_of(*s, F);
    double err = 0;
    const auto& x = s->coordinates(0, false);
    for (size_t i = 0; i < x.size(); ++i)
      err = std::max(err, std::fabs(f[i] + pi * std::cos(pi * x[i]) * std::exp(std::sin(pi * x[i]))));
    std::printf("n = %d: max error %.3g\n", n, err);
    if (previous > 1e-12) EXPECT_LT(err, previous / 10) << n;  // exponential until round-off
    previous = err;
  }
  EXPECT_LT(previous, 1e-13);
}

TEST(Evaluate, FunctionsAndPowersPointwise) {
  // With dealias = 1 the grid is the problem's own, so F's grid values are the pointwise ones.
  auto s = make_space(disc1(32, 1.0));
  auto u = coeffs_of(*s, [](double x, double) { return 0.3 + 0.2 * std::sin(pi * x); });
  auto ug = grid_of(*s, u);
  const auto U = field("u", 0);
  struct Case {
    ExprPtr e;
    double (*f)(double);
  };
  std::vector<Case> cases = {
      {call("sin", U), [](double v) { return std::sin(v); }},
      {call("cos", U), [](double v) { return std::cos(v); }},
      {call("tan", U), [](double v) { return std::tan(v); }},
      {call("exp", U), [](double v) { return std::exp(v); }},
      {call("log", U), [](double v) { return std::log(v); }},
      {call("sqrt", U), [](double v) { return std::sqrt(v); }},
      {call("tanh", U), [](double v) { return std::tanh(v); }},
      {call("sech", U), [](double v) { return 1 / std::cosh(v); }},
      {call("abs", neg(U)), [](double v) { return v; }},
      {call("sinh", U), [](double v) { return std::sinh(v); }},
      {call("cosh", U), [](double v) { return std::cosh(v); }},
      {pow(U, num(2.5)), [](double v) { return std::pow(v, 2.5); }},
      {pow(U, num(0.5)), [](double v) { return std::sqrt(v); }},
      {pow(U, num(-3)), [](double v) { return 1 / (v * v * v); }},
      {pow(U, num(7)), [](double v) { return v * v * v * v * v * v * v; }},
      {pow(num(2), U), [](double v) { return std::pow(2.0, v); }},
      {div(num(1), U), [](double v) { return 1 / v; }},
      {sub(num(1), U), [](double v) { return 1 - v; }},
      {div(U, num(4)), [](double v) { return v / 4; }},
      {mul(U, pow(U, U)), [](double v) { return v * std::pow(v, v); }},
  };
  std::vector<cplx> F(s->coeff_size(false));
  for (size_t k = 0; k < cases.size(); ++k) {
    Evaluator ev(one_field(cases[k].e), *s);
    ev.explicit_terms({u.data()}, 0.0, {F.data()});
    auto f = grid_of(*s, F);
    for (size_t i = 0; i < f.size(); ++i)
      EXPECT_NEAR(f[i], cases[k].f(ug[i]), 1e-13 * (1 + std::fabs(f[i]))) << to_string(*cases[k].e);
  }
}

TEST(Evaluate, CoordinatesTimeAndConstants) {
  // F = (1 + 0.5 sin(pi x)) dx(u) + cos(t) sin(pi x) - 2 t + dx(dx(u)) / 4 - u, u = cos(pi x).
  auto U = field("u", 0);
  auto sinx = call("sin", mul(num(pi), X()));
  auto rhs = sub(add(sub(add(mul(add(num(1), mul(num(0.5), sinx)), diff(0, U)), mul(call("cos", T()), sinx)),
                         mul(num(2), T())),
                     div(diff(0, diff(0, U)), num(4))),
                 U);
  Problem p = one_field(rhs);
  auto s = make_space(disc1(32, 1.5));
  Evaluator ev(p, *s);
  auto u = coeffs_of(*s, [](double x, double) { return std::cos(pi * x); });
  std::vector<cplx> F(s->coeff_size(false));
  for (double t : {0.0, 0.7}) {
    ev.explicit_terms({u.data()}, t, {F.data()});
    auto f = grid_of(*s, F);
    const auto& x = s->coordinates(0, false);
    for (size_t i = 0; i < x.size(); ++i) {
      const double sx = std::sin(pi * x[i]), cx = std::cos(pi * x[i]);
      const double exact = (1 + 0.5 * sx) * (-pi * sx) + std::cos(t) * sx - 2 * t - pi * pi * cx / 4 - cx;
      EXPECT_NEAR(f[i], exact, 1e-12) << t;
    }
  }
  // A right-hand side of t alone is a constant mode; a null one is zero.
  Problem q = one_field(mul(num(3), T()));
  q.fields.push_back("v");
  Equation e;
  e.field = 1;
  q.equations.push_back(e);
  Evaluator eq(q, *s);
  std::vector<cplx> G(F.size(), cplx(9));
  eq.explicit_terms({u.data(), u.data()}, 0.5, {F.data(), G.data()});
  EXPECT_EQ(F[0], cplx(1.5));
  for (size_t m = 1; m < F.size(); ++m) EXPECT_EQ(F[m], cplx(0));
  for (const cplx& g : G) EXPECT_EQ(g, cplx(0));
}

TEST(Evaluate, SumsOfDerivativesWithScalarAndVariableCoefficients) {
  // The PDEformer family's shape, as the splitter writes it, plus coefficients of t:
  // F = -(0.3 u^2) - 0.1 u^3 - sin(pi x) - 0.2 dx(u^2) + 0.05 dx(u^3) + dx(c dx(u))
  //     + cos(t) dx(u) / 2 - dx(dx(u)) t,   c = 1 + 0.5 cos(pi x).
  auto U = field("u", 0);
  auto px = mul(num(pi), X());
  auto c = add(num(1), mul(num(0.5), call("cos", px)));
  ExprPtr rhs = neg(mul(num(0.3), pow(U, num(2))));
  rhs = sub(rhs, mul(num(0.1), pow(U, num(3))));
  rhs = sub(rhs, call("sin", px));
  rhs = sub(rhs, mul(num(0.2), diff(0, pow(U, num(2)))));
  rhs = add(rhs, mul(num(0.05), diff(0, pow(U, num(3)))));
  rhs = add(rhs, diff(0, mul(c, diff(0, U))));
  rhs = add(rhs, div(mul(call("cos", T()), diff(0, U)), num(2)));
  rhs = sub(rhs, mul(diff(0, diff(0, U)), T()));
  Problem p = one_field(rhs);
  auto s = make_space(disc1(32, 1.5));
  Evaluator ev(p, *s);
  auto u = coeffs_of(*s, [](double x, double) { return std::sin(pi * x) + 0.3 * std::cos(2 * pi * x); });
  std::vector<cplx> F(s->coeff_size(false));
  const double t = 0.4;
  ev.explicit_terms({u.data()}, t, {F.data()});
  auto f = grid_of(*s, F);
  const auto& x = s->coordinates(0, false);
  for (size_t i = 0; i < x.size(); ++i) {
    const double X = x[i];
    const double uu = std::sin(pi * X) + 0.3 * std::cos(2 * pi * X);
    const double u1 = pi * std::cos(pi * X) - 0.6 * pi * std::sin(2 * pi * X);
    const double u2 = -pi * pi * std::sin(pi * X) - 1.2 * pi * pi * std::cos(2 * pi * X);
    const double cc = 1 + 0.5 * std::cos(pi * X), c1 = -0.5 * pi * std::sin(pi * X);
    const double exact = -0.3 * uu * uu - 0.1 * uu * uu * uu - std::sin(pi * X) - 0.2 * 2 * uu * u1 +
                         0.05 * 3 * uu * uu * u1 + c1 * u1 + cc * u2 + std::cos(t) * u1 / 2 - u2 * t;
    EXPECT_NEAR(f[i], exact, 1e-12) << X;
  }
}

TEST(Evaluate, OnGrid) {
  auto s = make_space(disc1(16, 1.5));
  Evaluator ev(one_field(nullptr), *s);
  auto e = add(pow(call("sin", mul(num(pi), X())), num(2)), diff(0, call("cos", mul(num(pi), X()))));
  for (bool padded : {false, true}) {
    auto g = ev.on_grid(*e, 0.0, padded);
    const auto& x = s->coordinates(0, padded);
    ASSERT_EQ(g.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double sx = std::sin(pi * x[i]);
      EXPECT_NEAR(g[i], sx * sx - pi * sx, 1e-12);
    }
  }
  // Parameters left in a tree (parse_expression keeps them) take the problem's values.
  auto param = [](const std::string& name) {
    auto e = std::make_shared<Expr>();
    e->op = Op::Parameter;
    e->name = name;
    return ExprPtr(e);
  };
  Problem withk = one_field(nullptr);
  withk.parameters = {{"k", 2.5}};
  Evaluator evk(withk, *s);
  auto kg = evk.on_grid(*mul(param("k"), call("sin", mul(num(pi), X()))), 0.0);
  for (size_t i = 0; i < kg.size(); ++i)
    EXPECT_NEAR(kg[i], 2.5 * std::sin(pi * s->coordinates(0, false)[i]), 1e-15);
  try {
    evk.on_grid(*param("q"), 0.0);
    ADD_FAILURE() << "no error for an unknown parameter";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown parameter 'q' (parameters: k)"), std::string::npos)
        << e.what();
  }
  auto tg = ev.on_grid(*mul(T(), T()), 3.0);
  for (double v : tg) EXPECT_EQ(v, 9.0);
  EXPECT_THROW(ev.on_grid(*field("u", 0), 0.0), ValueError);
}

// A plain recursive evaluator at one point, to check the compiled programs (their register reuse,
// grouping of linear terms, constants run once) on random trees.
double reference(const Expr& e, double x, double t, double u, double v) {
  auto arg = [&](int k) { return reference(*e.args[k], x, t, u, v); };
  switch (e.op) {
    case Op::Number: return e.value;
    case Op::Coordinate: return e.index == 0 ? x : t;
    case Op::Field: return e.index == 0 ? u : v;
    case Op::Neg: return -arg(0);
    case Op::Add: return arg(0) + arg(1);
    case Op::Sub: return arg(0) - arg(1);
    case Op::Mul: return arg(0) * arg(1);
    case Op::Div: return arg(0) / arg(1);
    case Op::Pow: {  // integer powers by multiplication, as the evaluator (and any careful code) does
      const double b = arg(0), p = arg(1);
      return p == 2 ? b * b : p == 3 ? b * b * b : std::pow(b, p);
    }
    case Op::Call:
      if (e.name == "sin") return std::sin(arg(0));
      if (e.name == "cos") return std::cos(arg(0));
      if (e.name == "tanh") return std::tanh(arg(0));
      if (e.name == "exp") return std::exp(arg(0));
      return std::fabs(arg(0));
    default: return NAN;
  }
}

ExprPtr random_tree(std::mt19937& g, int depth) {
  std::uniform_int_distribution<int> pick(0, depth <= 0 ? 3 : 12);
  std::uniform_real_distribution<double> value(-2, 2);
  const int k = pick(g);
  switch (k) {
    case 0: return num(std::round(value(g) * 4) / 4);
    case 1: return field(g() % 2 ? "u" : "v", int(g() % 2));
    case 2: return g() % 2 ? X() : T();
    case 3: return field("u", 0);
    case 4: return add(random_tree(g, depth - 1), random_tree(g, depth - 1));
    case 5: return sub(random_tree(g, depth - 1), random_tree(g, depth - 1));
    case 6: return mul(random_tree(g, depth - 1), random_tree(g, depth - 1));
    case 7: return div(random_tree(g, depth - 1), add(num(3), call("sin", random_tree(g, depth - 1))));
    case 8: return neg(random_tree(g, depth - 1));
    // Bounded bases: reassociation (which the evaluator may do, e.g. (c t) v for c (t v)) then
    // stays at round-off instead of being amplified through huge arguments of cos.
    case 9: return pow(call("tanh", random_tree(g, depth - 1)), num(double(2 + g() % 2)));
    case 10: return pow(add(num(2), call("cos", random_tree(g, depth - 1))), num(1.5));
    case 11: {
      static const char* names[] = {"sin", "cos", "tanh", "abs"};
      return call(names[g() % 4], random_tree(g, depth - 1));
    }
    default: return call("exp", call("sin", random_tree(g, depth - 1)));
  }
}

TEST(Evaluate, RandomTreesMatchAPointwiseReference) {
  // dealias = 1: the grid is the problem's own, so F on the grid is the pointwise value.
  auto s = make_space(disc1(16, 1.0));
  const auto& x = s->coordinates(0, false);
  auto u = coeffs_of(*s, [](double x, double) { return 1 + 0.5 * std::sin(pi * x); });
  auto v = coeffs_of(*s, [](double x, double) { return 0.2 - 0.7 * std::cos(pi * x); });
  auto ug = grid_of(*s, u), vg = grid_of(*s, v);
  std::mt19937 g(11);
  for (int trial = 0; trial < 2000; ++trial) {
    Problem p;
    p.fields = {"u", "v"};
    p.equations.resize(2);
    p.equations[0].rhs = random_tree(g, 4);
    p.equations[1].rhs = random_tree(g, 3);
    p.equations[1].field = 1;
    Evaluator ev(p, *s);
    std::vector<cplx> F0(s->coeff_size(false)), F1(F0.size());
    for (double t : {0.25, -1.5}) {  // twice: a second call must not see the first's state
      ev.explicit_terms({u.data(), v.data()}, t, {F0.data(), F1.data()});
      auto f0 = grid_of(*s, F0), f1 = grid_of(*s, F1);
      std::vector<double> r0(x.size()), r1(x.size());
      double scale0 = 1, scale1 = 1;  // transforms err relative to the largest value
      for (size_t i = 0; i < x.size(); ++i) {
        r0[i] = reference(*p.equations[0].rhs, x[i], t, ug[i], vg[i]);
        r1[i] = reference(*p.equations[1].rhs, x[i], t, ug[i], vg[i]);
        scale0 = std::max(scale0, std::fabs(r0[i]));
        scale1 = std::max(scale1, std::fabs(r1[i]));
      }
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_NEAR(f0[i], r0[i], 1e-13 * scale0) << to_string(*p.equations[0].rhs) << " t=" << t;
        ASSERT_NEAR(f1[i], r1[i], 1e-13 * scale1) << to_string(*p.equations[1].rhs) << " t=" << t;
      }
    }
  }
}

TEST(Evaluate, WhatCannotBeEvaluatedIsNamed) {
  auto s = make_space(disc1(16, 1.5));
  auto expect = [&](ExprPtr rhs, const std::string& words) {
    try {
      Evaluator ev(one_field(rhs), *s);
      ADD_FAILURE() << "no error for " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect(mul(Y(), field("u", 0)), "coordinate 'y' does not exist here (allowed: x, t)");
  expect(call("erf", field("u", 0)), "unknown function 'erf' (allowed: sin, cos");
  expect(mul(field("u", 0), diff(2, field("u", 0))), "d/dt");
  expect(mul(field("v", 3), field("u", 0)), "field 'v' has index 3");
}

TEST(Evaluate, VorticityJacobian2D) {
  // F = -(dx(psi) dy(w) - dy(psi) dx(w)) on [0, 2pi] x [-1, 1].
  Problem p;
  p.dims = 2;
  p.fields = {"w", "psi"};
  auto w = field("w", 0), psi = field("psi", 1);
  Equation e0, e1;
  e0.field = 0;
  e0.mass = {{0, 1.0, 0, 0}};
  e0.rhs = neg(sub(mul(diff(0, psi), diff(1, w)), mul(diff(1, psi), diff(0, w))));
  e1.field = 1;
  e1.linear = {{1, 1.0, 2, 0}, {1, 1.0, 0, 2}, {0, 1.0, 0, 0}};
  p.equations = {e0, e1};
  Discretization d;
  d.dims = 2;
  d.nx = 16;
  d.ny = 12;
  d.x0 = 0;
  d.x1 = 2 * pi;
  auto s = make_space(d);
  Evaluator ev(p, *s);
  auto psif = [](double x, double y) { return std::sin(x) * std::cos(pi * y) + 0.3 * std::cos(2 * x); };
  auto wf = [](double x, double y) { return std::cos(3 * x) + std::sin(pi * y) * std::sin(x); };
  auto cw = coeffs_of(*s, wf), cpsi = coeffs_of(*s, psif);
  std::vector<cplx> F0(s->coeff_size(false)), F1(F0.size());
  ev.explicit_terms({cw.data(), cpsi.data()}, 0.0, {F0.data(), F1.data()});
  auto f = grid_of(*s, F0);
  const auto &x = s->coordinates(0, false), &y = s->coordinates(1, false);
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = 0; j < y.size(); ++j) {
      const double X = x[i], Y = y[j];
      const double px = std::cos(X) * std::cos(pi * Y) - 0.6 * std::sin(2 * X);
      const double py = -pi * std::sin(X) * std::sin(pi * Y);
      const double wx = -3 * std::sin(3 * X) + std::sin(pi * Y) * std::cos(X);
      const double wy = pi * std::cos(pi * Y) * std::sin(X);
      EXPECT_NEAR(f[i * y.size() + j], -(px * wy - py * wx), 1e-12);
    }
  for (const cplx& c : F1) EXPECT_EQ(c, cplx(0));

  // One space, an evaluator per thread (as in a dataset run): the same bits as alone.
  auto run = [&](std::vector<cplx>& out) {
    Evaluator mine(p, *s);
    std::vector<cplx> G1(F0.size());
    out.assign(F0.size(), 0);
    for (int r = 0; r < 50; ++r) mine.explicit_terms({cw.data(), cpsi.data()}, 0.0, {out.data(), G1.data()});
  };
  std::vector<cplx> a, b;
  std::thread ta([&] { run(a); }), tb([&] { run(b); });
  ta.join();
  tb.join();
  EXPECT_EQ(std::memcmp(a.data(), F0.data(), F0.size() * sizeof(cplx)), 0);
  EXPECT_EQ(std::memcmp(b.data(), F0.data(), F0.size() * sizeof(cplx)), 0);
}

}  // namespace
}  // namespace spire::flow
