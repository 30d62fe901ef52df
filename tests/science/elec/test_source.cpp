// Source discretisation (source.h): the integral of the current and its centre are kept wherever a
// point, sheet or volume sits on the lattice (Meep's interpolation weights), the amplitude function
// is sampled at the sample positions, and walls wrap (with the Bloch phase) or drop samples.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/source.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
auto pulse() { return std::make_shared<GaussianSource>(1.0, 0.5); }

struct Moments {
  cd total = 0;
  Vec3 centre;
};

// Sum of the weights times the cell volume, and the weight-averaged position.
Moments moments(const SourceSamples& s, const YeeLattice& L) {
  Moments m;
  double dv = 1;
  for (int a = 0; a < 3; ++a)
    if (L.has_axis(a)) dv *= L.dx();
  double wsum = 0;
  for (size_t i = 0; i < s.index.size(); ++i) {
    const int64_t idx = s.index[i];
    const int64_t k = idx % L.n(2), j = (idx / L.n(2)) % L.n(1), ii = idx / (L.n(1) * L.n(2));
    const Vec3 r = L.position(s.component, ii, j, k);
    m.total += s.weight[i] * dv;
    const double w = s.weight[i].real();
    wsum += w;
    m.centre.x += w * r.x;
    m.centre.y += w * r.y;
    m.centre.z += w * r.z;
  }
  m.centre.x /= wsum;
  m.centre.y /= wsum;
  m.centre.z /= wsum;
  return m;
}

TEST(Source, PointDipoleOnAndOffTheLatticeKeepsItsMomentAndCentre) {
  YeeLattice L(Dimensions::three, {1.0, 1.2, 0.8}, 10);
  const ResolvedBoundaries bc = resolve(Boundaries(), L);
  // On an Ez sample: one sample of weight amplitude / dx^3.
  const Vec3 on = L.position(Component::Ez, 4, 5, 3);
  const SourceSamples s1 = discretize(point_dipole(Component::Ez, on, pulse(), 2.0), L, bc);
  ASSERT_EQ(s1.index.size(), 1u);
  EXPECT_EQ(s1.index[0], L.index(4, 5, 3));
  EXPECT_NEAR(s1.weight[0].real(), 2.0 / 1e-3, 1e-9);
  // Off the lattice: spread over the 8 surrounding samples, same moment, centred on the point.
  const Vec3 off{0.0123, -0.2071, 0.0345};
  const SourceSamples s2 = discretize(point_dipole(Component::Ez, off, pulse(), 2.0), L, bc);
  EXPECT_EQ(s2.index.size(), 8u);
  const Moments m = moments(s2, L);
  EXPECT_NEAR(m.total.real(), 2.0, 1e-12);
  EXPECT_NEAR(m.centre.x, off.x, 1e-12);
  EXPECT_NEAR(m.centre.y, off.y, 1e-12);
  EXPECT_NEAR(m.centre.z, off.z, 1e-12);
  // 2D: a point is a line current: weight / dx^2.
  YeeLattice tm(Dimensions::two_tm, {1.0, 1.0, 0}, 20);
  const SourceSamples s3 = discretize(point_dipole(Component::Ez, {0.011, 0.02, 0}, pulse()), tm, resolve(Boundaries(), tm));
  EXPECT_NEAR(moments(s3, tm).total.real(), 1.0, 1e-12);
}

