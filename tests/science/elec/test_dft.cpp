// DftFields against the closed form of the discrete sum: for f(t_n) = A cos(w0 t_n + phi) sampled at
// t_n = t0 + n dt, sum_n f(t_n) e^{i w t_n} dt is two geometric series. The amplitude A(x) is linear
// in position, so the multilinear interpolation to points between samples is exact and every point
// of a region checks against the same formula.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/dft.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

// sum_{n=0}^{N-1} e^{i a (t0 + n dt)}
cd geometric(double a, double t0, double dt, int n) {
  const cd q = std::exp(cd(0, a * dt));
  if (std::abs(q - 1.0) < 1e-14) return std::exp(cd(0, a * t0)) * double(n);
  return std::exp(cd(0, a * t0)) * (1.0 - std::pow(q, n)) / (1.0 - q);
}

double amplitude(Vec3 x) { return 1 + 0.3 * x.x - 0.2 * x.y + 0.1 * x.z; }

// Fills the component's array with A(x) cos(w0 t_c + phi) at the component's own time.
std::vector<double> sample(const YeeLattice& lat, Component c, double w0, double phi, double tc) {
  std::vector<double> f(size_t(lat.samples()));
  for (int64_t i = 0; i < lat.n(0); ++i)
    for (int64_t j = 0; j < lat.n(1); ++j)
      for (int64_t k = 0; k < lat.n(2); ++k)
        f[size_t(lat.index(i, j, k))] = amplitude(lat.position(c, i, j, k)) * std::cos(w0 * tc + phi);
  return f;
}

TEST(DftFields, SampledSinusoidEqualsTheClosedFormOfTheDiscreteSum) {
  const YeeLattice lat(Dimensions::three, Vec3{1.0, 1.2, 0.8}, 10);
  const double dt = 0.05, t0 = 0.3, w0 = 2 * kPi * 0.9, phi = 0.4;
  const int steps = 137;
  const std::vector<double> freqs = {0.7, 0.9, 1.3};
  for (Component c : {Component::Ey, Component::Hz}) {
    // Points on and between samples, and a slice between two grid planes.
    DftFields dft(lat, c, {std::vector<double>{-0.33, 0.0, 0.21, 0.38}, std::vector<double>{0.1, -0.47},
                           std::vector<double>{0.013, 0.25, -0.35}},
                  freqs, dt);
    DftFields box = DftFields::on_region(lat, c, Vec3{0.1, 0, 0.05}, Vec3{0.4, 0.6, 0}, freqs, dt);
    for (int n = 0; n < steps; ++n) {
      const double t = t0 + n * dt;
      const std::vector<double> f = sample(lat, c, w0, phi, component_time(c, t, dt));
      dft.accumulate(f.data(), t);
      box.accumulate(f.data(), t);
    }
    EXPECT_EQ(dft.steps(), steps);
    const double tc0 = component_time(c, t0, dt);
    for (const DftFields* d : {&dft, &box}) {
      const auto shape = d->shape();
      for (size_t fi = 0; fi < freqs.size(); ++fi) {
        const double w = 2 * kPi * freqs[fi];
        const cd unit = dt / 2 * (std::exp(cd(0, phi)) * geometric(w + w0, tc0, dt, steps) +
                                  std::exp(cd(0, -phi)) * geometric(w - w0, tc0, dt, steps));
        for (int64_t i = 0; i < shape[0]; ++i)
          for (int64_t j = 0; j < shape[1]; ++j)
            for (int64_t k = 0; k < shape[2]; ++k) {
              const Vec3 x{d->positions()[0][size_t(i)], d->positions()[1][size_t(j)], d->positions()[2][size_t(k)]};
              const cd expected = amplitude(x) * unit;
              const cd got = d->value(fi, (i * shape[1] + j) * shape[2] + k);
              EXPECT_LT(std::abs(got - expected), 1e-12 * std::abs(unit)) << to_string(c) << " f=" << freqs[fi];
            }
      }
    }
    // The box along z has no extent: one slice, between samples for Ey (integer planes) and Hz alike.
    EXPECT_EQ(box.shape()[2], 1);
    // x in [-0.1, 0.3]: Ey samples (integer planes) at -0.1 ... 0.3, Hz samples (half planes) at -0.05 ... 0.25.
    EXPECT_EQ(box.shape()[0], c == Component::Ey ? 5 : 4);
  }
}

TEST(DftFields, ComplexAndSinglePrecisionFields) {
  const YeeLattice lat(Dimensions::two_tm, Vec3{2.0, 1.0, 0}, 8);
  const double dt = 0.06, w0 = 2 * kPi * 1.1;
  const std::vector<double> freqs = {1.1, 0.8};
  DftFields cplx = DftFields::on_region(lat, Component::Ez, Vec3{}, Vec3{2.0, 1.0, 0}, freqs, dt);
  DftFields single = DftFields::on_region(lat, Component::Ez, Vec3{}, Vec3{2.0, 1.0, 0}, freqs, dt);
  const int steps = 50;
  std::vector<double> re(size_t(lat.samples())), im(re.size());
  std::vector<float> fl(re.size());
  for (int n = 0; n < steps; ++n) {
    const double t = n * dt;
    for (int64_t s = 0; s < lat.samples(); ++s) {
      const cd v = 0.5 * std::exp(cd(0, -w0 * t)) * double(s % 7 + 1);  // e^{-i w0 t}: a pure +w0 phasor
      re[size_t(s)] = v.real();
      im[size_t(s)] = v.imag();
      fl[size_t(s)] = float(v.real());
    }
    cplx.accumulate(re.data(), im.data(), t);
    single.accumulate(fl.data(), t);
  }
  for (size_t fi = 0; fi < freqs.size(); ++fi) {
    const double w = 2 * kPi * freqs[fi];
    const cd unit = 0.5 * dt * geometric(w - w0, 0, dt, steps);
    const cd unit_real = 0.25 * dt * (geometric(w - w0, 0, dt, steps) + geometric(w + w0, 0, dt, steps));
    for (int64_t p = 0; p < cplx.points(); ++p) {
      // on_region covers the whole cell: points are the samples in storage order.
      const double a = double(p % 7 + 1);
      EXPECT_LT(std::abs(cplx.value(fi, p) - a * unit), 1e-12 * a);
      EXPECT_LT(std::abs(single.value(fi, p) - a * unit_real), 1e-6 * a);
    }
  }
  FieldArrays<double> arrays;
  arrays.real[int(Component::Ez)] = re.data();
  cplx.update(arrays, 0.0);
  EXPECT_EQ(cplx.steps(), steps + 1);
  arrays.real[int(Component::Ez)] = nullptr;
  EXPECT_THROW(cplx.update(arrays, 0.0), ValueError);
}

