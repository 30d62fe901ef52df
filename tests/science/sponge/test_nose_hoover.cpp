// Nose-Hoover chains with MTK's Suzuki-Yoshida propagator (nose_hoover.h): the canonical kinetic
// energy of an LJ fluid, the conserved quantity H' for every Suzuki-Yoshida order, the weights'
// defining sums, and a restart from save_state() that continues bit for bit.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "science/sponge/nose_hoover.h"
#include "science/sponge/velocity_verlet.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge {
namespace {

using testing::LjFluid;

TEST(NoseHoover, SamplesTheCanonicalKineticEnergy) {
  auto chain = std::make_shared<NoseHooverChain>(1.0, 0.2);
  const auto k = testing::thermostatted_kinetic_series(chain, "nose-hoover");
  testing::expect_canonical(k, 189, 1.0, "nose-hoover chain M=3 LJ64 T=1 tau=0.2");
  // Masses as LAMMPS's fix nvt: Q_1 = N_dof k_B T tau^2, Q_j = k_B T tau^2.
  EXPECT_DOUBLE_EQ(chain->masses()[0], 189 * 0.04);
  EXPECT_DOUBLE_EQ(chain->masses()[2], 0.04);
}

// The RMS of H'(t) - H'(0) over 1.6 time units from the lattice at T = 1 with the chain at
// T0 = 2, so the thermostat does a lot of work; `chain_term` gets the chain's term at the end.
double largest_error(int order, double dt, double* chain_term) {
  LjFluid f;
  NoseHooverOptions options;
  options.suzuki_yoshida = order;
  options.multiple_steps = order == 7 ? 2 : 1;
  options.chain_length = order == 1 ? 1 : 4;
  auto chain = std::make_shared<NoseHooverChain>(2.0, 0.1, options);
  VelocityVerlet vv(dt, chain);
  vv.prepare(f.system, f.state, f.forces);
  const double h0 = vv.conserved_energy(f.system, f.state, f.forces);
  double sum = 0;
  const int steps = int(std::lround(1.6 / dt));
  for (int n = 0; n < steps; ++n) {
    vv.step(f.system, f.state, f.forces);
    const double e = vv.conserved_energy(f.system, f.state, f.forces) - h0;
    sum += e * e;
  }
  *chain_term = chain->conserved_energy();
  return std::sqrt(sum / steps);
}

// H' = K + U + chain energy is conserved up to an error that falls as dt^2, for every order of
// the composition: the splitting is second order and the conserved quantity is the right one (a
// wrong one would leave an error that does not shrink with dt).
TEST(NoseHoover, ConservedQuantityErrorScalesAsDtSquaredForEveryOrder) {
  for (int order : {1, 3, 5, 7}) {
    double chain_coarse, chain_fine;
    const double coarse = largest_error(order, 0.004, &chain_coarse), fine = largest_error(order, 0.002, &chain_fine);
    std::printf("figure: nose-hoover order %d: chain term %.2f, rms H' - H'_0 dt=0.004 %.3e, 0.002 %.3e, "
                "ratio %.2f (dt^2: 4)\n",
                order, chain_fine, coarse, fine, coarse / fine);
    // The chain has put over 60 energy units in (its term is minus that).
    EXPECT_LT(chain_fine, -60.0) << order;
    EXPECT_GT(coarse / fine, 3.5) << "order " << order;
    EXPECT_LT(coarse / fine, 4.5) << "order " << order;
    EXPECT_LT(fine, 1e-3 * std::abs(chain_fine)) << "order " << order;
  }
}

TEST(NoseHoover, RestartsBitForBit) {
  LjFluid a;
  VelocityVerlet full(0.005, std::make_shared<NoseHooverChain>(1.3, 0.2));
  for (int n = 0; n < 60; ++n) full.step(a.system, a.state, a.forces);

  LjFluid b;
  VelocityVerlet first(0.005, std::make_shared<NoseHooverChain>(1.3, 0.2));
  for (int n = 0; n < 25; ++n) first.step(b.system, b.state, b.forces);
  const IntegratorState saved = first.save_state();
  ASSERT_EQ(saved.at("thermostat.nose_hoover.xi").size(), 3u);
  LjFluid c;
  c.state = b.state;
  VelocityVerlet second(0.005, std::make_shared<NoseHooverChain>(1.3, 0.2));
  second.load_state(saved);
  for (int n = 0; n < 35; ++n) second.step(c.system, c.state, c.forces);
  EXPECT_TRUE(testing::same_bits(a.state.positions, c.state.positions));
  EXPECT_TRUE(testing::same_bits(a.state.velocities, c.state.velocities));
  EXPECT_EQ(full.conserved_energy(a.system, a.state, a.forces), second.conserved_energy(c.system, c.state, c.forces));
}

TEST(NoseHoover, RejectsBadOptions) {
  NoseHooverOptions o;
  o.suzuki_yoshida = 4;
  try {
    NoseHooverChain(1.0, 0.1, o);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("1, 3, 5 or 7"), std::string::npos) << e.what();
  }
  o = {};
  o.chain_length = 0;
  EXPECT_THROW(NoseHooverChain(1.0, 0.1, o), ValueError);
  EXPECT_THROW(NoseHooverChain(1.0, 0.0), ValueError);
  NoseHooverChain t(1.0, 0.1);
  EXPECT_THROW(t.load_state({{"thermostat.nose_hoover.xi", {0, 0}}, {"thermostat.nose_hoover.v_xi", {0, 0, 0}}}),
               ValueError);
}

}  // namespace
}  // namespace spire::sponge
