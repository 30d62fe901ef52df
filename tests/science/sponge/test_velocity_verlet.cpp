// Velocity Verlet (velocity_verlet.h): the exact discrete solution of a harmonic oscillator and its
// conserved modified energy; NVE energy conservation of an LJ fluid with fluctuations that scale as
// dt^2; momentum conservation and centre-of-mass removal; fixed particles; input errors.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/velocity_verlet.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge {
namespace {

using testing::LjFluid;
using testing::Springs;

// A particle on a spring (r0 = 0) to a fixed particle (mass 0) at the origin. Velocity Verlet's
// map is linear: x_n = x0 cos(n theta) with cos(theta) = 1 - (omega dt)^2 / 2, and it conserves
// v^2 / 2 + omega^2 x^2 (1 - (omega dt / 2)^2) / 2 exactly (Hairer, Lubich and Wanner, ch. I.5).
TEST(VelocityVerlet, HarmonicOscillatorFollowsItsDiscreteSolution) {
  System system;
  system.units = Units::lj();
  system.add_particle(0, 0, "anchor");
  system.add_particle(2.0, 0, "A");
  const double k = 8.0, m = 2.0, x0 = 0.7, dt = 0.1;
  const double omega = std::sqrt(k / m);
  State state;
  state.positions = {{0, 0, 0}, {x0, 0, 0}};
  state.velocities = {{0, 0, 0}, {0, 0, 0}};
  ForceField ff = testing::force_field_of({std::make_shared<Springs>(std::vector<Springs::Spring>{{0, 1, 0.0, k}})});
  VelocityVerlet vv(dt, nullptr, testing::keep_com_motion());
  vv.prepare(system, state, ff);
  EXPECT_EQ(vv.degrees_of_freedom(), 3);
  const double theta = std::acos(1 - 0.5 * omega * omega * dt * dt);
  const double shrink = 1 - 0.25 * omega * omega * dt * dt;
  auto modified_energy = [&] {
    const double x = state.positions[1].x, v = state.velocities[1].x;
    return 0.5 * v * v + 0.5 * omega * omega * x * x * shrink;
  };
  const double h0 = modified_energy();
  for (int n = 1; n <= 200; ++n) {
    vv.step(system, state, ff);
    ASSERT_NEAR(state.positions[1].x, x0 * std::cos(n * theta), 1e-12) << "step " << n;
    ASSERT_NEAR(modified_energy(), h0, 1e-13 * h0) << "step " << n;
    ASSERT_EQ(state.positions[0], (Vec3{0, 0, 0}));  // the fixed particle never moves
  }
  EXPECT_EQ(state.step, 200);
  EXPECT_NEAR(state.time, 200 * dt, 1e-12);
}

// The conserved quantity along `steps` steps of size dt from `start`.
std::vector<double> energies(const LjFluid& start, double dt, int steps) {
  LjFluid f = start;
  VelocityVerlet vv(dt);
  vv.prepare(f.system, f.state, f.forces);
  std::vector<double> e{vv.conserved_energy(f.system, f.state, f.forces)};
  for (int n = 0; n < steps; ++n) {
    vv.step(f.system, f.state, f.forces);
    e.push_back(vv.conserved_energy(f.system, f.state, f.forces));
  }
  return e;
}

// RMS of E(t) - E(0) over one time unit. Over so short a time the trajectories at dt and dt / 2
// stay close, so the ratio measures the dt^2 law of the shadow Hamiltonian without the
// statistical noise that comparing two diverged chaotic trajectories would add.
double energy_error(const LjFluid& start, double dt) {
  const std::vector<double> e = energies(start, dt, int(std::lround(1.0 / dt)));
  double s = 0;
  for (double v : e) s += (v - e[0]) * (v - e[0]);
  return std::sqrt(s / double(e.size()));
}

LjFluid melted() {
  LjFluid melt;
  VelocityVerlet vv(0.004);
  vv.prepare(melt.system, melt.state, melt.forces);
  for (int n = 0; n < 300; ++n) vv.step(melt.system, melt.state, melt.forces);
  return melt;
}

TEST(VelocityVerlet, EnergyErrorScalesAsDtSquared) {
  const LjFluid melt = melted();
  const double e4 = energy_error(melt, 0.004), e2 = energy_error(melt, 0.002), e1 = energy_error(melt, 0.001);
  std::printf("figure: NVE LJ64 rms energy error over 1 tau: dt=0.004 %.3e, 0.002 %.3e, 0.001 %.3e; ratios %.3f "
              "%.3f (dt^2: 4)\n",
              e4, e2, e1, e4 / e2, e2 / e1);
  EXPECT_NEAR(e4 / e2, 4.0, 0.1);
  EXPECT_NEAR(e2 / e1, 4.0, 0.1);
}

// The criterion is a relative drift below 1e-4 over 1e4 steps; here 2500 steps (10 tau)
// must stay below 1e-4 as well, the drift being the least-squares slope times the duration, which
// the energy's fluctuations (~1e-4 relative at this dt) barely disturb.
TEST(VelocityVerlet, EnergyDoesNotDrift) {
  const std::vector<double> e = energies(melted(), 0.004, 2500);
  const double n = double(e.size()), t_mean = 0.5 * (n - 1);
  double e_mean = 0;
  for (double v : e) e_mean += v / n;
  double num = 0, den = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    num += (double(i) - t_mean) * (e[i] - e_mean);
    den += (double(i) - t_mean) * (double(i) - t_mean);
  }
  const double drift = std::abs(num / den * (n - 1)) / std::abs(e_mean);
  std::printf("figure: NVE LJ64 dt=0.004 relative drift over 2500 steps %.2e (fit)\n", drift);
  EXPECT_LT(drift, 1e-4);
}

