// Harmonic inversion against synthetic signals whose modes are known exactly: sums of one to three
// decaying sinusoids, complex and real, noiseless (frequencies, Q and amplitudes to 1e-8 relative;
// two modes closer than the Fourier resolution of the window; Q = 10^4 from five periods) and with
// white noise; a long signal that goes through the mixing, filtering and decimation stage with
// strong modes outside the band.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "engine/core/error.h"
#include "science/elec/harmonic_inversion.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

struct Mode {
  double f, q;
  cd a;  // amplitude of exp(-i 2 pi f_complex t)
  cd complex_frequency() const { return cd(f, -f / (2 * q)); }
};

std::vector<cd> complex_signal(const std::vector<Mode>& modes, double dt, int n) {
  std::vector<cd> x(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    for (const Mode& m : modes) x[size_t(i)] += m.a * std::exp(cd(0, -2 * kPi) * m.complex_frequency() * (i * dt));
  return x;
}

// A cos(2 pi f t + phi) e^{-pi f t / Q}: the modes (A/2) e^{-i phi} at +f and its conjugate at -f.
std::vector<double> real_signal(const std::vector<Mode>& modes, double dt, int n) {
  std::vector<double> x(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    for (const Mode& m : modes) {
      const double t = i * dt;
      x[size_t(i)] += 2 * std::abs(m.a) * std::cos(2 * kPi * m.f * t - std::arg(m.a)) * std::exp(-kPi * m.f * t / m.q);
    }
  return x;
}

void expect_modes(const std::vector<HarmonicMode>& got, const std::vector<Mode>& want, double tol_f, double tol_q,
                  double tol_a) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_NEAR(got[k].frequency / want[k].f, 1.0, tol_f) << k;
    EXPECT_NEAR(got[k].q / want[k].q, 1.0, tol_q) << k;
    EXPECT_NEAR(got[k].decay, -want[k].f / (2 * want[k].q), tol_q * want[k].f / (2 * want[k].q)) << k;
    EXPECT_LT(std::abs(got[k].amplitude - want[k].a), tol_a * std::abs(want[k].a)) << k;
  }
}

TEST(HarmonicInversion, OneComplexModeNoiseless) {
  const std::vector<Mode> modes = {{0.3, 200, std::polar(1.3, 0.4)}};
  const auto x = complex_signal(modes, 0.1, 300);
  const auto got = harmonic_inversion(std::span<const cd>(x), 0.1, 0.1, 0.5);
  expect_modes(got, modes, 1e-10, 1e-8, 1e-8);
  EXPECT_LT(got[0].error, 1e-8);
}

TEST(HarmonicInversion, ThreeRealModesNoiseless) {
  const std::vector<Mode> modes = {{0.21, 80, std::polar(1.0, 0.3)}, {0.25, 300, std::polar(0.4, -1.2)},
                                   {0.34, 1000, std::polar(0.7, 2.5)}};
  const auto x = real_signal(modes, 0.2, 500);
  expect_modes(harmonic_inversion(std::span<const double>(x), 0.2, 0.15, 0.4), modes, 1e-10, 1e-8, 1e-8);
}

// 0.300 and 0.302 within a window of 100 time units: five times closer than the Fourier resolution.
TEST(HarmonicInversion, ResolvesModesCloserThanTheFourierResolution) {
  const std::vector<Mode> modes = {{0.300, 500, std::polar(1.0, 0.0)}, {0.302, 700, std::polar(0.8, 1.0)}};
  const auto x = real_signal(modes, 0.25, 400);
  expect_modes(harmonic_inversion(std::span<const double>(x), 0.25, 0.2, 0.4), modes, 1e-10, 1e-8, 1e-8);
}

// Q = 10^4 from five periods: the signal decays by 0.2% over the window, yet the pencil's poles
// carry it exactly.
TEST(HarmonicInversion, HighQFromAFewPeriods) {
  const std::vector<Mode> modes = {{1.0, 1e4, std::polar(1.0, 0.7)}};
  const auto x = real_signal(modes, 0.05, 100);
  const auto got = harmonic_inversion(std::span<const double>(x), 0.05, 0.5, 1.5);
  expect_modes(got, modes, 1e-12, 1e-8, 1e-8);
}

