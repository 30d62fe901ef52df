// Dataset families: the drawn distributions against their definitions (PDEformer-1's generator,
// PDEBench), the job text against the drawn numbers, each family solving at small n, and the
// PDEformer-1 equation against manufactured steady states that use every term.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "engine/core/error.h"
#include "science/flow/families.h"
#include "science/flow/initial.h"
#include "science/flow/family_detail.h"
#include "science/flow/parser.h"
#include "science/flow/solver.h"

namespace spire::flow {
namespace {

PdeJob base_job(bool periodic, int n) {
  PdeJob job;
  job.discretization.basis = periodic ? "fourier" : "chebyshev";
  job.discretization.periodic = periodic;
  job.discretization.nx = n;
  job.discretization.x0 = -1, job.discretization.x1 = 1;
  job.time.t_end = 0.01, job.time.snapshots = 3, job.time.dt = 1e-3;
  job.seed = 17;
  return job;
}

double eval(const std::string& text, double x) {
  Scope scope;
  scope.t = false, scope.derivatives = false;
  return evaluate_point(*parse_expression(text, "test", scope), x, 0, 0);
}

// Runs a job's problem from its initial fields (expressions, or "random": sample `sample` of the
// job's random initial conditions) to t_end.
Solution solve(const PdeJob& job, uint64_t sample = 0) {
  Problem problem = build_problem(job.problem);
  std::shared_ptr<const Space> space = make_space(job.discretization);
  Solver solver(problem, space, job.time);
  for (size_t f = 0; f < problem.fields.size(); ++f) {
    auto it = job.initial.find(problem.fields[f]);
    if (it == job.initial.end()) continue;
    if (it->second == "random") {
      solver.set_initial(int(f), random_initial(job.random, *space, job.seed, sample, int(f)));
      continue;
    }
    Scope scope;
    scope.parameters = problem.parameters;
    scope.y = problem.dims == 2, scope.t = false, scope.derivatives = false;
    auto e = parse_expression(it->second, "initial", scope);
    const auto& x = space->coordinates(0, false);
    std::vector<double> grid;
    if (problem.dims == 1)
      for (double xi : x) grid.push_back(evaluate_point(*e, xi, 0, 0, problem.parameters));
    else
      for (double xi : x)
        for (double yj : space->coordinates(1, false)) grid.push_back(evaluate_point(*e, xi, yj, 0, problem.parameters));
    solver.set_initial(int(f), grid);
  }
  return solver.run();
}

TEST(Families, NamesAndKeys) {
  for (const auto& name : family_names()) EXPECT_EQ(make_family(name, {})->name(), name);
  try {
    make_family("heat", {});
    FAIL();
  } catch (const ConfigError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("heat"), std::string::npos);
    EXPECT_NE(m.find("pdeformer, advection, burgers, diffusion_reaction, navier_stokes_2d"), std::string::npos);
  }
  try {
    make_family("burgers", {{"beta", 1}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("its keys are nu"), std::string::npos);
  }
  EXPECT_THROW(make_family("diffusion_reaction", {{"nu", -1}}), ConfigError);
  EXPECT_EQ(family_defaults("pdeformer").at("coef_magnitude"), 3);
}

TEST(Families, GridPointsMatchTheSpaces) {
  for (bool periodic : {true, false}) {
    PdeJob job = base_job(periodic, 24);
    auto space = make_space(job.discretization);
    auto x = fam::grid_points(job.discretization, 0);
    const auto& y = space->coordinates(0, false);
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], 1e-15);
  }
}

struct Tally {
  std::map<std::string, std::map<int, int>> count;
  void add(const std::string& what, double v) { ++count[what][int(v)]; }
};

