// The Chebyshev space: DCT-I transforms on the Gauss-Lobatto grid, the derivative recurrence, the
// ultraspherical conversions, and steady boundary value problems solved with the tau rows, each
// checked against closed forms (exact solutions, series evaluated by their own recurrences).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "engine/core/error.h"
#include "science/flow/chebyshev.h"
#include "science/flow/problem.h"
#include "science/flow/ultraspherical.h"

namespace spire::flow {
namespace {

using Fn = std::function<double(double)>;

std::unique_ptr<Space> space(int n, double x0, double x1, double dealias = 1.5) {
  Discretization d;
  d.basis = "chebyshev";
  d.periodic = false;
  d.nx = n;
  d.x0 = x0;
  d.x1 = x1;
  d.dealias = dealias;
  return make_chebyshev_space(d);
}

std::vector<cplx> coefficients_of(const Space& s, const Fn& f, bool padded = false) {
  const auto& x = s.coordinates(0, padded);
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) g[i] = f(x[i]);
  std::vector<cplx> c(x.size());
  s.forward(g.data(), c.data(), padded);
  return c;
}

// T series at xi by the three-term recurrence (independent of the DCT).
double t_series(const std::vector<double>& c, double xi) {
  double prev = 1, cur = xi, sum = c[0];
  if (c.size() > 1) sum += c[1] * xi;
  for (size_t i = 2; i < c.size(); ++i) {
    const double next = 2 * xi * cur - prev;
    prev = cur;
    cur = next;
    sum += c[i] * next;
  }
  return sum;
}

// Gegenbauer C^(l) series (l >= 1) by (n+1) C_{n+1} = 2 (n+l) xi C_n - (n+2l-1) C_{n-1}.
double gegenbauer_series(const std::vector<double>& c, int l, double xi) {
  double cm = 1, cn = 2 * l * xi, sum = c[0] * cm;
  if (c.size() > 1) sum += c[1] * cn;
  for (size_t n = 1; n + 1 < c.size(); ++n) {
    const double next = (2 * (double(n) + l) * xi * cn - (double(n) + 2 * l - 1) * cm) / double(n + 1);
    cm = cn;
    cn = next;
    sum += c[n + 1] * next;
  }
  return sum;
}

TEST(ChebyshevTransform, GridAndRoundTrip) {
  auto s = space(17, 0.5, 2.0);
  const auto& x = s->coordinates(0, false);
  ASSERT_EQ(x.size(), 17u);
  EXPECT_EQ(x.front(), 0.5);
  EXPECT_EQ(x.back(), 2.0);
  for (size_t i = 1; i < x.size(); ++i) EXPECT_GT(x[i], x[i - 1]);
  // Gauss-Lobatto: x_j = mid - half cos(pi j / (n-1))
  for (size_t j = 0; j < x.size(); ++j) EXPECT_NEAR(x[j], 1.25 - 0.75 * std::cos(M_PI * j / 16.0), 1e-15);

  std::vector<double> g(17), back(17);
  for (size_t i = 0; i < g.size(); ++i) g[i] = std::sin(1.7 * i) + 0.1 * i;  // arbitrary values
  std::vector<cplx> c(17);
  s->forward(g.data(), c.data(), false);
  s->backward(c.data(), back.data(), false);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(back[i], g[i], 1e-14);
  for (const cplx& v : c) EXPECT_EQ(v.imag(), 0.0);

  // The coefficients of a known polynomial: 3 T_0 - 2 T_3 + 0.5 T_7 in xi.
  const std::vector<double> exact = {3, 0, 0, -2, 0, 0, 0, 0.5};
  auto p = [&](double xv) { return t_series(exact, (2 * xv - 2.5) / 1.5); };
  auto cp = coefficients_of(*s, p);
  for (size_t i = 0; i < cp.size(); ++i) EXPECT_NEAR(cp[i].real(), i < exact.size() ? exact[i] : 0.0, 1e-14);

  // Padding keeps the interpolant: backward on the padded grid gives p there.
  std::vector<cplx> padded(s->unknowns_per_pencil(true));
  EXPECT_GE(padded.size(), 26u);  // ceil(1.5 * 17)
  s->pad(cp.data(), padded.data());
  std::vector<double> gp(padded.size());
  s->backward(padded.data(), gp.data(), true);
  const auto& xp = s->coordinates(0, true);
  for (size_t i = 0; i < gp.size(); ++i) EXPECT_NEAR(gp[i], p(xp[i]), 1e-13);
  std::vector<cplx> again(17);
  s->truncate(padded.data(), again.data());
  for (size_t i = 0; i < again.size(); ++i) EXPECT_EQ(again[i], cp[i]);
}

double derivative_error(int n, const Fn& f, const Fn& df, int order, double x0, double x1) {
  auto s = space(n, x0, x1);
  auto c = coefficients_of(*s, f);
  s->differentiate(c.data(), c.data(), 0, order, false);  // in place
  std::vector<double> g(static_cast<size_t>(n));
  s->backward(c.data(), g.data(), false);
  double err = 0;
  const auto& x = s->coordinates(0, false);
  for (int i = 0; i < n; ++i) err = std::max(err, std::abs(g[size_t(i)] - df(x[size_t(i)])));
  return err;
}

TEST(ChebyshevDerivative, AnalyticAndSpectralConvergence) {
  Fn e = [](double x) { return std::exp(x); };
  EXPECT_LT(derivative_error(32, e, e, 1, 0.0, 2.0), 1e-12 * std::exp(2.0));
  Fn s3 = [](double x) { return std::sin(3 * x); };
  Fn c3 = [](double x) { return 3 * std::cos(3 * x); };
  Fn s3pp = [](double x) { return -9 * std::sin(3 * x); };
  EXPECT_LT(derivative_error(40, s3, c3, 1, -1.0, 2.0), 1e-12);
  EXPECT_LT(derivative_error(40, s3, s3pp, 2, -1.0, 2.0), 1e-10);
  // Spectral: the error falls faster than any power of n.
  const double e8 = derivative_error(8, s3, c3, 1, -1.0, 2.0);
  const double e12 = derivative_error(12, s3, c3, 1, -1.0, 2.0);
  const double e16 = derivative_error(16, s3, c3, 1, -1.0, 2.0);
  EXPECT_LT(e12, 2e-2 * e8);
  EXPECT_LT(e16, 2e-2 * e12);

  // in != out, and at the padded size
  auto sp = space(20, -1.0, 2.0, 2.0);
  auto c = coefficients_of(*sp, s3, true);
  std::vector<cplx> d(c.size());
  sp->differentiate(c.data(), d.data(), 0, 1, true);
  std::vector<double> g(c.size());
  sp->backward(d.data(), g.data(), true);
  const auto& xp = sp->coordinates(0, true);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], c3(xp[i]), 1e-11);
}

