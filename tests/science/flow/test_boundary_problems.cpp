// Time-dependent problems on a bounded interval: the heat equation with Dirichlet, Neumann, Robin
// and time-dependent Dirichlet conditions on the Chebyshev space, through build_problem and the
// Solver, against exact solutions, with the measured order of SBDF2 and RK443 in time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "science/flow/chebyshev.h"
#include "science/flow/solver.h"

namespace spire::flow {
namespace {

using Exact = std::function<double(double x, double t)>;

struct Case {
  std::string equation;
  std::string left, right;
  double x0 = 0, x1 = 1;
  Exact exact;
  bool moving_g = false;  // g depends on t
};

// The largest error over every stored snapshot.
double heat_error(const Case& c, Scheme scheme, double dt, int n = 16, int snapshots = 5) {
  const double t_end = 0.2;
  ProblemText text;
  text.equations = {c.equation};
  text.periodic = false;
  text.bcs[""] = {{"left", c.left}, {"right", c.right}};
  Problem problem = build_problem(text);
  Discretization d;
  d.basis = "chebyshev";
  d.periodic = false;
  d.nx = n;
  d.x0 = c.x0;
  d.x1 = c.x1;
  std::shared_ptr<const Space> space = make_chebyshev_space(d);
  TimeSettings ts;
  ts.t_end = t_end;
  ts.snapshots = snapshots;
  ts.dt = dt;
  ts.scheme = scheme;
  Solver solver(problem, space, ts);
  const auto& x = space->coordinates(0, false);
  std::vector<double> u0(x.size());
  for (size_t i = 0; i < x.size(); ++i) u0[i] = c.exact(x[i], 0.0);
  solver.set_initial(0, u0);
  Solution s = solver.run();
  EXPECT_TRUE(s.complete) << s.stop_reason;
  EXPECT_EQ(s.t.size(), size_t(snapshots));
  double err = 0;
  for (size_t k = 0; k < s.t.size(); ++k)
    for (size_t i = 0; i < x.size(); ++i) err = std::max(err, std::abs(s.fields[0][k * x.size() + i] - c.exact(x[i], s.t[k])));
  return err;
}

const double pi = M_PI;

std::string exact_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

Case dirichlet() {
  return {"dt(u) - dx(dx(u)) = 0", "dirichlet: 0", "dirichlet: 0", 0, 1,
          [](double x, double t) { return std::exp(-pi * pi * t) * std::sin(pi * x); }};
}
Case neumann() {
  return {"dt(u) = dx(dx(u))", "neumann: 0", "neumann: 0", 0, 1,
          [](double x, double t) { return 1 + std::exp(-pi * pi * t) * std::cos(pi * x); }};
}
// u = exp(-4t) sin(2x - pi/4): u + 0.5 u' = 0 at x = 0; u + u' = g(t) at x = 1.
Case robin() {
  const double phase = -pi / 4, tail = std::sin(2 + phase) + 2 * std::cos(2 + phase);
  return {"dt(u) - dx(dx(u)) = 0", "robin: u + 0.5*dx(u) = 0",
          "robin: u + dx(u) = " + exact_text(tail) + "*exp(-4*t)", 0, 1,
          [phase](double x, double t) { return std::exp(-4 * t) * std::sin(2 * x + phase); }, true};
}
// u = sin(x + t) on [-1, 2]: forcing u_t - u_xx = cos(x + t) + sin(x + t), moving boundary values.
Case moving() {
  return {"dt(u) - dx(dx(u)) = cos(x + t) + sin(x + t)", "dirichlet: sin(-1 + t)", "dirichlet: sin(2 + t)",
          -1, 2, [](double x, double t) { return std::sin(x + t); }, true};
}

TEST(BoundaryHeat, ExactSolutionsWithSbdf2AndRk443) {
  for (const Case& c : {dirichlet(), neumann(), robin(), moving()}) {
    const double e_sbdf2 = heat_error(c, Scheme::SBDF2, 1e-3);
    const double e_rk443 = heat_error(c, Scheme::RK443, 1e-2);
    std::printf("%-45s left %-26s sbdf2 dt=1e-3: %.2e  rk443 dt=1e-2: %.2e\n", c.equation.c_str(),
                c.left.c_str(), e_sbdf2, e_rk443);
    EXPECT_LT(e_sbdf2, 3e-5) << c.equation << " " << c.left;
    EXPECT_LT(e_rk443, 2e-5) << c.equation << " " << c.left;
  }
}

double order(const Case& c, Scheme scheme, double dt) {
  // One stored interval, so that every step has the same length.
  return std::log2(heat_error(c, scheme, dt, 16, 2) / heat_error(c, scheme, dt / 2, 16, 2));
}

TEST(BoundaryHeat, OrderInTime) {
  // The spatial error (n = 16) is far below these, so halving dt shows the scheme's order.
  for (const Case& c : {dirichlet(), neumann(), robin(), moving()}) {
    const double s2 = order(c, Scheme::SBDF2, 4e-3), s3 = order(c, Scheme::SBDF3, 4e-3);
    const double r3 = order(c, Scheme::RK443, 2e-2);
    std::printf("%-45s left %-26s order: sbdf2 %.2f  sbdf3 %.2f  rk443 %.2f\n", c.equation.c_str(),
                c.left.c_str(), s2, s3, r3);
    EXPECT_NEAR(s2, 2.0, 0.25) << c.equation << " " << c.left;
    EXPECT_NEAR(s3, 3.0, 0.35) << c.equation << " " << c.left;
    // RK443 keeps its third order with constant boundary values; with g(t) it drops to second, the
    // order reduction of Runge-Kutta methods of low stage order on parabolic problems with
    // time-dependent boundary conditions (Sanz-Serna, Verwer & Hundsdorfer 1987), even though each
    // stage imposes g at its own time. The multistep schemes do not suffer it.
    if (c.moving_g)
      EXPECT_GT(r3, 1.8) << c.equation << " " << c.left;
    else
      EXPECT_GT(r3, 2.7) << c.equation << " " << c.left;
  }
}

// Viscous Burgers u_t + u u_x = nu u_xx has the travelling front u = c - a tanh(a (x - c t) / (2 nu));
// its boundary values move with it. The product u*dx(u) is explicit, evaluated on the padded grid.
Case burgers_front() {
  const std::string front = "0.2 - 0.5*tanh(1.25*(X - 0.2*t))";  // nu = 0.2, a = 0.5, c = 0.2
  auto at = [&](const std::string& x) {
    std::string s = front;
    s.replace(s.find('X'), 1, x);
    return "dirichlet: " + s;
  };
  return {"dt(u) + u*dx(u) - 0.2*dx(dx(u)) = 0", at("-1"), at("1"), -1, 1,
          [](double x, double t) { return 0.2 - 0.5 * std::tanh(1.25 * (x - 0.2 * t)); }, true};
}

TEST(BoundaryBurgers, TravellingFront) {
  const Case c = burgers_front();
  const double e_sbdf2 = heat_error(c, Scheme::SBDF2, 1e-3, 32);
  const double e_rk222 = heat_error(c, Scheme::RK222, 1e-3, 32);
  const double s2 = std::log2(heat_error(c, Scheme::SBDF2, 4e-3, 32, 2) / heat_error(c, Scheme::SBDF2, 2e-3, 32, 2));
  const double e12 = heat_error(c, Scheme::SBDF3, 1e-3, 12), e24 = heat_error(c, Scheme::SBDF3, 1e-3, 24);
  std::printf("burgers front: sbdf2 dt=1e-3 %.2e, rk222 %.2e, sbdf2 order %.2f; sbdf3 n=12 %.2e n=24 %.2e\n",
              e_sbdf2, e_rk222, s2, e12, e24);
  EXPECT_LT(e_sbdf2, 1e-6);
  EXPECT_LT(e_rk222, 1e-6);
  EXPECT_NEAR(s2, 2.0, 0.25);
  EXPECT_LT(e24, 1e-2 * e12);
}

TEST(BoundaryHeat, SpectralInSpace) {
  // With a fine step the error falls exponentially in n until the time error floor.
  const Case c = moving();
  const double e6 = heat_error(c, Scheme::RK443, 2e-3, 6), e10 = heat_error(c, Scheme::RK443, 2e-3, 10);
  std::printf("moving dirichlet, rk443 dt=2e-3: n=6 %.2e  n=10 %.2e\n", e6, e10);
  EXPECT_LT(e10, 1e-2 * e6);
}

}  // namespace
}  // namespace spire::flow