TEST(Source, SheetsAndVolumesKeepTheIntegralOfTheCurrent) {
  YeeLattice L(Dimensions::three, {1.0, 1.2, 0.8}, 10);
  const ResolvedBoundaries bc = resolve(Boundaries(), L);
  // A plane of Ex, 0.53 x 0.37, at an arbitrary x: integral = amplitude * area.
  const Source plane = current_sheet(Component::Ex, {0.0271, 0.013, -0.021}, {0, 0.53, 0.37}, pulse(), 3.0);
  const Moments mp = moments(discretize(plane, L, bc), L);
  EXPECT_NEAR(mp.total.real(), 3.0 * 0.53 * 0.37, 1e-12);
  // Exactly centred along the delta axis (linear interpolation); along the extents the partial edge
  // cells are weighted at their sample positions, which moves the centre by a small part of dx.
  EXPECT_NEAR(mp.centre.x, 0.0271, 1e-12);
  EXPECT_NEAR(mp.centre.y, 0.013, 0.05 * L.dx());
  EXPECT_NEAR(mp.centre.z, -0.021, 0.05 * L.dx());
  const Source volume = current_sheet(Component::Hz, {0.1, -0.1, 0.05}, {0.33, 0.41, 0.27}, pulse());
  EXPECT_NEAR(moments(discretize(volume, L, bc), L).total.real(), 0.33 * 0.41 * 0.27, 1e-12);
  // A shaped sheet: each sample carries f(position - centre).
  auto f = [](const Vec3& r) { return cd(1 + r.y * r.y, r.z); };
  const Source shaped = current_sheet(Component::Ey, {0, 0, 0}, {0, 0.6, 0.4}, pulse(), 1.0, f);
  const SourceSamples ss = discretize(shaped, L, bc);
  for (size_t i = 0; i < ss.index.size(); ++i) {
    const int64_t idx = ss.index[i];
    const Vec3 r = L.position(Component::Ey, idx / (L.n(1) * L.n(2)), (idx / L.n(2)) % L.n(1), idx % L.n(2));
    // The plane x = 0 is an Ey sample plane (Ey has no x offset): full weight, no spread in x.
    const double overlap = ss.weight[i].real() / (1 + r.y * r.y);
    EXPECT_NEAR(ss.weight[i].imag(), overlap * r.z, 1e-9);
  }
}

TEST(Source, WrapsThroughBlochWallsWithThePhaseAndDropsWallSamples) {
  YeeLattice L(Dimensions::one, {0, 0, 1.0}, 10);
  Boundaries b;
  b.set_bloch(2, 0.3);
  const ResolvedBoundaries bc = resolve(b, L);
  // Between the last Ex sample (z = 0.4) and the wrap (z = 0.5 == -0.5, sample 0).
  const SourceSamples s = discretize(point_dipole(Component::Ex, {0, 0, 0.47}, pulse()), L, bc);
  ASSERT_EQ(s.index.size(), 2u);
  EXPECT_EQ(s.index[0], 0);
  EXPECT_EQ(s.index[1], 9);
  // J(z + L) = J(z) exp(i 2 pi k L): the sample at z = -0.5 stores the wrapped share times exp(-i phase).
  const cd phase = std::polar(1.0, -2 * std::numbers::pi * 0.3 * 1.0);
  EXPECT_NEAR(std::abs(s.weight[0] - 0.7 / 0.1 * phase), 0, 1e-9);
  EXPECT_NEAR(std::abs(s.weight[1] - 0.3 / 0.1), 0, 1e-9);
  // PEC walls: Ez is tangential to both walls of a TM cell; its samples on them are dropped.
  YeeLattice tm(Dimensions::two_tm, {1.0, 1.0, 0}, 10);
  const ResolvedBoundaries pec = resolve(Boundaries(), tm);
  const SourceSamples w = discretize(point_dipole(Component::Ez, {0.0, -0.47, 0}, pulse()), tm, pec);
  ASSERT_EQ(w.index.size(), 1u);
  EXPECT_EQ(w.index[0], tm.index(5, 1, 0));
  EXPECT_TRUE(discretize(point_dipole(Component::Ez, {0.0, -0.5, 0}, pulse()), tm, pec).index.empty());
}

TEST(Source, RejectsWhatCannotBePlaced) {
  YeeLattice tm(Dimensions::two_tm, {1.0, 1.0, 0}, 10);
  const ResolvedBoundaries bc = resolve(Boundaries(), tm);
  try {
    discretize(point_dipole(Component::Ex, {0, 0, 0}, pulse()), tm, bc);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Ex"), std::string::npos);
  }
  EXPECT_THROW(discretize(point_dipole(Component::Ez, {0.51, 0, 0}, pulse()), tm, bc), ValueError);
  EXPECT_THROW(discretize(current_sheet(Component::Ez, {0, 0, 0}, {0, 1.2, 0}, pulse()), tm, bc), ValueError);
  EXPECT_THROW(discretize(current_sheet(Component::Ez, {0, 0, 0}, {-0.1, 0, 0}, pulse()), tm, bc), ValueError);
  EXPECT_THROW(discretize(point_dipole(Component::Ez, {0, 0, 0}, nullptr), tm, bc), ValueError);
}

}  // namespace
}  // namespace spire::elec