TEST(ChebyshevUltraspherical, ConversionsKeepTheFunction) {
  const int n = 12;
  std::vector<double> t(n);
  for (int i = 0; i < n; ++i) t[size_t(i)] = std::cos(0.9 * i + 0.3) / (1 + i);
  for (int K = 1; K <= 3; ++K) {
    std::vector<cplx> c(t.begin(), t.end());
    ultraspherical::convert(c.data(), n, 0, K);
    std::vector<double> ck(n);
    for (int i = 0; i < n; ++i) ck[size_t(i)] = c[size_t(i)].real();
    // the sparse matrices say the same as the in-place sweep
    Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(t.data(), n);
    Eigen::VectorXd w = ultraspherical::operator_matrix(0, K, n) * v;
    for (double xi : {-1.0, -0.77, -0.1, 0.35, 0.9, 1.0}) {
      EXPECT_NEAR(gegenbauer_series(ck, K, xi), t_series(t, xi), 1e-13) << "K = " << K << " xi = " << xi;
    }
    for (int i = 0; i < n; ++i) EXPECT_NEAR(w[i], ck[size_t(i)], 1e-15);
  }
  // D_d then conversions to C^(K): the d-th derivative of the T series, against the derivative
  // recurrence through the space (on [-1, 1], where dxi/dx = 1).
  auto s = space(n, -1.0, 1.0, 1.0);
  for (int d = 1; d <= 2; ++d)
    for (int K = d; K <= 3; ++K) {
      Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(t.data(), n);
      Eigen::VectorXd w = ultraspherical::operator_matrix(d, K, n) * v;
      std::vector<double> ck(w.data(), w.data() + n);
      std::vector<cplx> c(t.begin(), t.end());
      s->differentiate(c.data(), c.data(), 0, d, false);
      std::vector<double> dt(n);
      for (int i = 0; i < n; ++i) dt[size_t(i)] = c[size_t(i)].real();
      for (double xi : {-1.0, -0.5, 0.2, 0.8, 1.0})
        EXPECT_NEAR(gegenbauer_series(ck, K, xi), t_series(dt, xi), 1e-11) << d << " " << K;
    }
}

// u'' + alpha u = f on [x0, x1] with boundary rows, solved directly (M = 0).
struct Steady {
  double alpha = 0;
  double x0 = 0, x1 = 1;
  BoundaryCondition left, right;
};

