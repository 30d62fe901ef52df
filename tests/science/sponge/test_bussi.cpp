// Bussi's stochastic velocity rescaling (bussi.h): the canonical kinetic-energy distribution of an
// LJ fluid, its conserved quantity, the chi-squared draws of both methods against their moments,
// and a restart from save_state() that continues bit for bit.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "science/sponge/bussi.h"
#include "science/sponge/velocity_verlet.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge {
namespace {

using testing::LjFluid;

TEST(Bussi, SamplesTheCanonicalKineticEnergy) {
  const auto k = testing::thermostatted_kinetic_series(std::make_shared<BussiThermostat>(1.0, 0.1, 7), "bussi");
  testing::expect_canonical(k, 189, 1.0, "bussi LJ64 T=1 tau=0.1");
}

TEST(Bussi, ChiSquaredDrawsHaveTheRightMoments) {
  BussiThermostat t(1.0, 1.0, 3);
  for (int64_t n : {5, 63, 64, 500}) {
    const int draws = 20000;
    double s = 0, s2 = 0;
    for (int c = 0; c < draws; ++c) {
      const double x = t.sum_of_squared_normals(n, uint64_t(c));
      s += x;
      s2 += x * x;
    }
    const double mean = s / draws, var = s2 / draws - mean * mean;
    // Standard errors: sqrt(2n / draws) for the mean, about var sqrt(2 / draws) (1 + ...) for the variance.
    EXPECT_NEAR(mean, double(n), 4 * std::sqrt(2.0 * double(n) / draws)) << n;
    EXPECT_NEAR(var, 2.0 * double(n), 4 * 2.0 * double(n) * std::sqrt((2.0 + 12.0 / double(n)) / draws)) << n;
  }
}

TEST(Bussi, RestartsBitForBit) {
  LjFluid a;
  VelocityVerlet full(0.005, std::make_shared<BussiThermostat>(1.0, 0.1, 9));
  for (int n = 0; n < 60; ++n) full.step(a.system, a.state, a.forces);

  LjFluid b;
  VelocityVerlet first(0.005, std::make_shared<BussiThermostat>(1.0, 0.1, 9));
  for (int n = 0; n < 30; ++n) first.step(b.system, b.state, b.forces);
  const IntegratorState saved = first.save_state();
  LjFluid c;
  c.state = b.state;
  VelocityVerlet second(0.005, std::make_shared<BussiThermostat>(1.0, 0.1, 9));
  second.load_state(saved);
  for (int n = 0; n < 30; ++n) second.step(c.system, c.state, c.forces);
  EXPECT_TRUE(testing::same_bits(a.state.positions, c.state.positions));
  EXPECT_TRUE(testing::same_bits(a.state.velocities, c.state.velocities));
  EXPECT_EQ(full.conserved_energy(a.system, a.state, a.forces), second.conserved_energy(c.system, c.state, c.forces));
  EXPECT_EQ(c.state.step, 60);
}

TEST(Bussi, RejectsBadParameters) {
  EXPECT_THROW(BussiThermostat(0.0, 0.1, 1), ValueError);
  EXPECT_THROW(BussiThermostat(1.0, -0.1, 1), ValueError);
  BussiThermostat t(1.0, 0.1, 1);
  EXPECT_THROW(t.scale(1.0, 0.01, 0, 0), ValueError);  // before setup()
  EXPECT_THROW(t.load_state({{"thermostat.nose_hoover.xi", {0}}}), ValueError);
}

}  // namespace
}  // namespace spire::sponge
