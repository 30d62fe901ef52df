// The Solver on Fourier problems with exact solutions: measured orders in time on linear
// advection-diffusion and on viscous Burgers (Cole-Hopf), the KdV soliton, stiff runs far beyond
// the explicit limit, blow-up detection, the step callback, settings errors, and the gauge rule on
// 2D Navier-Stokes in vorticity / stream-function form (Taylor-Green vortex).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <new>

#include "engine/core/error.h"
#include "science/flow/solver.h"

// Counts operator new calls, for checking that time steps allocate nothing.
static std::atomic<long> g_allocations{0};
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace spire::flow {
namespace {

ExprPtr U() { return field("u", 0); }
ExprPtr mul(ExprPtr a, ExprPtr b) { return binary(Op::Mul, std::move(a), std::move(b)); }
ExprPtr sub(ExprPtr a, ExprPtr b) { return binary(Op::Sub, std::move(a), std::move(b)); }

// dt(u) + sum linear = rhs
Problem scalar_problem(std::vector<LinearTerm> linear, ExprPtr rhs, int x_order) {
  Problem p;
  p.fields = {"u"};
  Equation e;
  e.field = 0;
  e.mass = {{0, 1, 0, 0}};
  e.linear = std::move(linear);
  e.rhs = std::move(rhs);
  e.x_order = x_order;
  p.equations = {e};
  return p;
}

std::shared_ptr<const Space> fourier(int n, double x0, double x1) {
  Discretization d;
  d.x0 = x0;
  d.x1 = x1;
  d.nx = n;
  return make_space(d);
}

TimeSettings settings(Scheme s, double t_end, double dt, int snapshots = 2) {
  TimeSettings t;
  t.scheme = s;
  t.t_end = t_end;
  t.snapshots = snapshots;
  if (s == Scheme::DOPRI5) t.tolerance = dt;
  else t.dt = dt;
  return t;
}

using Exact = std::function<double(double x, double t)>;

Solution solve(const Problem& p, std::shared_ptr<const Space> space, TimeSettings ts, const Exact& exact,
               const StepCallback& cb = {}) {
  Solver solver(p, space, ts);
  const auto& x = space->coordinates(0, false);
  std::vector<double> u0(x.size());
  for (size_t i = 0; i < x.size(); ++i) u0[i] = exact(x[i], 0);
  solver.set_initial(0, u0);
  return solver.run(cb);
}

// Max error of the last snapshot.
double final_error(const Solution& s, const Exact& exact) {
  const auto& x = s.coords[0];
  const size_t n = x.size(), k = s.t.size() - 1;
  double e = 0;
  for (size_t i = 0; i < n; ++i) e = std::max(e, std::abs(s.fields[0][k * n + i] - exact(x[i], s.t[k])));
  return e;
}

// Viscous Burgers u_t + u u_x = nu u_xx by Cole-Hopf: u = -2 nu phi_x / phi with
// phi = 1 + a exp(-nu k^2 t) cos(k x) solving the heat equation.
struct Burgers {
  double nu = 0.1, a = 0.5, k = 1;
  Problem problem() const {
    return scalar_problem({{0, -nu, 2, 0}}, unary(Op::Neg, mul(U(), diff(0, U()))), 2);
  }
  Exact exact() const {
    return [*this](double x, double t) {
      const double E = a * std::exp(-nu * k * k * t);
      return 2 * nu * k * E * std::sin(k * x) / (1 + E * std::cos(k * x));
    };
  }
};

struct Designed {
  Scheme scheme;
  double order;
  double dt;  // the coarser of the two steps measured
};

const std::vector<Designed>& designed() {
  static const std::vector<Designed> d{{Scheme::SBDF1, 1, 0.02},  {Scheme::SBDF2, 2, 0.02},
                                       {Scheme::SBDF3, 3, 0.04},  {Scheme::RK222, 2, 0.04},
                                       {Scheme::RK443, 3, 0.025}, {Scheme::ETDRK4, 4, 0.1}};
  return d;
}

TEST(Solver, OrderOnAdvectionDiffusionWithExplicitAdvection) {
  // u_t + c u_x - nu u_xx = 0, advection explicit: u = exp(-nu k^2 t) sin(k (x - c t)).
  const double c = 1, nu = 0.05, k = 2;
  Problem p = scalar_problem({{0, -nu, 2, 0}}, unary(Op::Neg, mul(number(c), diff(0, U()))), 2);
  Exact exact = [=](double x, double t) { return std::exp(-nu * k * k * t) * std::sin(k * (x - c * t)); };
  auto space = fourier(16, 0, 2 * M_PI);
  for (const Designed& d : designed()) {
    const double e1 = final_error(solve(p, space, settings(d.scheme, 1, d.dt), exact), exact);
    const double e2 = final_error(solve(p, space, settings(d.scheme, 1, d.dt / 2), exact), exact);
    EXPECT_NEAR(std::log2(e1 / e2), d.order, 0.2) << scheme_name(d.scheme) << " " << e1 << " " << e2;
  }
}

TEST(Solver, OrderOnViscousBurgersByColeHopf) {
  Burgers b;
  auto space = fourier(48, 0, 2 * M_PI);
  for (const Designed& d : designed()) {
    const double e1 = final_error(solve(b.problem(), space, settings(d.scheme, 1, d.dt), b.exact()), b.exact());
    const double e2 = final_error(solve(b.problem(), space, settings(d.scheme, 1, d.dt / 2), b.exact()), b.exact());
    EXPECT_NEAR(std::log2(e1 / e2), d.order, 0.2) << scheme_name(d.scheme) << " " << e1 << " " << e2;
  }
}

TEST(Solver, Dopri5OnBurgersMeetsItsTolerance) {
  Burgers b;
  auto space = fourier(48, 0, 2 * M_PI);
  for (double tol : {1e-6, 1e-9}) {
    Solution s = solve(b.problem(), space, settings(Scheme::DOPRI5, 1, tol, 5), b.exact());
    ASSERT_TRUE(s.complete) << s.stop_reason;
    ASSERT_EQ(s.t.size(), 5u);
    EXPECT_LT(final_error(s, b.exact()), 10 * tol);
    EXPECT_GT(s.steps, 2);
  }
}

TEST(Solver, SnapshotsAreHitExactlyAndStepsAreShortened) {
  Burgers b;
  auto space = fourier(32, 0, 2 * M_PI);
  // dt = 0.03 does not divide the interval 0.1: it becomes 0.1 / 4 = 0.025.
  Solution s = solve(b.problem(), space, settings(Scheme::RK222, 0.5, 0.03, 6), b.exact());
  ASSERT_TRUE(s.complete);
  ASSERT_EQ(s.t.size(), 6u);
  for (int k = 0; k < 6; ++k) EXPECT_DOUBLE_EQ(s.t[k], 0.1 * k);
  EXPECT_EQ(s.steps, 20);
  EXPECT_EQ(s.fields[0].size(), 6u * 32u);
  // Snapshot 0 is the initial condition itself.
  for (int i = 0; i < 32; ++i) EXPECT_NEAR(s.fields[0][i], b.exact()(s.coords[0][i], 0), 1e-14);
  for (int k = 1; k < 6; ++k) {
    double e = 0;
    for (int i = 0; i < 32; ++i) e = std::max(e, std::abs(s.fields[0][k * 32 + i] - b.exact()(s.coords[0][i], s.t[k])));
    EXPECT_LT(e, 1e-4) << "snapshot " << k;
  }
}

// KdV u_t + 6 u u_x + u_xxx = 0: the soliton u = c/2 sech^2(sqrt(c)/2 (x - c t - x0)) on a periodic
// domain wide enough that its tails are below 1e-12. L = dx^3 is dispersive (imaginary) and stiff:
// at n = 256 its largest |k^3| is ~4000, so explicit RK4 would need dt < 7e-4; these run at 1e-2.
// (SBDF3 is not stable on the whole imaginary axis: at dt = 5e-3 it is not, on this problem.)
TEST(Solver, KdvSolitonBeyondTheExplicitLimit) {
  const double c = 2, x0 = -4;
  Problem p = scalar_problem({{0, 1, 3, 0}}, mul(number(-6), mul(U(), diff(0, U()))), 3);
  Exact exact = [=](double x, double t) {
    const double s = 1 / std::cosh(std::sqrt(c) / 2 * (x - c * t - x0));
    return c / 2 * s * s;
  };
  auto space = fourier(256, -25, 25);
  struct Case {
    Scheme s;
    double tol;
  };
  for (Case cs : {Case{Scheme::ETDRK4, 5e-6}, {Scheme::RK443, 5e-4}, {Scheme::SBDF3, 5e-3}, {Scheme::SBDF2, 1e-2}}) {
    Solution s = solve(p, space, settings(cs.s, 2, 1e-2), exact);
    ASSERT_TRUE(s.complete) << scheme_name(cs.s) << ": " << s.stop_reason;
    EXPECT_LT(final_error(s, exact), cs.tol) << scheme_name(cs.s);
  }
}

TEST(Solver, StiffDiffusionBeyondTheExplicitLimit) {
  // Burgers with nu k_max^2 ~ 1600 at n = 256: explicit Euler needs dt < 1.2e-3; dt = 0.05 here.
  Burgers b;
  auto space = fourier(256, 0, 2 * M_PI);
  for (Scheme sc : {Scheme::SBDF1, Scheme::SBDF2, Scheme::SBDF3, Scheme::RK222, Scheme::RK443, Scheme::ETDRK4}) {
    Solution s = solve(b.problem(), space, settings(sc, 1, 0.05), b.exact());
    ASSERT_TRUE(s.complete) << scheme_name(sc);
    EXPECT_LT(final_error(s, b.exact()), sc == Scheme::SBDF1 ? 1e-3 : 2e-5) << scheme_name(sc);
  }
}

TEST(Solver, BlowUpStopsTheRunAndKeepsEarlierSnapshots) {
  // u_t = u^2, u(0) = 1: u = 1 / (1 - t) blows up at t = 1.
  Problem p = scalar_problem({}, mul(U(), U()), 0);
  Exact exact = [](double, double t) { return 1 / (1 - t); };
  for (Scheme sc : {Scheme::SBDF2, Scheme::RK443, Scheme::ETDRK4, Scheme::DOPRI5}) {
    Solution s = solve(p, fourier(8, 0, 1), settings(sc, 2, sc == Scheme::DOPRI5 ? 1e-8 : 1e-3, 9), exact);
    EXPECT_FALSE(s.complete) << scheme_name(sc);
    EXPECT_NE(s.stop_reason.find("|u| = "), std::string::npos) << s.stop_reason;
    EXPECT_NE(s.stop_reason.find(" exceeds the bound 1e+08 at t = "), std::string::npos) << s.stop_reason;
    EXPECT_NE(s.stop_reason.find(", x = "), std::string::npos) << s.stop_reason;
    const double t_stop = std::stod(s.stop_reason.substr(s.stop_reason.find("t = ") + 4));
    EXPECT_GT(t_stop, 0.99) << scheme_name(sc);
    EXPECT_LT(t_stop, 1.05) << scheme_name(sc);
    ASSERT_GE(s.t.size(), 4u) << scheme_name(sc);
    ASSERT_LE(s.t.size(), 5u) << scheme_name(sc);
    EXPECT_EQ(s.fields[0].size(), s.t.size() * 8);
    for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(s.fields[0][k * 8 + 3], exact(0, s.t[k]), 2e-3) << scheme_name(sc);
  }
}

TEST(Solver, NonFiniteValuesStopTheRun) {
  // u_t = -sqrt(u), u(0) = 1: u = (1 - t/2)^2 reaches 0 at t = 2; a step past it takes sqrt of a
  // negative number.
  Problem p = scalar_problem({}, unary(Op::Neg, call("sqrt", U())), 0);
  Exact exact = [](double, double t) { return (1 - t / 2) * (1 - t / 2); };
  Solution s = solve(p, fourier(8, 0.5, 1.5), settings(Scheme::SBDF1, 3, 1e-3, 7), exact);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.stop_reason.rfind("u is not finite at t = ", 0), 0u) << s.stop_reason;
  EXPECT_NE(s.stop_reason.find(", x = 0.5"), std::string::npos) << s.stop_reason;
  const double t_stop = std::stod(s.stop_reason.substr(s.stop_reason.find("t = ") + 4));
  EXPECT_GT(t_stop, 1.9);
  EXPECT_LT(t_stop, 2.1);
  ASSERT_GE(s.t.size(), 4u);
  for (size_t k = 0; k < s.t.size(); ++k) EXPECT_NEAR(s.fields[0][k * 8], exact(0, s.t[k]), 2e-3);
}

TEST(Solver, CallbackStopsTheRun) {
  Burgers b;
  long calls = 0;
  StepCallback cb = [&](double t, long steps) {
    ++calls;
    EXPECT_EQ(steps, calls);
    return t < 0.5 - 1e-12;
  };
  Solution s = solve(b.problem(), fourier(32, 0, 2 * M_PI), settings(Scheme::SBDF2, 1, 0.01, 5), b.exact(), cb);
  EXPECT_FALSE(s.complete);
  EXPECT_NE(s.stop_reason.find("callback"), std::string::npos);
  ASSERT_EQ(s.t.size(), 3u);
  EXPECT_DOUBLE_EQ(s.t.back(), 0.5);
  EXPECT_EQ(s.steps, 50);
  EXPECT_EQ(s.fields[0].size(), 3u * 32u);
}

TEST(Solver, SettingsErrorsNameTheKey) {
  Burgers b;
  auto space = fourier(16, 0, 2 * M_PI);
  auto expect_error = [&](TimeSettings t, const std::string& key) {
    try {
      Solver s(b.problem(), space, t);
      ADD_FAILURE() << "no error for " << key;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  TimeSettings t = settings(Scheme::SBDF2, 1, 0.01);
  auto with = [&](auto f) {
    TimeSettings c = t;
    f(c);
    return c;
  };
  expect_error(with([](TimeSettings& c) { c.t_end = 0; }), "time.t_end = 0");
  expect_error(with([](TimeSettings& c) { c.t_end = NAN; }), "time.t_end");
  expect_error(with([](TimeSettings& c) { c.snapshots = 1; }), "time.snapshots = 1");
  expect_error(with([](TimeSettings& c) { c.dt = 0; }), "time.dt = 0");
  expect_error(with([](TimeSettings& c) { c.dt = -1; }), "time.dt = -1");
  expect_error(with([](TimeSettings& c) { c.tolerance = 1e-6; }), "time.tolerance = 1e-06");
  expect_error(with([](TimeSettings& c) { c.bound = 0; }), "time.bound = 0");
  expect_error(with([](TimeSettings& c) { c.scheme = Scheme::DOPRI5; }), "time.dt = 0.01");
  expect_error(with([](TimeSettings& c) { c.scheme = Scheme::DOPRI5, c.dt = 0; }), "time.tolerance = 0");
  EXPECT_NO_THROW(Solver(b.problem(), space, settings(Scheme::DOPRI5, 1, 1e-6)));
}

// 2D Navier-Stokes, vorticity w and stream function psi:
//   dt(w) - nu laplacian(w) = -(dy(psi) dx(w) - dx(psi) dy(w)),   laplacian(psi) + w = 0.
// psi's mean is undetermined (its column is zero in mode (0, 0)): the gauge rule sets it to zero
// and drops that pencil's second equation. The Taylor-Green vortex w = 2 k cos(kx) cos(ky)
// exp(-2 nu k^2 t), psi = w / (2 k^2), is exact. Only w is given initially; psi follows from the
// constraint.
TEST(Solver, GaugeRuleOnTaylorGreenVortex) {
  const double nu = 0.05, k = 1;
  Problem p;
  p.dims = 2;
  p.fields = {"w", "psi"};
  ExprPtr w = field("w", 0), psi = field("psi", 1);
  Equation ew, ep;
  ew.field = 0;
  ew.mass = {{0, 1, 0, 0}};
  ew.linear = {{0, -nu, 2, 0}, {0, -nu, 0, 2}};
  ew.rhs = unary(Op::Neg, sub(mul(diff(1, psi), diff(0, w)), mul(diff(0, psi), diff(1, w))));
  ew.x_order = ew.y_order = 2;
  ep.field = 1;
  ep.linear = {{1, 1, 2, 0}, {1, 1, 0, 2}, {0, 1, 0, 0}};
  ep.x_order = ep.y_order = 2;
  p.equations = {ew, ep};
  Discretization d;
  d.dims = 2;
  d.x0 = d.y0 = 0;
  d.x1 = d.y1 = 2 * M_PI;
  d.nx = d.ny = 16;
  std::shared_ptr<const Space> space = make_space(d);
  const auto &x = space->coordinates(0, false), &y = space->coordinates(1, false);
  auto W = [&](double xi, double yj, double t) {
    return 2 * k * std::cos(k * xi) * std::cos(k * yj) * std::exp(-2 * nu * k * k * t);
  };
  for (Scheme sc : {Scheme::SBDF2, Scheme::RK443}) {
    Solver solver(p, space, settings(sc, 1, 0.01, 3));
    std::vector<double> w0(256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) w0[i * 16 + j] = W(x[i], y[j], 0);
    solver.set_initial(0, w0);
    Solution s = solver.run();
    ASSERT_TRUE(s.complete) << s.stop_reason;
    ASSERT_EQ(s.t.size(), 3u);
    for (size_t n = 0; n < 3; ++n) {
      double ew_max = 0, ep_max = 0, mean = 0;
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
          const double we = W(x[i], y[j], s.t[n]);
          ew_max = std::max(ew_max, std::abs(s.fields[0][n * 256 + i * 16 + j] - we));
          ep_max = std::max(ep_max, std::abs(s.fields[1][n * 256 + i * 16 + j] - we / (2 * k * k)));
          mean += s.fields[1][n * 256 + i * 16 + j] / 256;
        }
      EXPECT_LT(ew_max, 1e-6) << scheme_name(sc) << " t = " << s.t[n];
      EXPECT_LT(ep_max, 1e-6) << scheme_name(sc) << " t = " << s.t[n];
      EXPECT_NEAR(mean, 0, 1e-14);
    }
  }
  // A constraint equation is beyond the exponential and the adaptive schemes.
  EXPECT_THROW(Solver(p, space, settings(Scheme::ETDRK4, 1, 0.01)), ConfigError);
  EXPECT_THROW(Solver(p, space, settings(Scheme::DOPRI5, 1, 1e-6)), ConfigError);
}

// The heat equation on [0, 1] (Chebyshev, tau method) with time-dependent Dirichlet values:
// Dirichlet data of u = cos(x) exp(-t) at both ends of [0, 1], for field 0.
void add_cos_exp_dirichlet(Problem& p) {
  for (int side = 0; side < 2; ++side) {
    BoundaryCondition bc;
    bc.field = 0;
    bc.side = side;
    bc.g = mul(number(side ? std::cos(1.0) : 1.0), call("exp", unary(Op::Neg, coordinate(2))));
    p.bcs.push_back(bc);
  }
}

std::shared_ptr<const Space> chebyshev_unit_interval(int n) {
  Discretization d;
  d.basis = "chebyshev";
  d.periodic = false;
  d.x0 = 0;
  d.x1 = 1;
  d.nx = n;
  return make_space(d);
}

// u = cos(x) exp(-t). The boundary rows are met at every stage time (imex.h), which gives SBDF1-3 and
// RK222 their designed order (Dedalus's form gives the Runge-Kutta schemes first order here). RK443
// keeps second order: the order reduction of a stage-order-1 method on a parabolic problem with
// time-dependent boundary data (Sanz-Serna & Verwer), measured here so that it cannot get worse.
TEST(Solver, OrderWithTimeDependentBoundaryValues) {
  Problem p = scalar_problem({{0, -1, 2, 0}}, nullptr, 2);
  p.periodic = false;
  add_cos_exp_dirichlet(p);
  std::shared_ptr<const Space> space = chebyshev_unit_interval(16);
  Exact exact = [](double x, double t) { return std::cos(x) * std::exp(-t); };
  for (const Designed& dd : designed()) {
    if (dd.scheme == Scheme::ETDRK4) continue;
    const double order = dd.scheme == Scheme::RK443 ? 2 : dd.order;
    const double e1 = final_error(solve(p, space, settings(dd.scheme, 1, dd.dt), exact), exact);
    const double e2 = final_error(solve(p, space, settings(dd.scheme, 1, dd.dt / 2), exact), exact);
    EXPECT_NEAR(std::log2(e1 / e2), order, 0.2) << scheme_name(dd.scheme) << " " << e1 << " " << e2;
  }
  EXPECT_THROW(Solver(p, space, settings(Scheme::ETDRK4, 1, 0.01)), ConfigError);
  EXPECT_THROW(Solver(p, space, settings(Scheme::DOPRI5, 1, 1e-6)), ConfigError);
}

// A constraint field on a Chebyshev pencil: u_t - u_xx = u v - u^2 with v - u = 0 (no dt, no
// boundary conditions). Only u is given; v is solved from its rows before the first step (the
// boundary rows of u are not among them), so F starts at zero and SBDF2 keeps second order.
TEST(Solver, ConstraintFieldOnChebyshevStartsConsistent) {
  Problem p;
  p.periodic = false;
  p.fields = {"u", "v"};
  Equation eu, ev;
  eu.field = 0;
  eu.mass = {{0, 1, 0, 0}};
  eu.linear = {{0, -1, 2, 0}};
  eu.rhs = sub(mul(U(), field("v", 1)), mul(U(), U()));
  eu.x_order = 2;
  ev.field = 1;
  ev.linear = {{1, 1, 0, 0}, {0, -1, 0, 0}};
  p.equations = {eu, ev};
  add_cos_exp_dirichlet(p);
  std::shared_ptr<const Space> space = chebyshev_unit_interval(16);
  Exact exact = [](double x, double t) { return std::cos(x) * std::exp(-t); };
  double err[2];
  for (int level = 0; level < 2; ++level) {
    Solution s = solve(p, space, settings(Scheme::SBDF2, 1, 0.02 / (1 << level), 2), exact);
    ASSERT_TRUE(s.complete) << s.stop_reason;
    const auto& x = s.coords[0];
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(s.fields[1][i], exact(x[i], 0), 1e-13);
    err[level] = final_error(s, exact);
  }
  EXPECT_NEAR(std::log2(err[0] / err[1]), 2, 0.2) << err[0] << " " << err[1];
}

// Allocations do not grow with the number of steps: every buffer is made before the first step.
TEST(Solver, StepsAllocateNothing) {
  Burgers b;
  auto space = fourier(32, 0, 2 * M_PI);
  for (int sc = 0; sc < 7; ++sc) {
    long counts[2], steps[2];
    for (int r = 0; r < 2; ++r) {
      // Ten times as long a run: about ten times the steps.
      const double dt = Scheme(sc) == Scheme::DOPRI5 ? 1e-8 : 1e-2;
      Solver solver(b.problem(), space, settings(Scheme(sc), r ? 2.0 : 0.2, dt, 3));
      std::vector<double> u0(32);
      for (int i = 0; i < 32; ++i) u0[i] = b.exact()(space->coordinates(0, false)[i], 0);
      solver.set_initial(0, u0);
      const long before = g_allocations.load();
      Solution s = solver.run();
      counts[r] = g_allocations.load() - before;
      steps[r] = s.steps;
      ASSERT_TRUE(s.complete);
    }
    EXPECT_GT(steps[1], steps[0] + 5) << scheme_name(Scheme(sc));
    EXPECT_EQ(counts[0], counts[1]) << scheme_name(Scheme(sc));
  }
  // A Chebyshev pencil (sparse factors, boundary values at every stage).
  Problem heat = scalar_problem({{0, -1, 2, 0}}, unary(Op::Neg, mul(U(), diff(0, U()))), 2);
  heat.periodic = false;
  for (int side = 0; side < 2; ++side) {
    BoundaryCondition bc;
    bc.field = 0;
    bc.side = side;
    bc.g = call("exp", unary(Op::Neg, coordinate(2)));
    heat.bcs.push_back(bc);
  }
  Discretization d;
  d.basis = "chebyshev";
  d.periodic = false;
  d.nx = 32;
  std::shared_ptr<const Space> cheb = make_space(d);
  for (Scheme sc : {Scheme::SBDF3, Scheme::RK443}) {
    long counts[2];
    for (int r = 0; r < 2; ++r) {
      Solver solver(heat, cheb, settings(sc, r ? 2.0 : 0.2, 1e-2, 3));
      solver.set_initial(0, std::vector<double>(32, 1.0));
      const long before = g_allocations.load();
      Solution s = solver.run();
      counts[r] = g_allocations.load() - before;
      ASSERT_TRUE(s.complete) << s.stop_reason;
    }
    EXPECT_EQ(counts[0], counts[1]) << "chebyshev " << scheme_name(sc);
  }
}

}  // namespace
}  // namespace spire::flow
