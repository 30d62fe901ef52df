// The discrete electromagnetic energy (simulation.h): conserved in closed lossless cells after the
// sources are off (the Yee scheme conserves W = 1/2 sum E.D + 1/2 sum H^{n-1/2}.B^{n+1/2} exactly,
// so only rounding remains), decaying at the analytic rate in a conductor, and equal to the work
// an analytic source does: a 1D current sheet K(t) radiates 1/2 integral K^2 dt (per unit area;
// each side carries E = H = -K/2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "science/elec/simulation.h"
#include "tests/science/elec/support_cavity.h"

namespace spire::elec {
namespace {

// Relative spread of the energy over `steps` steps after the sources are off.
double energy_drift(Simulation& sim, int steps, int every) {
  sim.run(sim.sources_end_time() + sim.dt());
  const double w0 = sim.energy();
  EXPECT_GT(w0, 0);
  double worst = 0;
  for (int s = 0; s < steps; s += every) {
    sim.run_steps(every);
    worst = std::max(worst, std::abs(sim.energy() - w0) / w0);
  }
  return worst;
}

TEST(SimulationEnergy, ConservedInALosslessPecBox2D) {
  YeeLattice lattice(Dimensions::two_tm, {3.0, 2.6, 0}, 10);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice));
  sim.add_source(point_dipole(Component::Ez, {0.33, -0.21, 0}, std::make_shared<GaussianSource>(1.0, 0.8)));
  EXPECT_LT(energy_drift(sim, 4000, 500), 1e-11);
}

TEST(SimulationEnergy, ConservedInALosslessPecBoxWithADielectric3D) {
  YeeLattice lattice(Dimensions::three, {1.2, 1.0, 1.1}, 10);
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  // A block of eps = 4 (and mu = 2 in part of it): non-uniform coefficient arrays.
  for (Component c : lattice.components())
    for (int64_t i = 0; i < lattice.n(0); ++i)
      for (int64_t j = 0; j < lattice.n(1); ++j)
        for (int64_t k = 0; k < lattice.n(2); ++k) {
          const Vec3 r = lattice.position(c, i, j, k);
          if (std::abs(r.x) < 0.3 && std::abs(r.y) < 0.35)
            m.inverse[size_t(int(c))][size_t(lattice.index(i, j, k))] = is_electric(c) ? 0.25 : (r.z > 0 ? 0.5 : 1.0);
        }
  Simulation sim(lattice, std::move(m));
  sim.add_source(point_dipole(Component::Ey, {0.12, -0.3, 0.05}, std::make_shared<GaussianSource>(1.2, 1.0)));
  sim.add_source(point_dipole(Component::Hz, {-0.2, 0.1, -0.15}, std::make_shared<GaussianSource>(0.9, 1.0)));
  EXPECT_LT(energy_drift(sim, 1000, 250), 1e-11);
}

TEST(SimulationEnergy, ConservedWithPmcWallsAndPeriodicAxes) {
  YeeLattice lattice(Dimensions::three, {1.0, 0.8, 0.9}, 10);
  Boundaries b;
  b.set_pmc(0).set_periodic(1).set_pec(2);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), b);
  sim.add_source(point_dipole(Component::Ex, {0.1, 0.2, -0.1}, std::make_shared<GaussianSource>(1.0, 1.0)));
  EXPECT_LT(energy_drift(sim, 1000, 250), 1e-11);
}

TEST(SimulationEnergy, ConservedInFloat32ToSinglePrecision) {
  YeeLattice lattice(Dimensions::two_te, {3.0, 2.6, 0}, 10);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries(), 0.5, Precision::float32);
  sim.add_source(point_dipole(Component::Ex, {0.33, -0.21, 0}, std::make_shared<GaussianSource>(1.0, 0.8)));
  EXPECT_LT(energy_drift(sim, 2000, 500), 1e-4);
}

