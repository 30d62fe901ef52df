// Simulation: the Courant check and stability just below the limit, time keeping and callbacks,
// the polarisation hook's contract, bad input, and bitwise independence of the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/core/error.h"
#include "science/elec/fdtd_update.h"
#include "science/elec/simulation.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;

TEST(Simulation, CourantAboveTheStabilityLimitIsAnErrorNamingBoth) {
  YeeLattice three(Dimensions::three, {1, 1, 1}, 10);
  try {
    Simulation sim(three, MaterialArrays::vacuum(three), Boundaries(), 0.6);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("0.6"), std::string::npos) << m;
    EXPECT_NE(m.find("0.57735"), std::string::npos) << m;
  }
  YeeLattice two(Dimensions::two_te, {1, 1, 0}, 10);
  EXPECT_THROW(Simulation(two, MaterialArrays::vacuum(two), Boundaries(), 0.71), ValueError);
  EXPECT_NO_THROW(Simulation(two, MaterialArrays::vacuum(two), Boundaries(), 0.7));
  YeeLattice one(Dimensions::one, {0, 0, 1}, 10);
  EXPECT_NO_THROW(Simulation(one, MaterialArrays::vacuum(one), Boundaries(), 1.0));
  EXPECT_THROW(Simulation(one, MaterialArrays::vacuum(one), Boundaries(), 1.01), ValueError);
  EXPECT_THROW(Simulation(one, MaterialArrays::vacuum(one), Boundaries(), 0.0), ValueError);
  Simulation sim(three, MaterialArrays::vacuum(three));
  EXPECT_DOUBLE_EQ(sim.courant(), 0.5);
  EXPECT_DOUBLE_EQ(sim.dt(), 0.05);
  EXPECT_DOUBLE_EQ(sim.courant_limit(), 1 / std::sqrt(3.0));
}

TEST(Simulation, StableJustBelowTheLimit) {
  // Random fields excite every lattice mode, including the checkerboard ones whose w dt -> pi at
  // the limit; just below it the discrete energy is still exactly conserved.
  for (Dimensions dims : {Dimensions::two_tm, Dimensions::three}) {
    const bool three = dims == Dimensions::three;
    YeeLattice lattice(dims, {0.8, 0.7, three ? 0.6 : 0.0}, 10);
    const double limit = three ? 1 / std::sqrt(3.0) : 1 / std::sqrt(2.0);
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries::periodic(), limit * (1 - 1e-3));
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (Component c : lattice.components()) sim.set_field(c, [&](const Vec3&) { return cd(u(rng)); });
    const double w0 = sim.energy();
    sim.run_steps(3000);
    EXPECT_NEAR(sim.energy(), w0, 1e-9 * w0) << to_string(dims);
  }
}

TEST(Simulation, RunUntilAndStepCallbacks) {
  YeeLattice lattice(Dimensions::two_tm, {1, 1, 0}, 10);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice));
  std::vector<int64_t> seen;
  const int id = sim.add_step_callback(3, [&](Simulation& s) { seen.push_back(s.steps()); });
  sim.run(1.0);  // dt = 0.05: exactly 20 steps
  EXPECT_EQ(sim.steps(), 20);
  EXPECT_DOUBLE_EQ(sim.time(), 1.0);
  EXPECT_EQ(seen, (std::vector<int64_t>{3, 6, 9, 12, 15, 18}));
  sim.run(1.01);
  EXPECT_EQ(sim.steps(), 21);
  EXPECT_EQ(seen.back(), 21);
  sim.remove_step_callback(id);
  sim.run_steps(5);
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_THROW(sim.remove_step_callback(id), ValueError);
  EXPECT_THROW(sim.add_step_callback(0, [](Simulation&) {}), ValueError);
  EXPECT_DOUBLE_EQ(sim.field(Component::Ez).time, sim.time());
  EXPECT_DOUBLE_EQ(sim.field(Component::Hx).time, sim.time() - 0.5 * sim.dt());
}

TEST(Simulation, BadInputIsRejectedWithItsName) {
  YeeLattice lattice(Dimensions::two_tm, {1, 1, 0}, 10);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice));
  auto pulse = std::make_shared<GaussianSource>(1.0, 0.5);
  try {
    sim.field(Component::Ex);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("2d_tm"), std::string::npos);
  }
  EXPECT_THROW(sim.add_source(point_dipole(Component::Hz, {0, 0, 0}, pulse)), ValueError);
  EXPECT_THROW(sim.add_source(point_dipole(Component::Ez, {0.6, 0, 0}, pulse)), ValueError);
  EXPECT_THROW(sim.add_source(point_dipole(Component::Ez, {0, 0, 0}, nullptr)), ValueError);
  MaterialArrays bad = MaterialArrays::vacuum(lattice);
  bad.inverse[size_t(int(Component::Hx))].pop_back();
  EXPECT_THROW(Simulation(lattice, bad), ValueError);
  MaterialArrays negative = MaterialArrays::vacuum(lattice);
  negative.conductivity[size_t(int(Component::Ez))].assign(size_t(lattice.samples()), -1.0);
  EXPECT_THROW(Simulation(lattice, negative), ValueError);
  EXPECT_EQ(parse_precision("single"), Precision::float32);
  EXPECT_THROW(parse_precision("half"), ConfigError);
  sim.step();
  EXPECT_THROW(sim.set_polarization(nullptr), ValueError);
}

