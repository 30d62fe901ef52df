// The time schemes on systems of ODEs whose matrices are known by hand: a test Space whose pencils
// are independent scalar (or small) systems, dx acting on pencil p as multiplication by lambda_p,
// and explicit terms written directly in coefficient space. Orders are measured against exact
// solutions; the stiff case runs far beyond the explicit stability limit.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/core/error.h"
#include "science/flow/dopri5.h"
#include "science/flow/etdrk4.h"
#include "science/flow/imex.h"
#include "science/flow/pencils.h"

namespace spire::flow {
namespace {

// Pencils of one unknown each; dx^k of a field on pencil p is lambda_p^k times it. No transforms:
// the grid is the real part of the coefficients.
class OdeSpace : public Space {
 public:
  explicit OdeSpace(std::vector<double> lambda) : lambda_(std::move(lambda)) {
    coords_.resize(lambda_.size());
    for (size_t i = 0; i < coords_.size(); ++i) coords_[i] = double(i);
  }
  const Discretization& discretization() const override { return d_; }
  std::vector<int> grid_shape(bool) const override { return {int(lambda_.size())}; }
  size_t grid_size(bool) const override { return lambda_.size(); }
  const std::vector<double>& coordinates(int, bool) const override { return coords_; }
  int pencil_count(bool) const override { return int(lambda_.size()); }
  int unknowns_per_pencil(bool) const override { return 1; }
  void forward(const double* g, cplx* c, bool) const override {
    for (size_t i = 0; i < lambda_.size(); ++i) c[i] = g[i];
  }
  void backward(const cplx* c, double* g, bool) const override {
    for (size_t i = 0; i < lambda_.size(); ++i) g[i] = c[i].real();
  }
  void pad(const cplx* c, cplx* p) const override { std::copy(c, c + lambda_.size(), p); }
  void truncate(const cplx* p, cplx* c) const override { std::copy(p, p + lambda_.size(), c); }
  void differentiate(const cplx* in, cplx* out, int, int order, bool) const override {
    for (size_t i = 0; i < lambda_.size(); ++i) out[i] = in[i] * std::pow(lambda_[i], order);
  }
  void matrices(int p, const Problem& problem, Eigen::MatrixXcd& M, Eigen::MatrixXcd& L) const override {
    const int n = int(problem.fields.size());
    // Pencils hands them in sized (no reallocation across the library boundary).
    EXPECT_EQ(M.rows(), n);
    M.setZero();
    L.setZero();
    for (int e = 0; e < n; ++e) {
      for (const LinearTerm& t : problem.equations[e].mass) M(e, t.field) += t.coefficient;
      for (const LinearTerm& t : problem.equations[e].linear)
        L(e, t.field) += t.coefficient * std::pow(lambda_[p], t.dx);
    }
  }
  void rhs(int p, const Problem& problem, const std::vector<const cplx*>& F, double, cplx* out) const override {
    for (size_t e = 0; e < problem.equations.size(); ++e) out[e] = F[e][p];
  }

 private:
  std::vector<double> lambda_, coords_;
  Discretization d_;
};

class Terms : public ExplicitTerms {
 public:
  explicit Terms(std::function<void(const cplx*, double, cplx*)> f) : f_(std::move(f)) {}
  void evaluate(const cplx* X, double t, cplx* F) override { f_(X, t, F); }