TEST(SimulationEnergy, DecaysAtTheConductivityRate) {
  // A cavity mode in a uniform conductor (eps = 1, so the D-conductivity is sigma): the continuum
  // energy decays as exp(-sigma t); the semi-implicit update as ((1 - s dt/2)/(1 + s dt/2))^n per
  // step, i.e. rate sigma (1 + (sigma dt)^2 / 12 + ...).
  YeeLattice lattice(Dimensions::two_tm, {1.0, 0.8, 0}, 20);
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  const double sigma = 0.3;
  m.conductivity[size_t(int(Component::Ez))].assign(size_t(lattice.samples()), sigma);
  Simulation sim(lattice, std::move(m));
  const testing::CavityMode mode = testing::cavity_mode(sim, {1, 1, 0});
  testing::set_cavity_mode(sim, mode);
  // Fit log W against t over many periods (the energy of a damped mode carries a small ripple at
  // twice the frequency; a least-squares slope averages it out).
  double st = 0, sw = 0, stt = 0, stw = 0;
  int n = 0;
  for (int s = 0; s < 1200; ++s) {
    const double t = sim.time(), w = std::log(sim.energy());
    st += t;
    sw += w;
    stt += t * t;
    stw += t * w;
    ++n;
    sim.step();
  }
  const double slope = (n * stw - st * sw) / (n * stt - st * st);
  EXPECT_NEAR(-slope, sigma, 2e-3 * sigma);
}

TEST(SimulationEnergy, CurrentSheetRadiatesHalfTheIntegralOfKSquared) {
  // A 1D sheet (a point source in 1D is a sheet: J = K delta(z)) in a PEC box long enough that the
  // radiation has not come back while the source is on.
  const double length = 60.0;
  YeeLattice lattice(Dimensions::one, {0, 0, length}, 20);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice));
  auto pulse = std::make_shared<GaussianSource>(0.5, 0.5);
  const double amplitude = 0.7;
  sim.add_source(point_dipole(Component::Ex, {0, 0, 0.0}, pulse, amplitude));
  // 1/2 integral K^2 dt with K the real current the steps inject (midpoint rule, fine steps).
  double work = 0;
  const double h = sim.dt() / 20;
  for (double t = pulse->start_time(); t < pulse->end_time(); t += h) {
    const double k = amplitude * pulse->current(t + 0.5 * h, h).real();
    work += 0.5 * k * k * h;
  }
  ASSERT_LT(pulse->end_time(), 0.5 * length);
  sim.run(pulse->end_time() + sim.dt());
  EXPECT_NEAR(sim.energy(), work, 2e-3 * work);
}

TEST(SimulationEnergy, OffLatticeDipoleInjectsTheRightEnergyToSecondOrder) {
  // Linear interpolation keeps the dipole moment whole and centred where the dipole is; spreading
  // it over neighbouring samples filters its spectrum by a form factor 1 - O((k dx)^2), so the
  // work the same pulse does off the lattice approaches the work at a sample at second order. The
  // box is large enough that nothing returns while the source is on.
  auto injected = [](double resolution, Vec3 where) {
    YeeLattice lattice(Dimensions::two_tm, {13.0, 13.0, 0}, resolution);
    Simulation sim(lattice, MaterialArrays::vacuum(lattice));
    auto pulse = std::make_shared<GaussianSource>(0.5, 0.5, 0, 3.0);
    sim.add_source(point_dipole(Component::Ez, where, pulse));
    sim.run(pulse->end_time() + sim.dt());
    return sim.energy();
  };
  double deficit[2];
  for (int r = 0; r < 2; ++r) {
    const double res = 6.0 * (1 << r), dx = 1 / res;
    const double on = injected(res, {0, 0, 0});
    const double off = injected(res, {0.37 * dx, -0.61 * dx, 0});  // the same fractional offsets
    deficit[r] = (on - off) / on;
  }
  EXPECT_GT(deficit[0], 0);
  std::printf("off-lattice dipole energy deficit: %.4f at 12 cells per wavelength, %.4f at 24\n", deficit[0], deficit[1]);
  EXPECT_LT(deficit[0], 0.08);  // 12 cells per wavelength at the centre frequency
  EXPECT_NEAR(std::log2(deficit[0] / deficit[1]), 2.0, 0.3);
}

}  // namespace
}  // namespace spire::elec
