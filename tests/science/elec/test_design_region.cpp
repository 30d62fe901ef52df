// Design regions (design_region.h): which samples a box takes (counted independently from the
// staggered positions), multilinear interpolation reproducing a bilinear function exactly between the
// grid centres and clamping beyond them, apply() writing 1/eps there and nothing elsewhere, chain()
// against central differences of a weighted sum of inv_eps, and the errors for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "science/elec/design_region.h"
#include "tests/common/expect_error.h"

namespace spire::elec {
namespace {

// f(x, y, z) = 2 + 0.3 x - 0.5 y + 0.4 x y + 0.2 z: multilinear, so interpolation of its values at
// the grid centres reproduces it exactly.
double f(const Vec3& p) { return 2 + 0.3 * p.x - 0.5 * p.y + 0.4 * p.x * p.y + 0.2 * p.z; }

std::vector<double> grid_values(const DesignRegion& r, const YeeLattice& lat) {
  std::vector<double> v(size_t(r.values()));
  const auto& n = r.shape();
  for (int64_t i = 0; i < n[0]; ++i)
    for (int64_t j = 0; j < n[1]; ++j)
      for (int64_t k = 0; k < n[2]; ++k) {
        Vec3 p;
        const int64_t idx[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          const double h = r.size()[a] / double(n[size_t(a)]);
          p[a] = lat.has_axis(a) ? r.center()[a] - r.size()[a] / 2 + (double(idx[a]) + 0.5) * h : 0.0;
        }
        v[size_t((i * n[1] + j) * n[2] + k)] = f(p);
      }
  return v;
}

void check_interpolation(const YeeLattice& lat, const DesignRegion& r) {
  const std::vector<DesignSample> samples = r.samples(lat);
  const std::vector<double> eps = r.interpolate(samples, grid_values(r, lat));
  // Independent count: the samples of each E component whose position lies in the closed box.
  size_t expected = 0;
  for (Component c : lat.components()) {
    if (!is_electric(c)) continue;
    for (int64_t i = 0; i < lat.n(0); ++i)
      for (int64_t j = 0; j < lat.n(1); ++j)
        for (int64_t k = 0; k < lat.n(2); ++k) {
          const Vec3 p = lat.position(c, i, j, k);
          bool in = true;
          for (int a = 0; a < 3; ++a)
            if (lat.has_axis(a))
              in = in && std::abs(p[a] - r.center()[a]) <= r.size()[a] / 2 + 1e-9 * lat.dx();
          expected += in ? 1 : 0;
        }
  }
  ASSERT_EQ(samples.size(), expected);
  for (size_t q = 0; q < samples.size(); ++q) {
    const DesignSample& s = samples[q];
    const int64_t i = s.index / (lat.n(1) * lat.n(2)), j = (s.index / lat.n(2)) % lat.n(1), k = s.index % lat.n(2);
    Vec3 p = lat.position(s.component, i, j, k);
    // Clamped to the first and last grid centre along each axis.
    for (int a = 0; a < 3; ++a) {
      if (!lat.has_axis(a)) continue;
      const double h = r.size()[a] / double(r.shape()[size_t(a)]);
      const double lo = r.center()[a] - r.size()[a] / 2 + h / 2, hi = r.center()[a] + r.size()[a] / 2 - h / 2;
      p[a] = std::clamp(p[a], lo, hi);
    }
    double w = 0;
    for (int t = 0; t < s.taps; ++t) w += s.weight[size_t(t)];
    EXPECT_NEAR(w, 1.0, 1e-14);
    EXPECT_NEAR(eps[q], f(p), 1e-13) << to_string(s.component) << " sample " << s.index;
  }
}

TEST(DesignRegion, InterpolatesMultilinearlyAtEachStaggeredSample) {
  check_interpolation(YeeLattice(Dimensions::two_te, {3, 2, 0}, 10),
                      DesignRegion({0.2, -0.1, 0}, {1.3, 0.9, 0}, {5, 3, 1}));
  check_interpolation(YeeLattice(Dimensions::two_tm, {3, 2, 0}, 10), DesignRegion({0, 0, 0}, {1.0, 1.0, 0}, {4, 1, 1}));
  check_interpolation(YeeLattice(Dimensions::three, {1.2, 1.0, 1.1}, 10),
                      DesignRegion({0.05, 0, -0.1}, {0.6, 0.5, 0.7}, {3, 2, 4}));
  check_interpolation(YeeLattice(Dimensions::one, {0, 0, 3}, 10), DesignRegion({0, 0, 0.3}, {0, 0, 1.1}, {1, 1, 6}));
}

TEST(DesignRegion, ApplyWritesInverseEpsilonOnlyInside) {
  const YeeLattice lat(Dimensions::two_te, {3, 2, 0}, 10);
  const DesignRegion r({0.2, -0.1, 0}, {1.3, 0.9, 0}, {5, 3, 1});
  MaterialArrays m = MaterialArrays::vacuum(lat);
  for (auto& s : m.conductivity) s.clear();
  m.conductivity[0].assign(size_t(lat.samples()), 0.25);
  const std::vector<double> eps = grid_values(r, lat);
  r.apply(m, lat, eps);
  const std::vector<DesignSample> samples = r.samples(lat);
  const std::vector<double> at = r.interpolate(samples, eps);
  std::array<std::vector<char>, 3> inside;
  for (size_t q = 0; q < samples.size(); ++q) {
    const size_t c = size_t(int(samples[q].component));
    if (inside[c].empty()) inside[c].assign(size_t(lat.samples()), 0);
    inside[c][size_t(samples[q].index)] = 1;
    EXPECT_EQ(m.inverse[c][size_t(samples[q].index)], 1 / at[q]);
  }
  for (Component c : {Component::Ex, Component::Ey})
    for (int64_t i = 0; i < lat.samples(); ++i)
      if (!inside[size_t(int(c))][size_t(i)]) {
        EXPECT_EQ(m.inverse[size_t(int(c))][size_t(i)], 1.0);
      }
  EXPECT_EQ(m.inverse[size_t(int(Component::Hz))], std::vector<double>(size_t(lat.samples()), 1.0));
  EXPECT_EQ(m.conductivity[0], std::vector<double>(size_t(lat.samples()), 0.25));
}

TEST(DesignRegion, ChainIsTheTransposeOfTheDerivative) {
  // J(eps) = sum_q w_q inv_eps_q(eps): chain(w) must be dJ/d eps, checked by central differences.
  const YeeLattice lat(Dimensions::three, {1.2, 1.0, 1.1}, 10);
  const DesignRegion r({0.05, 0, -0.1}, {0.6, 0.5, 0.7}, {3, 2, 4});
  const std::vector<DesignSample> samples = r.samples(lat);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(1.2, 4.0), w(-1.0, 1.0);
  std::vector<double> eps(size_t(r.values())), weights(samples.size());
  for (double& e : eps) e = u(rng);
  for (double& x : weights) x = w(rng);
  auto J = [&](const std::vector<double>& e) {
    const std::vector<double> at = r.interpolate(samples, e);
    double s = 0;
    for (size_t q = 0; q < at.size(); ++q) s += weights[q] / at[q];
    return s;
  };
  const std::vector<double> grad = r.chain(lat, eps, weights);
  ASSERT_EQ(grad.size(), eps.size());
  for (size_t i = 0; i < eps.size(); ++i) {
    std::vector<double> e = eps;
    const double h = 1e-5 * eps[i];
    e[i] = eps[i] + h;
    const double up = J(e);
    e[i] = eps[i] - h;
    const double fd = (up - J(e)) / (2 * h);
    EXPECT_NEAR(grad[i], fd, 1e-7 * (std::abs(fd) + 1e-3)) << "design value " << i;
  }
}

TEST(DesignRegion, BadInputIsRefusedNamingIt) {
  const YeeLattice lat(Dimensions::two_tm, {3, 2, 0}, 10);
  expect_error_naming<ValueError>([] { DesignRegion({0, 0, 0}, {1, 1, 0}, {0, 2, 1}); }, {"along x"});
  expect_error_naming<ValueError>([] { DesignRegion({0, NAN, 0}, {1, 1, 0}, {2, 2, 1}); }, {"y center"});
  expect_error_naming<ValueError>([] { DesignRegion({0, 0, 0}, {1, -1, 0}, {2, 2, 1}); }, {"size >= 0"});
  expect_error_naming<ValueError>([&] { DesignRegion({1.2, 0, 0}, {1, 1, 0}, {2, 2, 1}).samples(lat); },
                                  {"outside the cell"});
  expect_error_naming<ValueError>([&] { DesignRegion({0, 0, 0}, {1, 1, 0}, {2, 2, 3}).samples(lat); },
                                  {"no z axis"});
  expect_error_naming<ValueError>([&] { DesignRegion({0, 0, 0}, {1, 0, 0}, {2, 1, 1}).samples(lat); },
                                  {"y size must be > 0"});
  expect_error_naming<ValueError>([&] { DesignRegion({0.05, 0.05, 0}, {0.01, 0.01, 0}, {1, 1, 1}).samples(lat); },
                                  {"no electric sample"});
  const DesignRegion r({0, 0, 0}, {1, 1, 0}, {2, 2, 1});
  MaterialArrays m = MaterialArrays::vacuum(lat);
  expect_error_naming<ValueError>([&] { r.apply(m, lat, {1, 2, 3}); }, {"got 3 design values"});
  expect_error_naming<ValueError>([&] { r.apply(m, lat, {1, 2, 0, 3}); }, {"design value 2"});
  expect_error_naming<ValueError>([&] { r.apply(m, lat, {1, 2, 3, NAN}); }, {"design value 3"});
  expect_error_naming<ValueError>([&] { r.apply(m, lat, {1, 2, 3, INFINITY}); }, {"design value 3"});
  expect_error_naming<ValueError>([&] { r.chain(lat, {1, 2, 3, 4}, {1.0}); }, {"derivatives"});
  MaterialArrays small = MaterialArrays::vacuum(YeeLattice(Dimensions::two_tm, {1, 1, 0}, 10));
  expect_error_naming<ValueError>([&] { r.apply(small, lat, {1, 2, 3, 4}); }, {"inv_eps of Ez"});
}

}  // namespace
}  // namespace spire::elec
