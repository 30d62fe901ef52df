// BAOAB Langevin dynamics (langevin.h): the canonical kinetic energy of an LJ fluid; free
// particles of two masses as an exact Ornstein-Uhlenbeck process (equipartition and the velocity
// correlation exp(-gamma dt)); BAOAB's exact configurational variance for harmonic oscillators
// even at omega dt = 1, with the whole-step velocities' known deficit and the middle velocities'
// exact variance; the conserved quantity with the heat; restart bit for bit.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "science/sponge/langevin.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge {
namespace {

using testing::LjFluid;

// The middle velocities (after the O step) carry the canonical kinetic energy; the whole-step
// ones are low by O(dt^2) (see HarmonicConfigurationsAreExactAtLargeSteps), 0.2% here.
TEST(Langevin, SamplesTheCanonicalKineticEnergy) {
  LjFluid f;
  LangevinMiddle langevin(0.005, 1.0, 10.0, 5);
  testing::kinetic_series(langevin, f, 300, 0);
  std::vector<double> k;
  for (int s = 0; s < 8000; ++s) {
    langevin.step(f.system, f.state, f.forces);
    k.push_back(langevin.middle_kinetic_energy());
  }
  testing::expect_canonical(k, 189, 1.0, "langevin gamma=10 LJ64 T=1 (middle velocities)");
  testing::expect_conserved(langevin, f, 1000, "langevin");
}

// Without forces every step is an exact Ornstein-Uhlenbeck update v' = a v + sqrt((1 - a^2) kT/m) R.
TEST(Langevin, FreeParticlesAreAnExactOrnsteinUhlenbeckProcess) {
  const int n = 200;
  System system;
  system.units = Units::lj();
  for (int i = 0; i < n; ++i) system.add_particle(i % 2 ? 4.0 : 1.0, 0, i % 2 ? "heavy" : "light");
  State state;
  state.positions.assign(n, Vec3{});
  state.velocities.assign(n, Vec3{});
  ForceField ff(0.0);
  const double dt = 0.01, gamma = 5.0, kT = 1.5;
  LangevinMiddle langevin(dt, kT, gamma, 17, testing::keep_com_motion());
  langevin.prepare(system, state, ff);
  for (int s = 0; s < 200; ++s) langevin.step(system, state, ff);  // 10 relaxation times
  double ke[2] = {0, 0}, corr = 0, var = 0;
  const int steps = 1000;
  for (int s = 0; s < steps; ++s) {
    const std::vector<Vec3> before = state.velocities;
    langevin.step(system, state, ff);
    for (int i = 0; i < n; ++i) {
      ke[i % 2] += 0.5 * system.mass[size_t(i)] * norm2(state.velocities[size_t(i)]);
      corr += dot(before[size_t(i)], state.velocities[size_t(i)]);
      var += norm2(before[size_t(i)]);
    }
  }
  // Per particle and axis: <m v^2 / 2> = kT / 2; 100 particles x 3 axes x ~40 independent samples
  // each (correlation time 1 / (2 gamma) = 10 steps): relative error ~1/sqrt(6000) per mean.
  for (int c = 0; c < 2; ++c) {
    const double per_dof = ke[c] / (steps * (n / 2) * 3);
    EXPECT_NEAR(per_dof, 0.5 * kT, 4 * 0.5 * kT * std::sqrt(2.0 / 6000)) << (c ? "heavy" : "light");
  }
  EXPECT_NEAR(corr / var, std::exp(-gamma * dt), 0.01);
}

// BAOAB samples the configurational distribution of a harmonic oscillator exactly at any stable
// step (Leimkuhler and Matthews 2013): <x^2> = kT / k even at omega dt = 1, where a scheme with
// the noise at the ends (OBABO) has Verlet's <x^2> = kT / (k (1 - (omega dt / 2)^2)), 4/3 too large.
TEST(Langevin, HarmonicConfigurationsAreExactAtLargeSteps) {
  const int n = 300;
  const double k = 4.0, m = 1.0, kT = 0.7, dt = 0.5;  // omega = 2, omega dt = 1
  System system = testing::particles(n, m);
  State state;
  state.positions.assign(n, Vec3{});
  state.velocities.assign(n, Vec3{});
  ForceField ff = testing::force_field_of({std::make_shared<testing::Tethers>(std::vector<Vec3>(n), k)});
  LangevinMiddle langevin(dt, kT, 1.0, 23, testing::keep_com_motion());
  langevin.prepare(system, state, ff);
  for (int s = 0; s < 50; ++s) langevin.step(system, state, ff);
  double x2 = 0, v2 = 0, middle = 0;
  const int steps = 400;
  for (int s = 0; s < steps; ++s) {
    langevin.step(system, state, ff);
    for (const Vec3& r : state.positions) x2 += norm2(r);
    for (const Vec3& v : state.velocities) v2 += m * norm2(v);
    middle += 2 * langevin.middle_kinetic_energy();
  }
  const double samples = double(steps) * n * 3;
  // ~900 x 400 / (correlation ~4 steps) samples: relative error ~ sqrt(2 / 9e4) = 0.5%.
  std::printf("figure: BAOAB harmonic omega dt = 1: <x^2> k / kT = %.4f (exact: 1), whole-step <m v^2> / kT = %.4f "
              "(1 - (omega dt / 2)^2 = 0.75), middle <m v^2> / kT = %.4f (exact: 1)\n",
              x2 / samples * k / kT, v2 / samples / kT, middle / samples / kT);
  EXPECT_NEAR(x2 / samples * k / kT, 1.0, 0.025);
  // The whole-step velocities are low by exactly the factor 1 - (omega dt / 2)^2; the middle
  // ones (after O, OpenMM's) are Maxwell-Boltzmann.
  EXPECT_NEAR(v2 / samples / kT, 0.75, 0.02);
  EXPECT_NEAR(middle / samples / kT, 1.0, 0.025);
}

TEST(Langevin, RestartsBitForBit) {
  LjFluid a;
  LangevinMiddle full(0.005, 1.0, 1.0, 99);
  for (int n = 0; n < 50; ++n) full.step(a.system, a.state, a.forces);

  LjFluid b;
  LangevinMiddle first(0.005, 1.0, 1.0, 99);
  for (int n = 0; n < 20; ++n) first.step(b.system, b.state, b.forces);
  LjFluid c;
  c.state = b.state;
  LangevinMiddle second(0.005, 1.0, 1.0, 99);
  second.load_state(first.save_state());
  for (int n = 0; n < 30; ++n) second.step(c.system, c.state, c.forces);
  EXPECT_TRUE(testing::same_bits(a.state.positions, c.state.positions));
  EXPECT_TRUE(testing::same_bits(a.state.velocities, c.state.velocities));
  EXPECT_EQ(full.heat(), second.heat());

  // Another seed: another trajectory.
  LjFluid d;
  LangevinMiddle other(0.005, 1.0, 1.0, 100);
  for (int n = 0; n < 50; ++n) other.step(d.system, d.state, d.forces);
  EXPECT_FALSE(testing::same_bits(a.state.positions, d.state.positions));
}

TEST(Langevin, RejectsBadParameters) {
  EXPECT_THROW(LangevinMiddle(0.005, -1.0, 1.0, 1), ValueError);
  EXPECT_THROW(LangevinMiddle(0.005, 1.0, -1.0, 1), ValueError);
  EXPECT_THROW(LangevinMiddle(0.0, 1.0, 1.0, 1), ValueError);
}

}  // namespace
}  // namespace spire::sponge