TEST(Families, PdeformerDistributions) {
  const int samples = 3000;
  auto family = make_family("pdeformer", {});
  PdeJob base = base_job(false, 32);
  auto x = fam::grid_points(base.discretization, 0);
  Tally t;
  int zero_coefficients = 0;
  for (int s = 0; s < samples; ++s) {
    FamilySample fs = family->sample(base, s);
    auto& c = fs.coef;
    for (const char* f : {"f0", "f1"}) {
      ASSERT_EQ(c[f].size(), 4u);
      EXPECT_EQ(c[f][0], 0.0);
      for (int k = 1; k <= 3; ++k) {
        EXPECT_LE(std::abs(c[f][k]), 3.0);
        zero_coefficients += c[f][k] == 0;
      }
    }
    t.add("s", c["s/coef_type"][0]);
    t.add("kappa", c["kappa/coef_type"][0]);
    for (double k : c["kappa/field"]) {
      EXPECT_GE(k, 1e-3 * (1 - 1e-12));
      EXPECT_LE(k, 1.0 * (1 + 1e-12));
    }
    for (const char* side : {"bc_l/", "bc_r/"}) {
      std::string p = side;
      int type = int(c[p + "bc_type"][0]);
      double a = c[p + "u_coef"][0], b = c[p + "dx_u_coef"][0];
      t.add(p + "type", type);
      t.add(p + "value", c[p + "bc_val_type"][0]);
      if (type == 0) EXPECT_TRUE(a == 1 && b == 0);
      if (type == 1) EXPECT_TRUE(a == 0 && b == 1);
      if (type == 2) {
        EXPECT_NEAR(a * a + b * b, 1.0, 1e-14);
        EXPECT_GT(b, 0);
      }
      if (c[p + "bc_val_type"][0] == 2) {  // from the initial field, through its expression
        const std::string& u0 = fs.job.initial.at("u");
        size_t i = p == "bc_l/" ? 0 : x.size() - 1, j = p == "bc_l/" ? 1 : x.size() - 2;
        double g = eval(u0, x[i]), dg = (eval(u0, x[i]) - eval(u0, x[j])) / (x[i] - x[j]);
        EXPECT_NEAR(c[p + "bc_val"][0], a * g + b * dg, 1e-9 * (1 + std::abs(b * dg)));
      }
    }
    if (s < 50) {  // the coefficient datasets are the expressions the job carries
      auto& coefs = fs.job.problem.coefficients;
      if (coefs.count("s"))
        for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(c["s/field"][i], eval(coefs.at("s"), x[i]), 1e-12);
      if (coefs.count("kappa"))
        for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(c["kappa/field"][i], eval(coefs.at("kappa"), x[i]), 1e-12);
      EXPECT_NO_THROW(build_problem(fs.job.problem)) << fs.job.problem.equations[0];
    }
  }
  auto near = [&](int got, double p, int n) { EXPECT_NEAR(got, p * n, 4 * std::sqrt(n * p * (1 - p))); };
  near(zero_coefficients, 0.5, 6 * samples);
  for (int k = 0; k < 3; ++k) near(t.count["s"][k], 1.0 / 3, samples);
  EXPECT_EQ(t.count["kappa"][0], 0);  // kappa = 0 is only drawn for periodic problems
  near(t.count["kappa"][1], 0.5, samples);
  for (const char* key : {"bc_l/type", "bc_r/type", "bc_l/value", "bc_r/value"})
    for (int k = 0; k < 3; ++k) near(t.count[key][k], 1.0 / 3, samples);
}

TEST(Families, PdeformerPeriodicKappaMayVanish) {
  auto family = make_family("pdeformer", {});
  PdeJob base = base_job(true, 32);
  int linear = 0, zero = 0;
  for (int s = 0; s < 3000; ++s) {
    FamilySample fs = family->sample(base, s);
    bool f1_linear = fs.coef["f1"][2] == 0 && fs.coef["f1"][3] == 0;
    int kappa = int(fs.coef["kappa/coef_type"][0]);
    if (!f1_linear) EXPECT_NE(kappa, 0);
    linear += f1_linear, zero += kappa == 0;
    EXPECT_TRUE(fs.job.problem.bcs.empty());
    EXPECT_EQ(fs.coef.count("bc_l/bc_type"), 0u);
  }
  EXPECT_NEAR(zero, linear / 3.0, 4 * std::sqrt(linear * 2.0 / 9));
}

