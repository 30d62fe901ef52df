// End to end: a PEC cavity built from a Problem, excited by a Gaussian dipole, rings down; harmonic
// inversion at a point (Monitors' Harminv) must return the exact discrete eigenfrequencies of the
// Yee scheme (analytic.h's yee_omega with k_a = m_a pi / L_a) to 1e-6 relative. The check is
// independent of the solver: the frequencies come from the closed-form discrete dispersion relation.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/analytic.h"
#include "science/elec/monitors.h"
#include "science/elec/problem.h"

namespace spire::elec {
namespace {

constexpr double kPi = std::numbers::pi;

// The exact discrete frequency (c/a) of cavity mode m in a box of size L on the lattice of sim.
double discrete_frequency(const Simulation& sim, std::array<int, 3> m) {
  Vec3 k;
  for (int a = 0; a < 3; ++a)
    if (sim.lattice().has_axis(a)) k[a] = m[size_t(a)] * kPi / sim.lattice().size()[a];
  return yee_omega(k, sim.lattice().dx(), sim.dt()) / (2 * kPi);
}

// The mode of `modes` nearest f, and the relative error.
double relative_error(const std::vector<HarmonicMode>& modes, double f) {
  double best = INFINITY;
  for (const HarmonicMode& m : modes) best = std::min(best, std::abs(m.frequency - f) / f);
  return best;
}

TEST(PhysicsCavity, TwoDimensionalTmRingDownGivesTheDiscreteFrequencies) {
  // 1 x 0.8 at 20 cells per a: modes (1,1) at 0.800 and (2,1) at 1.179 (continuum) in the band
  // 0.5..1.3; (1,2) at 1.35 lies outside it.
  Problem p;
  p.dimensions = Dimensions::two_tm;
  p.cell_size = {1.0, 0.8, 0};
  p.resolution = 20;
  auto pulse = std::make_shared<GaussianSource>(0.9, 1.0);
  p.sources.push_back(point_dipole(Component::Ez, Vec3{-0.13, 0.17, 0}, pulse));
  Simulation sim = build(p);
  Monitors monitors(sim);
  HarmonicPoint& h = monitors.add_harmonic_inversion(Component::Ez, Vec3{0.21, -0.07, 0}, 0.9, 0.8);
  sim.run(pulse->end_time() + 150);
  const auto modes = h.modes();
  ASSERT_EQ(modes.size(), 2u);
  const double f11 = discrete_frequency(sim, {1, 1, 0}), f21 = discrete_frequency(sim, {2, 1, 0});
  EXPECT_LT(relative_error(modes, f11), 1e-6) << "f11 " << f11 << " found " << modes[0].frequency;
  EXPECT_LT(relative_error(modes, f21), 1e-6) << "f21 " << f21 << " found " << modes[1].frequency;
  // Lossless: the modes do not decay (Q far above Meep's threshold of 50).
  for (const HarmonicMode& m : modes) EXPECT_GT(m.q, 1e6);
  // The grid dispersion is visible at this resolution and the discrete value is below the continuum.
  EXPECT_LT(f11, 0.5 * std::sqrt(1 + 1 / 0.64));
  // (7e-4 relative here: 700 times the tolerance, so the test tells the two apart.)
  EXPECT_GT(std::abs(f11 - 0.5 * std::sqrt(1 + 1 / 0.64)) / f11, 5e-4);
}

TEST(PhysicsCavity, ThreeDimensionalRingDownGivesTheDiscreteFrequency) {
  // 1 x 0.8 x 0.6 at 10 cells per a (480 cells): the Ez dipole excites mode (1,1,0) at 0.800
  // (continuum) alone in the band 0.6..1.0; the next, (1,1,1), is at 1.16.
  Problem p;
  p.dimensions = Dimensions::three;
  p.cell_size = {1.0, 0.8, 0.6};
  p.resolution = 10;
  auto pulse = std::make_shared<GaussianSource>(0.8, 0.6);
  p.sources.push_back(point_dipole(Component::Ez, Vec3{-0.13, 0.17, 0.05}, pulse));
  Simulation sim = build(p);
  Monitors monitors(sim);
  HarmonicPoint& h = monitors.add_harmonic_inversion(Component::Ez, Vec3{0.21, -0.07, -0.11}, 0.8, 0.4);
  sim.run(pulse->end_time() + 100);
  const auto modes = h.modes();
  ASSERT_EQ(modes.size(), 1u);
  const double f110 = discrete_frequency(sim, {1, 1, 0});
  EXPECT_LT(relative_error(modes, f110), 1e-6) << "f110 " << f110 << " found " << modes[0].frequency;
}

TEST(PhysicsCavity, HarmonicInversionNeedsSamplesAfterTheSources) {
  Problem p;
  p.dimensions = Dimensions::two_tm;
  p.cell_size = {1.0, 1.0, 0};
  p.resolution = 10;
  auto pulse = std::make_shared<GaussianSource>(0.9, 1.0);
  p.sources.push_back(point_dipole(Component::Ez, Vec3{0.1, 0.1, 0}, pulse));
  Simulation sim = build(p);
  Monitors monitors(sim);
  HarmonicPoint& h = monitors.add_harmonic_inversion(Component::Ez, Vec3{0.2, 0.1, 0}, 0.9, 0.8);
  sim.run(pulse->end_time() - 1);  // the sources are still on: nothing recorded
  EXPECT_EQ(h.series().times().size(), 0u);
  EXPECT_THROW(h.modes(), ValueError);
  EXPECT_THROW(monitors.add_harmonic_inversion(Component::Ez, Vec3{}, 0.5, 2.0), ValueError);
}

}  // namespace
}  // namespace spire::elec
