// random_initial (PDEBench's generator): mode content by a direct DFT, determinism, and the
// distributions of the draws against their analytic moments.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "engine/core/error.h"
#include "science/flow/initial.h"
#include "science/flow/space.h"

namespace spire::flow {
namespace {

std::shared_ptr<Space> fourier_1d(int n, double x0, double x1) {
  Discretization d;
  d.nx = n, d.x0 = x0, d.x1 = x1;
  return make_space(d);
}

// |c_m| for m = 0..n/2 of u = sum_m c_m exp(2 pi i m j / n) (a direct DFT, independent of FFTW).
std::vector<double> spectrum(const std::vector<double>& u) {
  const int n = int(u.size());
  std::vector<double> a(n / 2 + 1);
  for (int m = 0; m <= n / 2; ++m) {
    std::complex<double> c = 0;
    for (int j = 0; j < n; ++j) c += u[j] * std::polar(1.0, -2 * M_PI * m * j / n);
    a[m] = std::abs(c) / n * (m == 0 || m == n / 2 ? 1 : 2);  // amplitude of the real wave
  }
  return a;
}

TEST(Initial, ModesAreWithinTheDrawnWavenumbers) {
  auto space = fourier_1d(64, -1, 1);
  RandomInitial r;
  r.p_abs = 0, r.p_window = 0;  // pure sums of sines: band-limited
  for (uint64_t s = 0; s < 200; ++s) {
    auto a = spectrum(random_initial(r, *space, 7, s, 0));
    int nonzero = 0;
    for (size_t m = 1; m < a.size(); ++m) {
      if (a[m] < 1e-12) continue;
      ++nonzero;
      // a wavenumber chosen twice appears doubled (PDEBench's one-hot sum)
      EXPECT_LE(int(m), r.waves * r.k_max) << "sample " << s;
      EXPECT_LE(a[m], 1.0 + 1e-12);  // amplitudes from [0, 1)
    }
    EXPECT_LE(nonzero, r.waves) << "sample " << s;
  }
}

TEST(Initial, OneWaveDistribution) {
  // waves = 1: one mode m uniform on 1..k_max with amplitude U[0, 1); the k_max - 1 modes not
  // chosen add the constant sum a_j sin(phi_j): mean 0, variance (k_max - 1) E[a^2] E[sin^2]
  // = (k_max - 1) / 6.
  auto space = fourier_1d(32, 0, 1);
  RandomInitial r;
  r.waves = 1, r.k_max = 4, r.p_abs = 0, r.p_window = 0;
  const int samples = 4000;
  std::vector<int> count(5, 0);
  double amp_sum = 0, amp_sq = 0, offset_sum = 0, offset_sq = 0;
  for (int s = 0; s < samples; ++s) {
    auto a = spectrum(random_initial(r, *space, 11, s, 0));
    int chosen = 0;
    for (int m = 1; m <= 4; ++m)
      if (a[m] > 1e-12) chosen = m;
    ASSERT_GT(chosen, 0);
    ++count[chosen];
    amp_sum += a[chosen], amp_sq += a[chosen] * a[chosen];
    double offset = a[0];  // |mean|; its square has expectation the variance
    offset_sum += offset, offset_sq += offset * offset;
  }
  for (int m = 1; m <= 4; ++m) EXPECT_NEAR(count[m], samples / 4.0, 4 * std::sqrt(samples * 0.25 * 0.75)) << m;
  EXPECT_NEAR(amp_sum / samples, 0.5, 4 * std::sqrt(1.0 / 12 / samples));
  EXPECT_NEAR(amp_sq / samples, 1.0 / 3, 0.02);
  EXPECT_NEAR(offset_sq / samples, 3.0 / 6, 0.05);
}

TEST(Initial, SameSeedSameBitsOtherwiseDifferent) {
  auto space = fourier_1d(64, 0, 1);
  RandomInitial r;
  auto a = random_initial(r, *space, 3, 5, 0);
  auto b = random_initial(r, *space, 3, 5, 0);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]);
  EXPECT_NE(a, random_initial(r, *space, 3, 6, 0));  // another sample
  EXPECT_NE(a, random_initial(r, *space, 3, 5, 1));  // another field
  EXPECT_NE(a, random_initial(r, *space, 4, 5, 0));  // another seed
}