BoundaryCondition bc(int side, BoundaryKind kind, double a, double b, double g) {
  BoundaryCondition c;
  c.side = side;
  c.kind = kind;
  c.a = a;
  c.b = b;
  c.g = number(g);
  c.where = side == 0 ? "bc.left" : "bc.right";
  return c;
}

Problem second_order(double alpha) {
  Problem p;
  p.periodic = false;
  p.fields = {"u"};
  Equation eq;
  eq.where = "pde.equation";
  eq.field = 0;
  eq.linear.push_back(LinearTerm{0, 1.0, 2, 0});
  if (alpha != 0) eq.linear.push_back(LinearTerm{0, alpha, 0, 0});
  eq.x_order = 2;
  p.equations = {eq};
  return p;
}

// Solves L X = rhs and returns the max grid error against u.
double solve_steady(const Problem& p, const Space& s, const std::vector<Fn>& f, const std::vector<Fn>& u) {
  Eigen::MatrixXcd M, L;
  s.matrices(0, p, M, L);
  EXPECT_EQ(M.norm(), 0.0);
  const int n = s.unknowns_per_pencil(false);
  std::vector<std::vector<cplx>> Fc;
  std::vector<const cplx*> Fp;
  for (const Fn& fi : f) Fc.push_back(coefficients_of(s, fi));
  for (auto& c : Fc) Fp.push_back(c.data());
  Eigen::VectorXcd r(L.rows());
  s.rhs(0, p, Fp, 0.0, r.data());
  Eigen::VectorXcd X = L.partialPivLu().solve(r);
  double err = 0;
  const auto& x = s.coordinates(0, false);
  for (size_t k = 0; k < u.size(); ++k) {
    std::vector<double> g(static_cast<size_t>(n));
    s.backward(X.data() + k * size_t(n), g.data(), false);
    for (int i = 0; i < n; ++i) err = std::max(err, std::abs(g[size_t(i)] - u[k](x[size_t(i)])));
  }
  return err;
}

TEST(ChebyshevSteady, DirichletNeumannRobin) {
  // u = sin(3x) + x^2 on [0, 1.5]: u'' = -9 sin(3x) + 2
  const double x0 = 0, x1 = 1.5;
  Fn u = [](double x) { return std::sin(3 * x) + x * x; };
  Fn du = [](double x) { return 3 * std::cos(3 * x) + 2 * x; };
  Fn f = [](double x) { return -9 * std::sin(3 * x) + 2; };
  auto s = space(36, x0, x1);

  Problem p = second_order(0);
  p.bcs = {bc(0, BoundaryKind::Dirichlet, 1, 0, u(x0)), bc(1, BoundaryKind::Dirichlet, 1, 0, u(x1))};
  EXPECT_LT(solve_steady(p, *s, {f}, {u}), 1e-12);

  p.bcs = {bc(0, BoundaryKind::Neumann, 0, 1, du(x0)), bc(1, BoundaryKind::Dirichlet, 1, 0, u(x1))};
  EXPECT_LT(solve_steady(p, *s, {f}, {u}), 1e-12);

  // Robin at both ends: 2u - 0.5u' = g on the left, u + 3u' = g on the right
  p.bcs = {bc(0, BoundaryKind::Robin, 2, -0.5, 2 * u(x0) - 0.5 * du(x0)),
           bc(1, BoundaryKind::Robin, 1, 3, u(x1) + 3 * du(x1))};
  EXPECT_LT(solve_steady(p, *s, {f}, {u}), 1e-12);

  // Neumann at both ends with u'' - u = f - u, so that the problem is not singular
  Problem q = second_order(-1);
  Fn g = [&](double x) { return f(x) - u(x); };
  q.bcs = {bc(0, BoundaryKind::Neumann, 0, 1, du(x0)), bc(1, BoundaryKind::Neumann, 0, 1, du(x1))};
  EXPECT_LT(solve_steady(q, *s, {g}, {u}), 1e-12);
}

