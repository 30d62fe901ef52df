// The adjoint step (adjoint_step.h) against the Simulation's own step: the dot-product test
// <A x, y> = <x, A^T y> on random states and random materials (inv_eps with PEC samples, inv_mu,
// electric and magnetic conductivity) for 1D, 2D TM and TE and 3D with CPML (kappa > 1, so every
// table term is live) on some sides, pec, pmc and periodic walls; on a tiny problem the whole matrix
// (A e_i . e_j = e_i . A^T e_j for every pair); and the curl the gradient reads, against the change
// of E that a step makes.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "engine/core/error.h"
#include "science/elec/adjoint_step.h"

namespace spire::elec {
namespace {

struct Case {
  const char* name;
  YeeLattice lattice;
  Boundaries boundaries;
};

BoundarySide pml(int cells) { return BoundarySide{BoundaryKind::pml, 0, cells}; }

std::vector<Case> cases() {
  std::vector<Case> out;
  Boundaries b1;
  b1.set_pec(2).set(2, Side::low, pml(4));
  b1.pml_profile.kappa_max = 3;
  out.push_back({"1d pml low, pec high", YeeLattice(Dimensions::one, {0, 0, 2.0}, 10), b1});
  Boundaries b2;
  b2.set_pml_cells(0, 3).set_periodic(1);
  b2.pml_profile.kappa_max = 2;
  out.push_back({"2d tm pml x, periodic y", YeeLattice(Dimensions::two_tm, {1.2, 1.0, 0}, 10), b2});
  Boundaries b3;
  b3.set_pmc(0).set_pmc(1).set(1, Side::low, pml(3));
  b3.pml_profile.kappa_max = 2.5;
  out.push_back({"2d te pmc x, pml low + pmc y", YeeLattice(Dimensions::two_te, {1.1, 1.3, 0}, 10), b3});
  Boundaries b4;
  b4.set_pml_cells(0, 2).set_periodic(1).set_pec(2).set(2, Side::high, pml(2));
  b4.pml_profile.kappa_max = 2;
  out.push_back({"3d pml x, periodic y, pec + pml z", YeeLattice(Dimensions::three, {0.8, 0.7, 0.9}, 10), b4});
  Boundaries b5;
  b5.set_pmc(0).set_pml_cells(1, 2).set(1, Side::low, BoundarySide{BoundaryKind::pmc, 0, 0}).set_periodic(2);
  b5.pml_profile.kappa_max = 3;
  out.push_back({"3d pmc x, pmc + pml y, periodic z", YeeLattice(Dimensions::three, {0.6, 0.9, 0.5}, 10), b5});
  return out;
}

MaterialArrays random_materials(const YeeLattice& lat, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.3, 1.0), s(0.0, 2.0);
  MaterialArrays m;
  for (Component c : lat.components()) {
    auto& inv = m.inverse[size_t(int(c))];
    auto& sig = m.conductivity[size_t(int(c))];
    inv.resize(size_t(lat.samples()));
    sig.resize(size_t(lat.samples()));
    for (size_t i = 0; i < inv.size(); ++i) {
      inv[i] = (is_electric(c) && i % 17 == 3) ? 0.0 : u(rng);  // a few PEC samples
      sig[i] = i % 3 == 0 ? s(rng) : 0.0;
    }
  }
  return m;
}

void randomize(RunState& s, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  for (auto& f : s.field)
    for (double& v : f) v = g(rng);
  for (auto& per : s.psi)
    for (auto& p : per)
      for (double& v : p) v = g(rng);
}

double norm(const AdjointStep& a, const RunState& x) { return std::sqrt(a.dot(x, x)); }

// A x by the Simulation's step from state x.
RunState forward(Simulation& sim, const AdjointStep& adj, const RunState& x, int steps) {
  sim.load_state(adj.to_state(x, 0));
  sim.run_steps(steps);
  return adj.from_state(sim.save_state());
}

TEST(AdjointStep, DotProductTestAgainstTheSimulationStep) {
  std::mt19937_64 rng(7);
  double worst = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const MaterialArrays m = random_materials(c.lattice, rng);
    Simulation sim(c.lattice, m, c.boundaries, 0.5);
    const AdjointStep adj(c.lattice, m, c.boundaries, sim.dt());
    for (int steps : {1, 3}) {
      RunState x = adj.zero_state(), y = adj.zero_state();
      randomize(x, rng);
      randomize(y, rng);
      const RunState ax = forward(sim, adj, x, steps);
      RunState aty = y;
      for (int n = 0; n < steps; ++n) adj.apply(aty);
      const double lhs = adj.dot(ax, y), rhs = adj.dot(x, aty);
      const double scale = norm(adj, ax) * norm(adj, y);
      EXPECT_LT(std::abs(lhs - rhs) / scale, 1e-13) << "steps " << steps << ": " << lhs << " vs " << rhs;
      worst = std::max(worst, std::abs(lhs - rhs) / scale);
    }
  }
  std::printf("dot-product test: worst |<Ax,y> - <x,A^T y>| / (|Ax| |y|) = %.1e\n", worst);
}