TEST(Initial, AbsoluteValueAndSign) {
  // p_abs = 1: each sample has one sign, negative half of the time.
  auto space = fourier_1d(32, 0, 1);
  RandomInitial r;
  r.p_abs = 1, r.p_window = 0;
  const int samples = 2000;
  int negative = 0;
  for (int s = 0; s < samples; ++s) {
    auto u = random_initial(r, *space, 5, s, 0);
    double lo = *std::min_element(u.begin(), u.end()), hi = *std::max_element(u.begin(), u.end());
    ASSERT_TRUE(lo >= 0 || hi <= 0) << "sample " << s << " has both signs";
    negative += hi <= 0;
  }
  EXPECT_NEAR(negative, samples / 2.0, 4 * std::sqrt(samples * 0.25));
}

TEST(Initial, WindowVanishesNearTheEnds) {
  // p_window = 1: the window is 0.5 (tanh((x - xL)/w) - tanh((x - xR)/w)) with xL in
  // [0.1, 0.45] L and xR in [0.55, 0.9] L, w = 0.01 L: below 1e-8 at x0, below 1e-4 beyond 0.95 L.
  auto space = fourier_1d(128, 2, 4);
  RandomInitial r;
  r.p_window = 1;
  const auto& x = space->coordinates(0, false);
  int inside_nonzero = 0;
  for (int s = 0; s < 100; ++s) {
    auto u = random_initial(r, *space, 9, s, 0);
    EXPECT_LT(std::abs(u[0]), 1e-8 * r.k_max);
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] >= 2 + 0.95 * 2) EXPECT_LT(std::abs(u[i]), 1e-4 * r.k_max);
    inside_nonzero += std::abs(u[64]) > 1e-3;  // the middle is inside every window
  }
  EXPECT_GT(inside_nonzero, 90);
}

TEST(Initial, NormalizeAndAmplitude) {
  auto space = fourier_1d(64, 0, 1);
  RandomInitial r;
  r.normalize = true, r.amplitude = 2.5;
  for (int s = 0; s < 20; ++s) {
    auto u = random_initial(r, *space, 1, s, 0);
    EXPECT_DOUBLE_EQ(*std::min_element(u.begin(), u.end()), 0.0);
    EXPECT_DOUBLE_EQ(*std::max_element(u.begin(), u.end()), 2.5);
  }
}

TEST(Initial, TwoDimensionalModes) {
  Discretization d;
  d.dims = 2, d.nx = 16, d.ny = 16, d.x0 = 0, d.x1 = 1, d.y0 = 0, d.y1 = 2;
  auto space = make_space(d);
  RandomInitial r;
  r.p_abs = 0, r.p_window = 0;
  for (int s = 0; s < 20; ++s) {
    auto u = random_initial(r, *space, 2, s, 0);
    ASSERT_EQ(u.size(), 256u);
    // direct 2D DFT: no energy beyond |kx|, |ky| <= k_max
    for (int p = -8; p < 8; ++p)
      for (int q = -8; q < 8; ++q) {
        std::complex<double> c = 0;
        for (int i = 0; i < 16; ++i)
          for (int j = 0; j < 16; ++j) c += u[i * 16 + j] * std::polar(1.0, -2 * M_PI * (p * i + q * j) / 16.0);
        if (std::abs(p) > r.k_max || std::abs(q) > r.k_max) EXPECT_LT(std::abs(c) / 256, 1e-12) << p << " " << q;
      }
  }
}

TEST(Initial, BadSettingsNameTheKey) {
  auto space = fourier_1d(16, 0, 1);
  RandomInitial r;
  r.k_max = 0;
  try {
    random_initial(r, *space, 0, 0, 0);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("random.k_max"), std::string::npos);
  }
}

}  // namespace
}  // namespace spire::flow