// Positions at the upper wall of a periodic cell take sample 0 (yee.h: sample n is sample 0).
TEST(DftFields, PositionsWrapPeriodically) {
  const YeeLattice lat(Dimensions::one, Vec3{0, 0, 1.0}, 10);
  DftFields d(lat, Component::Ex, {std::vector<double>{0}, std::vector<double>{0}, std::vector<double>{0.5, -0.5, 0.47}},
              {0.0}, 1.0);
  std::vector<double> f(10);
  for (int k = 0; k < 10; ++k) f[size_t(k)] = k + 1;
  d.accumulate(f.data(), 0.0);
  EXPECT_DOUBLE_EQ(d.value(0, 0).real(), 1.0);          // z = 0.5 is sample 10 = sample 0
  EXPECT_DOUBLE_EQ(d.value(0, 1).real(), 1.0);          // z = -0.5 is sample 0
  EXPECT_NEAR(d.value(0, 2).real(), 0.3 * 10 + 0.7 * 1, 1e-12);  // 0.7 of the way from sample 9 to the wrap
}

TEST(DftFields, DataRoundTripAndErrors) {
  const YeeLattice lat(Dimensions::two_te, Vec3{1.0, 1.0, 0}, 10);
  DftFields d = DftFields::on_region(lat, Component::Hz, Vec3{}, Vec3{0.5, 0, 0}, {1.0, 2.0}, 0.05);
  EXPECT_EQ(d.shape()[1], 1);
  std::vector<double> f(size_t(lat.samples()), 1.0);
  d.accumulate(f.data(), 0.2);
  const auto saved = d.data();
  d.set_data(saved, -1);
  for (size_t i = 0; i < saved.size(); ++i) EXPECT_EQ(d.data()[i], -saved[i]);
  d.accumulate(f.data(), 0.2);
  for (const cd& v : d.data()) EXPECT_EQ(v, cd(0, 0));
  EXPECT_THROW(d.set_data(std::vector<cd>(3)), ValueError);
  EXPECT_THROW(DftFields::on_region(lat, Component::Ez, Vec3{}, Vec3{}, {1.0}, 0.05), ValueError);
  EXPECT_THROW(DftFields::on_region(lat, Component::Hz, Vec3{0.4, 0, 0}, Vec3{0.5, 0, 0}, {1.0}, 0.05), ValueError);
  EXPECT_THROW(DftFields::on_region(lat, Component::Hz, Vec3{}, Vec3{}, {}, 0.05), ValueError);
  EXPECT_THROW(DftFields::on_region(lat, Component::Hz, Vec3{}, Vec3{}, {1.0}, 0.0), ValueError);
  EXPECT_THROW(DftFields(lat, Component::Hz, {std::vector<double>{0.7}, std::vector<double>{0}, std::vector<double>{0}},
                         {1.0}, 0.05),
               ValueError);
  try {
    DftFields::on_region(lat, Component::Hz, Vec3{0.4, 0, 0}, Vec3{0.5, 0, 0}, {1.0}, 0.05);
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("outside the cell"), std::string::npos) << e.what();
  }
  const std::vector<double> fl = frequency_list(1.0, 0.4, 3);
  ASSERT_EQ(fl.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(fl[size_t(i)], 0.8 + 0.2 * i, 1e-15);
  EXPECT_EQ(frequency_list(1.0, 0.4, 1), (std::vector<double>{1.0}));
  EXPECT_THROW(frequency_list(1.0, 0.4, 0), ValueError);
}

TEST(DftFields, SameBitsWithOneAndTwoThreads) {
  // Big enough for both threaded loops (gather over > 65536 points, accumulation over > 262144
  // point-frequencies).
  const YeeLattice lat(Dimensions::three, Vec3{4.2, 4.2, 4.2}, 10);
  std::vector<double> f(size_t(lat.samples()));
  for (size_t s = 0; s < f.size(); ++s) f[s] = std::sin(0.37 * double(s));
  std::vector<std::vector<cd>> results;
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    DftFields d =
        DftFields::on_region(lat, Component::Hx, Vec3{0.01, 0, 0}, Vec3{4.1, 4.1, 4.1}, {0.5, 0.75, 0.8, 1.1}, 0.05);
    for (int n = 0; n < 3; ++n) d.accumulate(f.data(), n * 0.05);
    results.push_back(d.data());
  }
  omp_set_num_threads(omp_get_num_procs());
  ASSERT_GT(results[0].size(), 262144u);
  EXPECT_TRUE(results[0] == results[1]);
}

}  // namespace
}  // namespace spire::elec