TEST(AdjointStep, ThreadedSweepIsExactAndHasTheSameBitsForAnyThreadCount) {
  // Large enough (> 32768 samples) for the threaded sweep; 1, 2 and 3 threads split the planes
  // differently (the thread-boundary and wrap planes move).
  struct Big {
    const char* name;
    YeeLattice lattice;
    Boundaries boundaries;
  };
  Boundaries b3;
  b3.set_pml_cells(0, 4).set_periodic(1).set_pmc(2).set(2, Side::high, pml(3));
  b3.pml_profile.kappa_max = 2;
  Boundaries b2;
  b2.set_pml_cells(1, 5).set_pmc(0).set(0, Side::low, pml(4));
  for (const Big& c : {Big{"3d", YeeLattice(Dimensions::three, {3.3, 3.4, 3.2}, 10), b3},
                       Big{"2d te", YeeLattice(Dimensions::two_te, {19, 19, 0}, 10), b2}}) {
    SCOPED_TRACE(c.name);
    ASSERT_GT(c.lattice.samples(), 32768);
    std::mt19937_64 rng(5);
    const MaterialArrays m = random_materials(c.lattice, rng);
    Simulation sim(c.lattice, m, c.boundaries, 0.5);
    const AdjointStep adj(c.lattice, m, c.boundaries, sim.dt());
    RunState x = adj.zero_state(), y = adj.zero_state();
    randomize(x, rng);
    randomize(y, rng);
    const RunState ax = forward(sim, adj, x, 1);
    const int saved = omp_get_max_threads();
    std::vector<RunState> results;
    for (int threads : {1, 2, 3}) {
      omp_set_num_threads(threads);
      RunState aty = y;
      adj.apply(aty);
      results.push_back(aty);
    }
    omp_set_num_threads(saved);
    const double lhs = adj.dot(ax, y), rhs = adj.dot(x, results[0]);
    EXPECT_LT(std::abs(lhs - rhs) / (norm(adj, ax) * norm(adj, y)), 1e-13) << lhs << " vs " << rhs;
    for (size_t r = 1; r < results.size(); ++r) {
      EXPECT_EQ(results[r].field, results[0].field) << "threads " << r + 1;
      EXPECT_EQ(results[r].psi, results[0].psi) << "threads " << r + 1;
    }
  }
}