TEST(Families, SamplesAreReproducibleAndDistinct) {
  auto family = make_family("pdeformer", {});
  PdeJob base = base_job(false, 32);
  FamilySample a = family->sample(base, 4), b = family->sample(base, 4), c = family->sample(base, 5);
  EXPECT_EQ(a.job.problem.equations, b.job.problem.equations);
  EXPECT_EQ(a.job.initial, b.job.initial);
  EXPECT_EQ(a.coef, b.coef);
  EXPECT_NE(a.job.initial, c.job.initial);
}

TEST(Families, EachFamilySolvesAtSmallN) {
  for (const auto& name : family_names()) {
    auto family = make_family(name, {});
    std::vector<PdeJob> bases;
    if (name == "navier_stokes_2d") {
      PdeJob b = base_job(true, 16);
      b.discretization.dims = 2, b.discretization.ny = 16;
      b.discretization.x0 = b.discretization.y0 = 0, b.discretization.x1 = b.discretization.y1 = 1;
      bases.push_back(b);
    } else {
      bases.push_back(base_job(true, 32));
      if (name == "pdeformer") bases.push_back(base_job(false, 24));
    }
    for (const PdeJob& base : bases)
      for (int s = 0; s < 3; ++s) {
        FamilySample fs = family->sample(base, s);
        Solution sol = solve(fs.job, s);
        // a drawn PDEformer problem may blow up (and is then rejected); it must still run
        if (name != "pdeformer") EXPECT_TRUE(sol.complete) << name << ": " << sol.stop_reason;
        EXPECT_GE(sol.t.size(), 1u);
      }
  }
}