// P = p0 everywhere: in a periodic cell the curl of a uniform E vanishes, so D stays 0 and
// E = inv_eps (D - P) = -p0 / eps exactly, with H = 0.
struct UniformPolarization : PolarizationHook {
  using PolarizationHook::step;
  std::array<double, 3> p0{0.3, -0.2, 0.7};
  std::vector<std::vector<double>> seen_e_now;
  int calls = 0;
  void step(Component c, FieldPart part, const double* e_now, double* p_total, int64_t n) override {
    ++calls;
    if (part == FieldPart::real) seen_e_now.emplace_back(e_now, e_now + n);
    for (int64_t i = 0; i < n; ++i) p_total[i] = part == FieldPart::real ? p0[size_t(axis_of(c))] : 0.0;
  }
};

TEST(Simulation, PolarizationHookGivesEFromDMinusP) {
  for (Precision precision : {Precision::float64, Precision::float32}) {
    YeeLattice lattice(Dimensions::three, {0.5, 0.4, 0.3}, 10);
    MaterialArrays m = MaterialArrays::vacuum(lattice);
    for (int c = 0; c < 3; ++c) m.inverse[size_t(c)].assign(size_t(lattice.samples()), 0.5);  // eps = 2
    Simulation sim(lattice, std::move(m), Boundaries::periodic(), 0.5, precision);
    auto hook = std::make_shared<UniformPolarization>();
    sim.set_polarization(hook);
    sim.run_steps(3);
    EXPECT_EQ(hook->calls, 9);  // three components, three steps, real fields
    for (int c = 0; c < 3; ++c) {
      const FieldView e = sim.field(Component(c)), h = sim.field(Component(c + 3));
      for (int64_t i = 0; i < lattice.samples(); ++i) {
        EXPECT_NEAR(e.real(i), -hook->p0[size_t(c)] / 2, 1e-7);
        EXPECT_NEAR(h.real(i), 0, 1e-7);
      }
    }
    // e_now is E^n: zero at the first step, then -p0/2.
    EXPECT_EQ(hook->seen_e_now[0][5], 0.0);
    EXPECT_NEAR(hook->seen_e_now[3][5], -0.15, 1e-7);
  }
}

// A hook that adds no polarisation: the stored-D path must give the direct-E path's fields bit for
// bit (E = 1 * (D - 0) = D) in vacuum, with sources and a PML.
struct NoPolarization : PolarizationHook {
  using PolarizationHook::step;
  void step(Component, FieldPart, const double*, double* p, int64_t n) override { std::fill(p, p + n, 0.0); }
};

Simulation busy_run(Dimensions dims, bool bloch, int steps) {
  const bool three = dims == Dimensions::three;
  YeeLattice lattice(dims, three ? Vec3{3.6, 3.4, 3.2} : Vec3{19.2, 18.0, 0}, 10);
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  // Dielectric, magnetic and lossy regions: every coefficient mode of the kernels.
  for (Component c : lattice.components())
    for (int64_t i = 0; i < lattice.samples(); i += 7) {
      m.inverse[size_t(int(c))][size_t(i)] = is_electric(c) ? 0.4 : 0.8;
      if (c == lattice.components()[0]) {
        m.conductivity[size_t(int(c))].resize(size_t(lattice.samples()), 0.0);
        m.conductivity[size_t(int(c))][size_t(i)] = 0.5;
      }
    }
  Boundaries b = Boundaries::pml_cells(6);
  if (bloch) b.set_bloch(0, 0.2).set_periodic(1);
  Simulation sim(lattice, std::move(m), b);
  auto pulse = std::make_shared<GaussianSource>(1.0, 1.0, 0, 2.0);
  const Component e = three ? Component::Ez : Component::Ey, h = three ? Component::Hx : Component::Hz;
  sim.add_source(point_dipole(e, {0.13, -0.27, three ? 0.05 : 0.0}, pulse));
  sim.add_source(point_dipole(h, {-0.4, 0.3, 0}, pulse, cd(0.5, 0.25)));
  sim.run_steps(steps);
  return sim;
}

bool same_bits(const Simulation& a, const Simulation& b) {
  for (Component c : a.lattice().components()) {
    const FieldView x = a.field(c), y = b.field(c);
    const size_t bytes = size_t(a.lattice().samples()) * (a.precision() == Precision::float32 ? 4 : 8);
    if (std::memcmp(x.re, y.re, bytes) != 0) return false;
    if (x.im && std::memcmp(x.im, y.im, bytes) != 0) return false;
  }
  return true;
}