TEST(VelocityVerlet, ConservesMomentumAndRemovesCentreOfMassMotion) {
  LjFluid f;
  // A net drift of the whole fluid: kept by plain NVE, removed by remove_com_motion.
  for (Vec3& v : f.state.velocities) v += Vec3{0.3, -0.2, 0.1};
  auto momentum = [](const State& s) {
    Vec3 p;
    for (const Vec3& v : s.velocities) p += v;
    return p;
  };
  {
    LjFluid g = f;
    VelocityVerlet vv(0.004, nullptr, testing::keep_com_motion());
    const Vec3 p0 = momentum(g.state);
    for (int n = 0; n < 100; ++n) vv.step(g.system, g.state, g.forces);
    const Vec3 p1 = momentum(g.state);
    EXPECT_NEAR(p1.x, p0.x, 1e-11);
    EXPECT_NEAR(p1.y, p0.y, 1e-11);
    EXPECT_NEAR(p1.z, p0.z, 1e-11);
    EXPECT_EQ(vv.degrees_of_freedom(), 192);
  }
  VelocityVerlet vv(0.004);
  vv.step(f.system, f.state, f.forces);
  EXPECT_EQ(vv.degrees_of_freedom(), 189);
  EXPECT_LT(norm(momentum(f.state)), 1e-12);
  // The removed kinetic energy (64 / 2 * 0.14) is counted as heat, so the conserved quantity holds.
  EXPECT_NEAR(vv.heat(), -0.5 * 64 * 0.14, 1e-9);
}

TEST(VelocityVerlet, RejectsBadInput) {
  EXPECT_THROW(VelocityVerlet(0.0), ValueError);
  EXPECT_THROW(VelocityVerlet(-1e-3), ValueError);
  try {
    VelocityVerlet(std::nan(""));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("time step"), std::string::npos) << e.what();
  }
  LjFluid f;
  f.state.positions.pop_back();
  VelocityVerlet vv(0.004);
  try {
    vv.prepare(f.system, f.state, f.forces);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("63 positions"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::sponge