TEST(ChebyshevSteady, CoupledFirstOrderSystem) {
  // u' - v = 0 (closed by u(-1)), v' = f (closed by v(2) = u'(2)); other fields' columns are
  // converted into the equation's C^(1) too.
  Fn u = [](double x) { return std::exp(0.5 * x) * std::cos(x); };
  Fn du = [](double x) { return std::exp(0.5 * x) * (0.5 * std::cos(x) - std::sin(x)); };
  Fn ddu = [](double x) { return std::exp(0.5 * x) * (-0.75 * std::cos(x) - std::sin(x)); };
  Problem p;
  p.periodic = false;
  p.fields = {"u", "v"};
  Equation e1, e2;
  e1.field = 0;
  e1.linear = {LinearTerm{0, 1.0, 1, 0}, LinearTerm{1, -1.0, 0, 0}};
  e1.x_order = 1;
  e2.field = 1;
  e2.linear = {LinearTerm{1, 1.0, 1, 0}};
  e2.x_order = 1;
  p.equations = {e1, e2};
  BoundaryCondition l = bc(0, BoundaryKind::Dirichlet, 1, 0, u(-1)), r = bc(1, BoundaryKind::Dirichlet, 1, 0, du(2));
  r.field = 1;
  p.bcs = {l, r};
  auto s = space(40, -1, 2);
  EXPECT_LT(solve_steady(p, *s, {[](double) { return 0.0; }, ddu}, {u, du}), 1e-12);
}

std::string error_of(const Problem& p, const Space& s) {
  Eigen::MatrixXcd M, L;
  try {
    s.matrices(0, p, M, L);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ChebyshevBoundaryErrors, MissingOrExtraConditionsAreNamed) {
  auto s = space(16, 0, 1);
  Problem p = second_order(0);
  p.bcs = {bc(0, BoundaryKind::Dirichlet, 1, 0, 0)};
  EXPECT_EQ(error_of(p, *s),
            "equation 1 (u) is second order in x and needs 2 boundary conditions (left and right); "
            "[bc] gives 1: left; missing: right");
  p.bcs = {};
  EXPECT_EQ(error_of(p, *s),
            "equation 1 (u) is second order in x and needs 2 boundary conditions (left and right); "
            "[bc] gives 0; missing: left, right");

  Problem q = p;
  q.equations[0].linear = {LinearTerm{0, 1.0, 1, 0}};
  q.equations[0].x_order = 1;
  q.bcs = {bc(0, BoundaryKind::Dirichlet, 1, 0, 0), bc(1, BoundaryKind::Neumann, 0, 1, 0)};
  EXPECT_EQ(error_of(q, *s),
            "equation 1 (u) is first order in x and needs 1 boundary condition (left or right); "
            "[bc] gives 2: left, right; one too many");

  Problem z = p;
  z.equations[0].linear = {LinearTerm{0, 1.0, 0, 0}};
  z.equations[0].x_order = 0;
  z.bcs = {bc(1, BoundaryKind::Dirichlet, 1, 0, 0)};
  EXPECT_EQ(error_of(z, *s),
            "equation 1 (u) has no x derivatives and needs no boundary conditions; [bc] gives 1: right; "
            "remove them");
  z.bcs = {};
  EXPECT_EQ(error_of(z, *s), "");

  Problem four = p;
  four.equations[0].linear = {LinearTerm{0, 1.0, 4, 0}};
  four.equations[0].x_order = 4;
  EXPECT_NE(error_of(four, *s).find("is fourth order in x and needs 4 boundary conditions"), std::string::npos);
}

TEST(ChebyshevBoundaryErrors, FromTheProblemText) {
  // The same check on a problem built from its text, as a job file gives it.
  auto s = space(16, 0, 1);
  ProblemText text;
  text.equations = {"dt(u) - 0.1*dx(dx(u)) = -u^3"};
  text.periodic = false;
  text.bcs[""] = {{"right", "neumann: 0"}};
  EXPECT_EQ(error_of(build_problem(text), *s),
            "equation 1 (u) is second order in x and needs 2 boundary conditions (left and right); "
            "[bc] gives 1: right; missing: left");
  text.bcs[""]["left"] = "robin: 2*u - dx(u) = sin(t)";
  EXPECT_EQ(error_of(build_problem(text), *s), "");
}

TEST(ChebyshevSpace, BadDiscretizationsAreRefused) {
  Discretization d;
  d.basis = "chebyshev";
  d.periodic = true;
  d.nx = 32;
  EXPECT_THROW(make_chebyshev_space(d), ConfigError);
  d.periodic = false;
  d.nx = 3;
  EXPECT_THROW(make_chebyshev_space(d), ConfigError);
  d.nx = 32;
  d.dealias = 0.5;
  EXPECT_THROW(make_chebyshev_space(d), ConfigError);
  d.dealias = 1;
  d.x0 = 1;
  d.x1 = 1;
  EXPECT_THROW(make_chebyshev_space(d), ConfigError);
  d.x0 = 0;
  EXPECT_EQ(make_chebyshev_space(d)->unknowns_per_pencil(true), 32);
}

}  // namespace
}  // namespace spire::flow