TEST(Simulation, StoredDPathMatchesDirectEPath) {
  auto vacuum_run = [](std::shared_ptr<PolarizationHook> hook) {
    YeeLattice lattice(Dimensions::two_tm, {3.6, 3.4, 0}, 10);
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries::pml_cells(6));
    if (hook) sim.set_polarization(hook);
    sim.add_source(point_dipole(Component::Ez, {0.13, -0.27, 0}, std::make_shared<GaussianSource>(1.0, 1.0)));
    sim.run_steps(60);
    return sim;
  };
  EXPECT_TRUE(same_bits(vacuum_run(nullptr), vacuum_run(std::make_shared<NoPolarization>())));
}

TEST(Simulation, SameBitsWithOneAndTwoThreads) {
  const int saved = omp_get_max_threads();
  for (Dimensions dims : {Dimensions::three, Dimensions::two_te})
    for (bool bloch : {false, true}) {
      omp_set_num_threads(1);
      const Simulation one = busy_run(dims, bloch, 25);
      omp_set_num_threads(2);
      const Simulation two = busy_run(dims, bloch, 25);
      ASSERT_GE(one.lattice().samples(), 32768);  // large enough for the kernels to go parallel
      EXPECT_TRUE(same_bits(one, two)) << to_string(dims) << (bloch ? " bloch" : "");
      omp_set_num_threads(1);
      const double e1 = one.energy();
      omp_set_num_threads(2);
      EXPECT_EQ(e1, two.energy());
    }
  omp_set_num_threads(saved);
}

TEST(Simulation, OneCellThickPeriodicSlabIsTheTwoDimensionalTmProblem) {
  // A 3D cell one sample thick and periodic along z has no z dependence: its Ez, Hx, Hy obey the
  // 2D TM equations (and Ex, Ey, Hz stay zero). A line current through the slab is the 2D point
  // source. The two code paths give the same numbers.
  YeeLattice l3(Dimensions::three, {2.0, 1.6, 0.1}, 10), l2(Dimensions::two_tm, {2.0, 1.6, 0}, 10);
  Boundaries b3 = Boundaries::pml_cells(5);
  b3.set_periodic(2);
  Simulation s3(l3, MaterialArrays::vacuum(l3), b3), s2(l2, MaterialArrays::vacuum(l2), Boundaries::pml_cells(5));
  auto pulse = std::make_shared<GaussianSource>(1.0, 1.0);
  s3.add_source(current_sheet(Component::Ez, {0.13, -0.2, 0}, {0, 0, 0.1}, pulse));
  s2.add_source(point_dipole(Component::Ez, {0.13, -0.2, 0}, pulse));
  s3.run_steps(150);
  s2.run_steps(150);
  double peak = 0;
  for (Component c : {Component::Ez, Component::Hx, Component::Hy})
    for (int64_t i = 0; i < l2.samples(); ++i) {
      EXPECT_NEAR(s3.field(c).real(i), s2.field(c).real(i), 1e-15) << to_string(c);
      peak = std::max(peak, std::abs(s2.field(c).real(i)));
    }
  EXPECT_GT(peak, 1e-5);
  for (Component c : {Component::Ex, Component::Ey, Component::Hz})
    for (int64_t i = 0; i < l3.samples(); ++i) EXPECT_EQ(s3.field(c).real(i), 0.0);
}

TEST(Simulation, FusedStepMatchesSeparateHalfSteps) {
  // step_h_e (what runs use) against step_h then step_e, bit for bit, with CPML and Bloch walls.
  YeeLattice lattice(Dimensions::three, {2.0, 1.8, 1.6}, 10);
  Boundaries b = Boundaries::pml_cells(4);
  b.set_bloch(1, 0.3);
  const ResolvedBoundaries bc = resolve(b, lattice);
  const double dt = 0.5 * lattice.dx();
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  m.inverse[0][100] = 0.3;
  const UpdateCoefficients<double> co = make_update_coefficients<double>(m, lattice, dt, false);
  Fields<double> f1(lattice, true, false), f2(lattice, true, false);
  Cpml<double> p1(lattice, bc, b.pml_profile, dt, true), p2(lattice, bc, b.pml_profile, dt, true);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (Component c : lattice.components())
    for (int part = 0; part < 2; ++part)
      for (int64_t i = 0; i < lattice.samples(); ++i) {
        const double v = u(rng);
        f1.data(c, FieldPart(part))[i] = v;
        f2.data(c, FieldPart(part))[i] = v;
      }
  for (int s = 0; s < 5; ++s) {
    step_h_e(f1, p1, co, bc, {});
    step_h(f2, p2, co, bc);
    step_e(f2, p2, co, bc);
  }
  for (Component c : lattice.components())
    for (int part = 0; part < 2; ++part)
      EXPECT_EQ(std::memcmp(f1.data(c, FieldPart(part)), f2.data(c, FieldPart(part)),
                            size_t(lattice.samples()) * sizeof(double)),
                0)
          << to_string(c);
}

}  // namespace
}  // namespace spire::elec
