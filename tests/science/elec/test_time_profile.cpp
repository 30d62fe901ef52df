// Source time profiles (time_profile.h) against closed forms: the Gaussian's timing (Meep's
// start_time + cutoff * width peak), its vanishing net charge, and its spectrum, which for the
// current d/dt [exp(-t^2/2w^2) exp(-i w0 t) / (-i w0)] is (w / w0) times Meep's fourier_transform;
// the continuous wave's step current exp(-i w t) sin(w dt/2) / (w dt/2) (a central difference of
// the dipole over the step).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/time_profile.h"

namespace spire::elec {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

TEST(GaussianSource, TimingFollowsMeep) {
  const GaussianSource g(0.5, 0.2, 3.0, 4.0);
  EXPECT_DOUBLE_EQ(g.width(), 5.0);
  EXPECT_DOUBLE_EQ(g.peak_time(), 3.0 + 4.0 * 5.0);
  EXPECT_DOUBLE_EQ(g.start_time(), 3.0);
  EXPECT_DOUBLE_EQ(g.end_time(), 43.0);
  EXPECT_EQ(g.dipole(2.9), 0.0);
  EXPECT_EQ(g.dipole(43.1), 0.0);
  // Near the peak the current is ~ exp(-i w (t - t0)) with unit amplitude (Meep's normalisation).
  EXPECT_NEAR(std::abs(g.current(g.peak_time(), 1e-4)), 1.0, 1e-3);
}

TEST(GaussianSource, LeavesNoNetChargeAndHasTheGaussianSpectrum) {
  const double f0 = 0.8, fw = 0.4;
  const GaussianSource g(f0, fw);
  const double dt = 0.01;
  std::complex<double> total = 0;
  std::vector<std::complex<double>> j;
  std::vector<double> t;
  for (double s = g.start_time() - 1; s < g.end_time() + 1; s += dt) {
    t.push_back(s + 0.5 * dt);
    j.push_back(g.current(s + 0.5 * dt, dt));
    total += j.back() * dt;
  }
  EXPECT_LT(std::abs(total), 1e-12);  // the dipole returns to zero: no charge left behind
  for (double f : {f0 - 0.05, f0, f0 + 0.07}) {
    std::complex<double> ft = 0;
    for (size_t n = 0; n < j.size(); ++n) ft += std::polar(1.0, kTwoPi * f * t[n]) * j[n] * dt;
    ft /= std::sqrt(kTwoPi);
    // The step current is a central difference of the dipole: its spectrum carries sinc(w dt / 2).
    const double x = 0.5 * kTwoPi * f * dt;
    const std::complex<double> want = (f / f0) * g.fourier_transform(f) * (std::sin(x) / x);
    EXPECT_LT(std::abs(ft - want), 2e-5 * std::abs(want)) << f;
  }
}

TEST(ContinuousSource, StepCurrentIsTheSampledWave) {
  const double f = 0.3, dt = 0.05, w = kTwoPi * f;
  const ContinuousSource cw(f);
  for (double t : {1.0, 7.3, 20.0}) {
    const std::complex<double> want = std::polar(1.0, -w * t) * std::sin(0.5 * w * dt) / (0.5 * w * dt);
    EXPECT_LT(std::abs(cw.current(t, dt) - want), 1e-12);
  }
  EXPECT_EQ(cw.current(-1.0, dt), 0.0);
  // A smooth turn-on (width 2, slowness 3): off well before ~6 widths, fully on after.
  const ContinuousSource soft(f, 0.0, 100.0, 2.0);
  EXPECT_LT(std::abs(soft.current(1.0, dt)), 1e-2);
  EXPECT_NEAR(std::abs(soft.current(30.0, dt)), std::sin(0.5 * w * dt) / (0.5 * w * dt), 1e-4);
  EXPECT_LT(std::abs(soft.current(99.0, dt)), 1e-2);
  EXPECT_DOUBLE_EQ(soft.end_time(), 100.0);
}

TEST(CustomSource, EvaluatesTheUserCurrentAtTheMidpoint) {
  const CustomSource c([](double t) { return std::complex<double>(t * t, -t); }, 1.0, 5.0, 0.25);
  EXPECT_EQ(c.current(2.0, 0.1), std::complex<double>(4.0, -2.0));
  EXPECT_EQ(c.current(0.5, 0.1), 0.0);
  EXPECT_EQ(c.current(5.5, 0.1), 0.0);
  EXPECT_EQ(c.frequency(), 0.25);
}

TEST(TimeProfile, RejectsBadParameters) {
  EXPECT_THROW(GaussianSource(0, 1), ValueError);
  EXPECT_THROW(GaussianSource(1, -1), ValueError);
  EXPECT_THROW(GaussianSource(1, 1, 0, 0), ValueError);
  EXPECT_THROW(ContinuousSource(1, 5, 2), ValueError);
  EXPECT_THROW(ContinuousSource(1, 0, 10, -1), ValueError);
  EXPECT_THROW(CustomSource(CustomSource::Function{}), ValueError);
}

}  // namespace
}  // namespace spire::elec