TEST(AdjointStep, WholeMatrixOfATinyProblem) {
  // 2D TE, 5 x 4 cells, pml on x (2 cells, kappa 2), pmc y: every column of A against every row of A^T.
  const YeeLattice lat(Dimensions::two_te, {0.5, 0.4, 0}, 10);
  Boundaries b;
  b.set_pml_cells(0, 2).set_pmc(1);
  b.pml_profile.kappa_max = 2;
  std::mt19937_64 rng(3);
  const MaterialArrays m = random_materials(lat, rng);
  Simulation sim(lat, m, b, 0.5);
  const AdjointStep adj(lat, m, b, sim.dt());
  // Flatten a state into one vector, in a fixed order.
  auto flat = [](const RunState& s) {
    std::vector<double> v;
    for (const auto& f : s.field) v.insert(v.end(), f.begin(), f.end());
    for (const auto& per : s.psi)
      for (const auto& p : per) v.insert(v.end(), p.begin(), p.end());
    return v;
  };
  auto unit = [&](size_t i) {
    RunState s = adj.zero_state();
    size_t k = 0;
    for (auto& f : s.field)
      for (double& v : f) v = (k++ == i) ? 1.0 : 0.0;
    for (auto& per : s.psi)
      for (auto& p : per)
        for (double& v : p) v = (k++ == i) ? 1.0 : 0.0;
    return s;
  };
  const size_t n = flat(adj.zero_state()).size();
  std::vector<std::vector<double>> A(n), At(n);
  for (size_t i = 0; i < n; ++i) {
    A[i] = flat(forward(sim, adj, unit(i), 1));  // column i of A
    RunState r = unit(i);
    adj.apply(r);
    At[i] = flat(r);  // column i of A^T = row i of A
  }
  double worst = 0, largest = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      worst = std::max(worst, std::abs(A[i][j] - At[j][i]));
      largest = std::max(largest, std::abs(A[i][j]));
    }
  EXPECT_GT(largest, 0.1);
  EXPECT_LT(worst, 1e-14 * largest) << n << " state values";
  std::printf("whole matrix (%zu state values): max |A_ij - (A^T)_ji| / max |A_ij| = %.1e\n", n, worst / largest);
}

TEST(AdjointStep, ElectricCurlIsWhatTheEUpdateApplied) {
  // Without conductivity, E^{n+1} - E^n = scale curl at every E sample off the pec walls behind the
  // pml slabs of x and z (there the step holds E at zero).
  const YeeLattice lat(Dimensions::three, {0.8, 0.6, 0.7}, 10);
  Boundaries b;
  b.set_pml_cells(0, 3).set_periodic(1).set_pml_cells(2, 2);
  b.pml_profile.kappa_max = 2;
  std::mt19937_64 rng(11);
  MaterialArrays m = random_materials(lat, rng);
  for (auto& s : m.conductivity) s.clear();
  for (int c = 0; c < 3; ++c)
    for (double& v : m.inverse[size_t(c)]) v = v == 0 ? 0.7 : v;
  Simulation sim(lat, m, b, 0.5);
  const AdjointStep adj(lat, m, b, sim.dt());
  RunState x = adj.zero_state();
  randomize(x, rng);
  const RunState after = forward(sim, adj, x, 1);
  std::vector<std::pair<Component, int64_t>> samples;
  for (Component c : {Component::Ex, Component::Ey, Component::Ez})
    for (int64_t i = 0; i < lat.n(0); ++i)
      for (int64_t j = 0; j < lat.n(1); ++j)
        for (int64_t k = 0; k < lat.n(2); ++k) {
          const bool on_wall = (i == 0 && axis_of(c) != 0) || (k == 0 && axis_of(c) != 2);
          if (!on_wall && (i + j + k) % 3 == 0) samples.push_back({c, lat.index(i, j, k)});
        }
  const AdjointStep::ElectricCurl curl(adj, samples);
  EXPECT_TRUE(curl.needs_psi());
  std::array<const double*, 6> fields{};
  std::array<std::array<const double*, 3>, 6> psi{};
  for (int c = 0; c < 6; ++c) {
    fields[size_t(c)] = after.field[size_t(c)].data();
    for (int a = 0; a < 3; ++a)
      if (!after.psi[size_t(c)][size_t(a)].empty()) psi[size_t(c)][size_t(a)] = after.psi[size_t(c)][size_t(a)].data();
  }
  std::vector<double> out(samples.size());
  curl.evaluate(fields, psi, out.data());
  const double dtdx = sim.dt() / lat.dx();
  for (size_t q = 0; q < samples.size(); ++q) {
    const auto [c, i] = samples[q];
    const double change = after.field[size_t(int(c))][size_t(i)] - x.field[size_t(int(c))][size_t(i)];
    const double predicted = dtdx * m.inverse[size_t(int(c))][size_t(i)] * out[q];
    ASSERT_NEAR(change, predicted, 1e-13 * (1 + std::abs(change))) << to_string(c) << " sample " << i;
  }
}

TEST(AdjointStep, RefusesBlochBoundaries) {
  const YeeLattice lat(Dimensions::two_tm, {1, 1, 0}, 10);
  Boundaries b;
  b.set_bloch(0, 0.2);
  try {
    AdjointStep(lat, MaterialArrays::vacuum(lat), b, 0.05);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bloch"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::elec