TEST(HarmonicInversion, NoisySignal) {
  const std::vector<Mode> modes = {{0.2, 100, std::polar(1.0, 0.2)}, {0.31, 500, std::polar(0.5, -0.9)}};
  auto x = real_signal(modes, 0.1, 1500);
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0.0, 1e-3);
  for (double& v : x) v += noise(rng);
  // With Meep's default screening, two weak noise modes (|a| ~ 1e-4, Q ~ 100) pass as well; their
  // error estimates (2e-3 and 5e-3) are far above the real modes' (~6e-7), so a tighter max_error
  // leaves exactly the two.
  HarmonicInversionOptions options;
  options.max_error = 1e-4;
  const auto got = harmonic_inversion(std::span<const double>(x), 0.1, 0.1, 0.4, options);
  expect_modes(got, modes, 1e-5, 0.02, 0.01);
  for (const HarmonicMode& m : got) EXPECT_LT(m.error, 1e-5);
  EXPECT_GT(harmonic_inversion(std::span<const double>(x), 0.1, 0.1, 0.4).size(), 2u);
}

// 20000 samples at dt = 0.05 for a band [0.9, 1.1]: mixed, filtered and decimated (by 25), with strong
// modes at 0.5, 2.0 and 3.7 outside the band (their aliases fall outside it too). The in-band poles
// and amplitudes stay exact.
TEST(HarmonicInversion, LongSignalThroughDecimation) {
  const std::vector<Mode> in_band = {{0.95, 300, std::polar(1.0, 0.5)}, {1.04, 2000, std::polar(0.3, -2.0)}};
  std::vector<Mode> all = in_band;
  all.push_back({0.5, 100, std::polar(2.0, 0.1)});
  all.push_back({2.0, 400, std::polar(1.5, 1.1)});
  all.push_back({3.7, 1000, std::polar(1.0, -0.4)});
  const auto x = real_signal(all, 0.05, 20000);
  HarmonicInversionOptions options;
  options.target_samples = 300;  // decimation by 25 leaves ~790 samples; 300 is enough here and faster
  const auto got = harmonic_inversion(std::span<const double>(x), 0.05, 0.9, 1.1, options);
  expect_modes(got, in_band, 1e-10, 1e-7, 1e-7);
}

TEST(HarmonicInversion, StepMonitorAndErrors) {
  const std::vector<Mode> modes = {{0.3, 200, std::polar(1.0, 0.0)}};
  const auto x = complex_signal(modes, 0.1, 200);
  HarmonicInversion h(0.3, 0.2);
  for (size_t i = 0; i < x.size(); ++i) h.add(5.0 + 0.1 * double(i), x[i]);
  expect_modes(h.modes(), modes, 1e-10, 1e-8, 1e-8);
  EXPECT_THROW(h.add(1000.0, 0.0), ValueError);  // not the next time
  const std::vector<double> short_signal(10, 1.0);
  try {
    harmonic_inversion(std::span<const double>(short_signal), 0.1, 0.1, 0.4);
    FAIL() << "a 10-sample signal was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("at least 16"), std::string::npos) << e.what();
  }
  const std::vector<double> y(100, 1.0);
  EXPECT_THROW(harmonic_inversion(std::span<const double>(y), 0.1, 0.4, 0.1), ValueError);  // f_min > f_max
  EXPECT_THROW(harmonic_inversion(std::span<const double>(y), 0.1, 0.1, 6.0), ValueError);  // above Nyquist
  EXPECT_THROW(harmonic_inversion(std::span<const double>(y), 0.0, 0.1, 0.4), ValueError);
  EXPECT_THROW(HarmonicInversion(0.3, 0.0), ValueError);
  // A constant has no mode in a band away from zero.
  EXPECT_TRUE(harmonic_inversion(std::span<const double>(y), 0.1, 0.1, 0.4).empty());
}

}  // namespace
}  // namespace spire::elec