 private:
  std::function<void(const cplx*, double, cplx*)> f_;
};

Equation equation(int field, std::vector<LinearTerm> mass, std::vector<LinearTerm> linear) {
  Equation e;
  e.field = field;
  e.mass = std::move(mass);
  e.linear = std::move(linear);
  return e;
}

// u' + l u = -u^2 + s(t) with l = lambda_p (dx(u) in L), exact u = cos t + 2 + p/4.
struct Riccati {
  std::vector<double> lambda;
  OdeSpace space;
  Problem problem;
  Pencils pencils;
  Terms terms;
  explicit Riccati(std::vector<double> l)
      : lambda(l), space(l), problem(make_problem()), pencils(problem, space),
        terms([this](const cplx* X, double t, cplx* F) {
          for (size_t p = 0; p < lambda.size(); ++p) {
            const double u = exact(int(p), t);
            F[p] = -X[p] * X[p] + (-std::sin(t) + lambda[p] * u + u * u);
          }
        }) {}
  static Problem make_problem() {
    Problem pr;
    pr.fields = {"u"};
    pr.equations = {equation(0, {{0, 1, 0, 0}}, {{0, 1, 1, 0}})};
    return pr;
  }
  static double exact(int p, double t) { return std::cos(t) + 2 + p / 4.0; }
  double error(const std::vector<cplx>& X, double t) const {
    double e = 0;
    for (size_t p = 0; p < X.size(); ++p) e = std::max(e, std::abs(X[p] - exact(int(p), t)));
    return e;
  }
  std::vector<cplx> initial() const {
    std::vector<cplx> X(lambda.size());
    for (size_t p = 0; p < X.size(); ++p) X[p] = exact(int(p), 0);
    return X;
  }
};

std::unique_ptr<Stepper> make(Scheme s, Pencils& p, ExplicitTerms& t) {
  return s == Scheme::ETDRK4 ? make_etdrk4(p, t) : make_imex(s, p, t);
}

double run_fixed(Scheme s, Riccati& r, double T, int steps) {
  auto stepper = make(s, r.pencils, r.terms);
  std::vector<cplx> X = r.initial();
  const double dt = T / steps;
  for (int i = 0; i < steps; ++i) stepper->step(X.data(), i * dt, dt);
  return r.error(X, T);
}

struct Designed {
  Scheme scheme;
  double order;
};

TEST(Schemes, MeasuredOrderOnANonlinearForcedProblem) {
  Riccati r({0, 0.5, 1, 3});
  for (Designed d : {Designed{Scheme::SBDF1, 1}, {Scheme::SBDF2, 2}, {Scheme::SBDF3, 3}, {Scheme::RK222, 2},
                     {Scheme::RK443, 3}, {Scheme::ETDRK4, 4}}) {
    // RK443 reaches its asymptotic rate only below dt ~ 0.02 on this problem.
    const double e1 = run_fixed(d.scheme, r, 2.0, 160), e2 = run_fixed(d.scheme, r, 2.0, 320);
    const double order = std::log2(e1 / e2);
    EXPECT_NEAR(order, d.order, 0.15) << scheme_name(d.scheme) << ": errors " << e1 << " " << e2;
    EXPECT_LT(e2, 1e-2) << scheme_name(d.scheme);
  }
}

TEST(Schemes, StiffDecayFarBeyondTheExplicitLimit) {
  // l = 1e4: explicit Euler needs dt < 2e-4; these run at dt = 0.05 (250 times that) and follow
  // the slow solution (the IMEX Runge-Kutta schemes with the order reduction expected from a
  // stiff explicit forcing l u(t)).
  Riccati r({1e4, 3e4, 1});
  for (Scheme s : {Scheme::SBDF1, Scheme::SBDF2, Scheme::SBDF3, Scheme::RK222, Scheme::RK443, Scheme::ETDRK4}) {
    const double e = run_fixed(s, r, 2.0, 40);
    EXPECT_LT(e, 5e-2) << scheme_name(s);
  }
  // The exponential scheme integrates the stiff part exactly: no order reduction.
  EXPECT_LT(run_fixed(Scheme::ETDRK4, r, 2.0, 40), 1e-5);
}

TEST(Schemes, Dopri5MeetsItsTolerance) {
  Riccati r({0, 0.5, 1, 3});
  for (double tol : {1e-6, 1e-9}) {
    Dopri5 d(r.pencils, r.terms, tol);
    std::vector<cplx> X = r.initial();
    d.initialize(X.data(), 0, 1e-3);
    long steps = 0;
    double t = 0;
    while (t < 2.0) t = d.step().second, ++steps;
    d.state_at(2.0, X.data());
    EXPECT_LT(r.error(X, 2.0), 20 * tol);
    EXPECT_GT(r.error(X, 2.0), 0);
    EXPECT_GT(steps, 3);
  }
}

// A coupled pencil (two unknowns) with a constraint: u' + u + v/2 = u v / 4 + s(t) and v - 2u = 0.
// Exercises the dense LU path, the constraint rows, and projecting an inconsistent initial v.
TEST(Schemes, CoupledPencilWithConstraint) {
  OdeSpace space({0.0});
  Problem pr;
  pr.fields = {"u", "v"};
  pr.equations = {equation(0, {{0, 1, 0, 0}}, {{0, 1, 0, 0}, {1, 0.5, 0, 0}}),
                  equation(1, {}, {{1, 1, 0, 0}, {0, -2, 0, 0}})};
  Pencils pencils(pr, space);
  EXPECT_FALSE(pencils.scalar());
  ASSERT_TRUE(pencils.has_constraints());
  auto U = [](double t) { return std::cos(t) + 2; };
  Terms terms([&](const cplx* X, double t, cplx* F) {
    const double u = U(t);
    F[0] = X[0] * X[1] / 4.0 + (-std::sin(t) + u + u - u * u / 2);
    F[1] = 0;
  });
  std::vector<cplx> rhs(2);
  for (Designed d : {Designed{Scheme::SBDF1, 1}, {Scheme::SBDF2, 2}, {Scheme::SBDF3, 3}, {Scheme::RK222, 2},
                     {Scheme::RK443, 3}}) {
    double err[2];
    for (int level = 0; level < 2; ++level) {
      std::vector<cplx> X{U(0), 0.0};  // v inconsistent on purpose
      terms.evaluate(X.data(), 0, rhs.data());
      pencils.enforce_constraints(rhs.data(), X.data());
      EXPECT_NEAR(std::abs(X[1] - 2 * U(0)), 0, 1e-14);
      auto stepper = make_imex(d.scheme, pencils, terms);
      const int n = 40 << level;
      const double dt = 2.0 / n;
      for (int i = 0; i < n; ++i) stepper->step(X.data(), i * dt, dt);
      err[level] = std::max(std::abs(X[0] - U(2)), std::abs(X[1] - 2 * U(2)));
    }
    EXPECT_NEAR(std::log2(err[0] / err[1]), d.order, 0.2) << scheme_name(d.scheme);
  }
  EXPECT_THROW(make_etdrk4(pencils, terms), ConfigError);
  EXPECT_THROW(Dopri5(pencils, terms, 1e-6), ConfigError);
}

// The gauge rule: v appears only through dx(dx(v)), so in the pencil where lambda = 0 its column is
// zero in M and L; it is dropped there with the equation it closes, and scatters as zero.
TEST(Schemes, GaugeRuleDropsAFieldItsPencilCannotDetermine) {
  OdeSpace space({0.0, 1.0, 2.0});
  Problem pr;
  pr.fields = {"u", "v"};
  pr.equations = {equation(0, {{0, 1, 0, 0}}, {{0, 1, 0, 0}}), equation(1, {}, {{1, 1, 2, 0}, {0, 1, 0, 0}})};
  Pencils pencils(pr, space);
  EXPECT_EQ(pencils.size(0), 1);
  EXPECT_EQ(pencils.size(1), 2);
  EXPECT_EQ(pencils.size(2), 2);
  std::vector<cplx> u{1, 2, 3}, v{7, 8, 9}, X(pencils.size());
  pencils.gather({u.data(), v.data()}, X.data());
  std::vector<cplx> u2(3), v2(3);
  pencils.scatter(X.data(), {u2.data(), v2.data()});
  EXPECT_EQ(u2, u);
  EXPECT_EQ(v2, (std::vector<cplx>{0, 8, 9}));
  // dx(dx(v)) + u = 0 solved with the rest: v = -u / lambda^2 where lambda != 0.
  const int f = pencils.factor(1, 1);
  std::vector<cplx> rhs{1.0, 2.0, 0.0, 3.0, 0.0};  // rows: p0 u; p1 u, v; p2 u, v
  pencils.solve(f, rhs.data(), X.data());
  pencils.scatter(X.data(), {u2.data(), v2.data()});
  // Pencil p: (M + L) u = rhs with M = L = 1 for u -> u = rhs / 2; then v = -u / lambda^2.
  EXPECT_NEAR(std::abs(u2[1] - 1.0), 0, 1e-14);
  EXPECT_NEAR(std::abs(v2[1] + 1.0), 0, 1e-14);
  EXPECT_NEAR(std::abs(v2[2] + 1.5 / 4), 0, 1e-14);
  EXPECT_EQ(v2[0], cplx(0));
}

TEST(Schemes, SingularImplicitSystemIsAConfigError) {
  OdeSpace space({1.0});
  Problem pr;
  pr.fields = {"u", "v"};
  // The second equation never mentions v: its pencils cannot determine v.
  pr.equations = {equation(0, {{0, 1, 0, 0}}, {{1, 1, 0, 0}}), equation(1, {}, {{0, 1, 0, 0}})};
  Pencils pencils(pr, space);
  EXPECT_THROW(pencils.factor(1, 0), ConfigError);
  EXPECT_FALSE(pencils.invertible(1, 0));
}

TEST(Schemes, Names) {
  for (const std::string& n : scheme_names()) EXPECT_EQ(scheme_name(scheme_from_name(n)), n);
  EXPECT_EQ(scheme_from_name("SBDF2"), Scheme::SBDF2);
  try {
    scheme_from_name("rk4");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("rk4"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("sbdf1, sbdf2, sbdf3, rk222, rk443, etdrk4, dopri5"), std::string::npos);
  }
}

}  // namespace
}  // namespace spire::flow