TEST(Families, PdeformerBoundaryConditionsHoldInTheSolution) {
  // The drawn boundary conditions (coef bc_l/..., bc_r/...) hold at the ends of each solved
  // sample: a u + b u_x = g, u_x from the Chebyshev series.
  auto family = make_family("pdeformer", {});
  PdeJob base = base_job(false, 24);
  base.time.t_end = 0.005, base.time.dt = 1e-4, base.time.snapshots = 2;
  auto space = make_space(base.discretization);
  int checked = 0;
  for (int s = 0; s < 20; ++s) {
    FamilySample fs = family->sample(base, s);
    Solution sol = solve(fs.job);
    if (!sol.complete) continue;
    std::vector<double> u(sol.fields[0].end() - 24, sol.fields[0].end()), ux(24);
    std::vector<cplx> c(space->coeff_size(false));
    space->forward(u.data(), c.data(), false);
    space->differentiate(c.data(), c.data(), 0, 1, false);
    space->backward(c.data(), ux.data(), false);
    for (const char* side : {"bc_l/", "bc_r/"}) {
      std::string p = side;
      size_t i = p == "bc_l/" ? 0 : 23;
      double a = fs.coef[p + "u_coef"][0], b = fs.coef[p + "dx_u_coef"][0], g = fs.coef[p + "bc_val"][0];
      EXPECT_NEAR(a * u[i] + b * ux[i], g, 1e-8 * (1 + std::abs(g) + std::abs(b * ux[i]))) << "sample " << s << " " << p;
    }
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(Families, NavierStokesInitialStreamFunctionInvertsTheVorticity) {
  // psi0 is given in closed form; lap psi0 = -w0 checked by central differences.
  auto family = make_family("navier_stokes_2d", {{"k_max", 3}});
  PdeJob base = base_job(true, 16);
  base.discretization.dims = 2, base.discretization.ny = 16;
  base.discretization.x0 = base.discretization.y0 = 0, base.discretization.x1 = base.discretization.y1 = 1;
  FamilySample fs = family->sample(base, 0);
  Scope scope;
  scope.y = true, scope.t = false, scope.derivatives = false;
  auto w = parse_expression(fs.job.initial.at("w"), "w", scope);
  auto psi = parse_expression(fs.job.initial.at("psi"), "psi", scope);
  const double h = 1e-3;
  double mean = 0;
  for (double x : {0.1, 0.37, 0.8})
    for (double y : {0.05, 0.5, 0.66}) {
      double lap = (evaluate_point(*psi, x + h, y, 0) + evaluate_point(*psi, x - h, y, 0) + evaluate_point(*psi, x, y + h, 0) +
                    evaluate_point(*psi, x, y - h, 0) - 4 * evaluate_point(*psi, x, y, 0)) / (h * h);
      double wv = evaluate_point(*w, x, y, 0);
      EXPECT_NEAR(lap, -wv, 1e-4 * (1 + std::abs(wv)));
    }
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) mean += evaluate_point(*w, i / 32.0, j / 32.0, 0);
  EXPECT_NEAR(mean / 1024, 0.0, 1e-12);  // no mean vorticity
}

// u* = 0.5 sin(pi x) + 0.3 cos(2 pi x) + 0.1 and kappa = 0.5 exp(0.3 sin(pi x)); s(x) is chosen so
// that u* is steady: s = -(f0(u*) + f1'(u*) u*_x - kappa_x u*_x - kappa u*_xx).
fam::PdeformerTerms manufactured(bool periodic) {
  const std::string U = "(0.5*sin(pi*x) + 0.3*cos(2*pi*x) + 0.1)";
  const std::string Ux = "(0.5*pi*cos(pi*x) - 0.6*pi*sin(2*pi*x))";
  const std::string Uxx = "(-0.5*pi^2*sin(pi*x) - 1.2*pi^2*cos(2*pi*x))";
  const std::string K = "(0.5*exp(0.3*sin(pi*x)))", Kx = "(0.15*pi*cos(pi*x)*exp(0.3*sin(pi*x)))";
  fam::PdeformerTerms t;
  t.f0 = {0, 0.7, -0.4, 0.2};
  t.f1 = {0, 0.3, 0.5, -0.25};
  t.s_type = 2;
  t.s_field = "-(0.7*" + U + " - 0.4*" + U + "^2 + 0.2*" + U + "^3 + (0.3 + 1.0*" + U + " - 0.75*" + U + "^2)*" + Ux +
              " - " + Kx + "*" + Ux + " - " + K + "*" + Uxx + ")";
  t.kappa_type = 2;
  t.kappa_field = K;
  t.kappa_bar = 0.5 * std::exp(0.3);
  t.periodic = periodic;
  if (!periodic) {
    // left: Robin 0.6 u + 0.8 u_x = g; right: Dirichlet
    double a = 0.6, b = 0.8;
    double u_left = 0.3 + 0.1, ux_left = -0.5 * M_PI;  // at x = -1
    char buffer[128];
    std::snprintf(buffer, sizeof buffer, "robin: 0.6*u + 0.8*dx(u) = %.17g", a * u_left + b * ux_left);
    t.bc_left = buffer;
    t.bc_right = "dirichlet: 0.4";
  }
  return t;
}

TEST(Families, PdeformerEquationKeepsAManufacturedSteadyState) {
  for (bool periodic : {true, false}) {
    PdeJob job = base_job(periodic, periodic ? 32 : 40);
    job.problem = fam::pdeformer_problem(manufactured(periodic));
    job.initial = {{"u", "0.5*sin(pi*x) + 0.3*cos(2*pi*x) + 0.1"}};
    job.time.t_end = 0.5, job.time.dt = 2e-3, job.time.snapshots = 2;
    Solution sol = solve(job);
    ASSERT_TRUE(sol.complete) << sol.stop_reason;
    auto x = fam::grid_points(job.discretization, 0);
    double error = 0;
    for (size_t i = 0; i < x.size(); ++i)
      error = std::max(error, std::abs(sol.fields[0][(sol.t.size() - 1) * x.size() + i] - eval(job.initial.at("u"), x[i])));
    EXPECT_LT(error, 1e-8) << (periodic ? "periodic" : "robin/dirichlet") << ": " << job.problem.equations[0];
  }
}

}  // namespace
}  // namespace spire::flow
