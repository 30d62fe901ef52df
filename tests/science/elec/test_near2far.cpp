// Near2Far against exact radiating sources: the exact near fields of a Hertzian dipole (3D) and of
// line currents (2D) from analytic.h, sampled on the lattice as the solver's fields would be (each
// component at its own staggered position and own time) over one period, go through the monitor's
// DFTs on a closed box; the transform must give the analytic far field (the sin^2 theta pattern, with
// its phase) and the analytic radiated power within 1% at 20 cells per wavelength, and the flux
// through the same box must agree. The Green's functions themselves are checked against Maxwell's
// equations by finite differences and against analytic.h's independently written dipole and line
// current fields.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/near2far.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

double norm(const ComplexVec3& v) { return std::sqrt(std::norm(v[0]) + std::norm(v[1]) + std::norm(v[2])); }

ComplexVec3 curl(const std::function<ComplexVec3(Vec3)>& f, Vec3 r, double h, bool planar) {
  auto d = [&](int a, int c) {
    if (planar && a == 2) return cd(0);
    Vec3 p = r, m = r;
    p[a] += h;
    m[a] -= h;
    return (f(p)[size_t(c)] - f(m)[size_t(c)]) / (2 * h);
  };
  return {d(1, 2) - d(2, 1), d(2, 0) - d(0, 2), d(0, 1) - d(1, 0)};
}

TEST(Near2Far, GreenFunctionsSatisfyMaxwellAndMatchTheAnalyticSources) {
  const double omega = 2.7, eps = 2.0, mu = 1.3;
  const ComplexVec3 cur = {cd(0.4, 0.1), cd(-0.2, 0.3), cd(0.9, -0.5)};
  const Vec3 x0{0.1, -0.2, 0.3};
  for (int dims : {3, 2})
    for (bool magnetic : {false, true}) {
      auto E = [&](Vec3 x) { return green_fields(x, x0, cur, magnetic, omega, eps, mu, dims).E; };
      auto H = [&](Vec3 x) { return green_fields(x, x0, cur, magnetic, omega, eps, mu, dims).H; };
      for (Vec3 x : {Vec3{0.6, 0.4, -0.2}, Vec3{-1.5, 2.0, 0.7}}) {
        const PhasorFields f = green_fields(x, x0, cur, magnetic, omega, eps, mu, dims);
        const ComplexVec3 ce = curl(E, x, 1e-4, dims == 2), ch = curl(H, x, 1e-4, dims == 2);
        const double scale = omega * (norm(f.E) + norm(f.H));
        for (size_t a = 0; a < 3; ++a) {
          EXPECT_LT(std::abs(ce[a] - cd(0, omega * mu) * f.H[a]), 1e-6 * scale) << dims << magnetic;   // curl E = i w mu H
          EXPECT_LT(std::abs(ch[a] + cd(0, omega * eps) * f.E[a]), 1e-6 * scale) << dims << magnetic;  // curl H = -i w eps E
        }
      }
    }
  // In vacuum an electric current element J is the dipole p = i J / omega; a line current is itself.
  const Vec3 x{0.7, -0.4, 0.5};
  const PhasorFields g3 = green_fields(x, Vec3{}, cur, false, omega, 1, 1, 3);
  const PhasorFields d3 = dipole_fields(dipole_moment_of_current(cur, omega), omega, x);
  const PhasorFields g2 = green_fields(x, Vec3{}, cur, false, omega, 1, 1, 2);
  const PhasorFields l2 = line_current_fields(cur, omega, x);
  for (size_t a = 0; a < 3; ++a) {
    EXPECT_LT(std::abs(g3.E[a] - d3.E[a]), 1e-13 * norm(d3.E));
    EXPECT_LT(std::abs(g3.H[a] - d3.H[a]), 1e-13 * norm(d3.H));
    EXPECT_LT(std::abs(g2.E[a] - l2.E[a]), 1e-13 * norm(l2.E));
    EXPECT_LT(std::abs(g2.H[a] - l2.H[a]), 1e-13 * norm(l2.H));
  }
  EXPECT_THROW(green_fields(x0, x0, cur, false, omega, 1, 1, 3), ValueError);
  EXPECT_THROW(green_fields(x, x0, cur, false, omega, -1, 1, 3), ValueError);
}

// Samples the phasor fields `source(x)` at every component's positions and steps them through one
// period of `steps` steps into the monitors: the DFTs are then W/2 times the phasors (W = T).
void drive(const YeeLattice& lat, const std::function<PhasorFields(Vec3)>& source, double omega, int steps,
           const std::vector<std::function<void(const FieldArrays<double>&, double)>>& monitors) {
  const double dt = 2 * kPi / omega / steps;
  std::array<std::vector<cd>, 6> phasor;
  std::array<std::vector<double>, 6> real;
  FieldArrays<double> arrays;
  for (Component c : lat.components()) {
    auto& v = phasor[size_t(int(c))];
    v.resize(size_t(lat.samples()));
    for (int64_t i = 0; i < lat.n(0); ++i)
      for (int64_t j = 0; j < lat.n(1); ++j)
        for (int64_t k = 0; k < lat.n(2); ++k) {
          const Vec3 x = lat.position(c, i, j, k);
          // The source's own position (a 2D Ez sample) is never on the monitors' stencils: skip it.
          if (std::abs(x.x) + std::abs(x.y) + std::abs(x.z) < 1e-12) continue;
          const PhasorFields f = source(x);
          v[size_t(lat.index(i, j, k))] = (is_electric(c) ? f.E : f.H)[size_t(axis_of(c))];
        }
    real[size_t(int(c))].resize(v.size());
    arrays.real[size_t(int(c))] = real[size_t(int(c))].data();
  }
  for (int n = 0; n < steps; ++n) {
    const double t = n * dt;
    for (Component c : lat.components()) {
      const cd rot = std::exp(cd(0, -omega * component_time(c, t, dt)));
      for (size_t s = 0; s < real[size_t(int(c))].size(); ++s)
        real[size_t(int(c))][s] = (phasor[size_t(int(c))][s] * rot).real();
    }
    for (auto& m : monitors) m(arrays, t);
  }
}

TEST(Near2Far, DipoleInABoxGivesTheSinSquaredPatternAndTheAnalyticPower3D) {
  // 30 cells per wavelength; the box's faces 0.6 wavelengths from the dipole, in its near zone.
  // (Measured: the far-field power is 0.936, 0.984, 0.993, 0.996 of the analytic value at 10, 20, 30,
  // 40 cells per wavelength: the second-order error of the linear interpolation to the common points.)
  const double f = 1.0, omega = 2 * kPi * f, res = 30;
  const int steps = 8;
  const double window = 1.0 / f;  // one period
  const YeeLattice lat(Dimensions::three, Vec3{1.4, 1.4, 1.4}, res);
  const ComplexVec3 p = {0, 0, 1.0};
  const auto faces = box_regions(lat, Vec3{}, Vec3{1.2, 1.2, 1.2});
  Near2Far n2f(lat, faces, {f}, window / steps);
  Flux box(lat, faces, {f}, window / steps);
  drive(lat, [&](Vec3 x) { return dipole_fields(p, omega, x); }, omega, steps,
        {[&](const FieldArrays<double>& a, double t) { n2f.update(a, t); },
         [&](const FieldArrays<double>& a, double t) { box.update(a, t); }});
  const double scale = window / 2;  // DFT = (W/2) phasor
  // The pattern, phase included, on a sphere of radius 1000 wavelengths.
  const double R = 1000;
  double worst = 0;
  std::vector<Vec3> points;
  for (double theta : {0.2, 0.5, 0.9, 1.3, 1.5708, 2.0, 2.6})
    for (double phi : {1.1, 3.9}) points.push_back(Vec3{R * std::sin(theta) * std::cos(phi),
                                                             R * std::sin(theta) * std::sin(phi), R * std::cos(theta)});
  const auto far = n2f.far_fields(points);
  const double peak = norm(dipole_far_fields(p, omega, Vec3{R, 0, 0}).E);
  for (size_t i = 0; i < points.size(); ++i) {
    const PhasorFields exact = dipole_far_fields(p, omega, points[i]);
    for (size_t a = 0; a < 3; ++a) {
      worst = std::max(worst, std::abs(far[i].E[a] / scale - exact.E[a]) / peak);
      worst = std::max(worst, std::abs(far[i].H[a] / scale - exact.H[a]) / peak);
    }
  }
  EXPECT_LT(worst, 0.01);
  // Power: Meep's convention Re(E* x H) is twice the time average of the phasors.
  const double analytic = dipole_power(p, omega);
  // (8 Gauss-Legendre nodes in cos theta integrate the dipole's pattern, a polynomial of degree 2,
  // exactly; the surface's own discretisation adds only weak higher harmonics.)
  const double far_power = n2f.radiated_power(5.0, Vec3{}, 8)[0] / (2 * scale * scale);
  const double box_power = box.flux()[0] / (2 * scale * scale);
  EXPECT_NEAR(far_power / analytic, 1.0, 0.01);
  EXPECT_NEAR(box_power / analytic, 1.0, 0.01);
  EXPECT_NEAR(far_power / box_power, 1.0, 0.005);
  std::printf("3D dipole: far-field power / analytic = %.5f, box flux / analytic = %.5f, worst pattern error %.2e\n",
              far_power / analytic, box_power / analytic, worst);
}

TEST(Near2Far, LineCurrentsInABoxGiveTheAnalyticFieldsAndPower2D) {
  const double f = 1.0, omega = 2 * kPi * f, res = 30;
  const int steps = 8;
  const double scale = 0.5 / f;
  for (auto [dims, current] : {std::pair{Dimensions::two_tm, ComplexVec3{0, 0, cd(1.0, 0)}},
                               std::pair{Dimensions::two_te, ComplexVec3{cd(0.6, 0.2), cd(0, -0.5), 0}}}) {
    const YeeLattice lat(dims, Vec3{1.3, 1.3, 0}, res);
    const auto faces = box_regions(lat, Vec3{}, Vec3{1.2, 1.2, 0});
    ASSERT_EQ(faces.size(), 4u);
    Near2Far n2f(lat, faces, {f}, 1.0 / f / steps);
    Flux box(lat, faces, {f}, 1.0 / f / steps);
    drive(lat, [&](Vec3 x) { return line_current_fields(current, omega, x); }, omega, steps,
          {[&](const FieldArrays<double>& a, double t) { n2f.update(a, t); },
           [&](const FieldArrays<double>& a, double t) { box.update(a, t); }});
    double worst = 0, peak = 0;
    std::vector<Vec3> points;
    for (double phi = 0.1; phi < 6.28; phi += 0.7) points.push_back(Vec3{300 * std::cos(phi), 300 * std::sin(phi), 0});
    const auto far = n2f.far_fields(points);
    for (size_t i = 0; i < points.size(); ++i) peak = std::max(peak, norm(line_current_fields(current, omega, points[i]).E));
    for (size_t i = 0; i < points.size(); ++i) {
      const PhasorFields exact = line_current_fields(current, omega, points[i]);
      for (size_t a = 0; a < 3; ++a) {
        worst = std::max(worst, std::abs(far[i].E[a] / scale - exact.E[a]) / peak);
        worst = std::max(worst, std::abs(far[i].H[a] / scale - exact.H[a]) / peak);
      }
    }
    EXPECT_LT(worst, 0.01) << to_string(dims);
    const double analytic = line_current_power(current, omega);
    const double far_power = n2f.radiated_power(2.0)[0] / (2 * scale * scale);
    const double box_power = box.flux()[0] / (2 * scale * scale);
    EXPECT_NEAR(far_power / analytic, 1.0, 0.01) << to_string(dims);
    EXPECT_NEAR(box_power / analytic, 1.0, 0.01) << to_string(dims);
    std::printf("%s line current: far-field power / analytic = %.5f, box flux / analytic = %.5f, worst %.2e\n",
                to_string(dims).c_str(), far_power / analytic, box_power / analytic, worst);
  }
}

TEST(Near2Far, ErrorsAndTwoRunData) {
  EXPECT_THROW(Near2Far(YeeLattice(Dimensions::one, Vec3{0, 0, 1}, 10), {FluxRegion{Vec3{}, Vec3{}}}, {1.0}, 0.05),
               ValueError);
  const YeeLattice lat(Dimensions::two_tm, Vec3{1.0, 1.0, 0}, 10);
  const auto faces = box_regions(lat, Vec3{}, Vec3{0.6, 0.6, 0});
  EXPECT_THROW(Near2Far(lat, {}, {1.0}, 0.05), ValueError);
  EXPECT_THROW(Near2Far(lat, faces, {1.0}, 0.05, 0.0), ValueError);
  EXPECT_THROW(Near2Far(lat, faces, {0.0}, 0.05), ValueError);
  Near2Far n2f(lat, faces, {1.0}, 0.05);
  EXPECT_THROW(n2f.radiated_power(0.3), ValueError);  // inside the surface
  const ComplexVec3 cur{0, 0, 1.0};
  drive(lat, [&](Vec3 x) { return line_current_fields(cur, 2 * kPi, x); }, 2 * kPi, 8,
        {[&](const FieldArrays<double>& a, double t) { n2f.update(a, t); }});
  EXPECT_THROW(n2f.far_field(SurfaceDft(lat, faces[1], {1.0}, 0.05).points()[2]), ValueError);
  Near2Far minus(lat, faces, {1.0}, 0.05);
  minus.load_minus_data(n2f.data());
  drive(lat, [&](Vec3 x) { return line_current_fields(cur, 2 * kPi, x); }, 2 * kPi, 8,
        {[&](const FieldArrays<double>& a, double t) { minus.update(a, t); }});
  const PhasorFields zero = minus.far_field(Vec3{10, 3, 0})[0];
  EXPECT_LT(norm(zero.E) + norm(zero.H), 1e-14);
}

TEST(Near2Far, SameBitsWithOneAndTwoThreads) {
  const YeeLattice lat(Dimensions::three, Vec3{1.0, 1.0, 1.0}, 10);
  Near2Far n2f(lat, box_regions(lat, Vec3{}, Vec3{0.6, 0.6, 0.6}), {1.0, 1.3}, 0.1);
  const ComplexVec3 p = {cd(0.2, 0.1), 0, 1.0};
  drive(lat, [&](Vec3 x) { return dipole_fields(p, 2 * kPi, x); }, 2 * kPi, 8,
        {[&](const FieldArrays<double>& a, double t) { n2f.update(a, t); }});
  std::vector<Vec3> points;
  for (int i = 0; i < 40; ++i) points.push_back(Vec3{5.0 * std::cos(0.3 * i), 5.0 * std::sin(0.3 * i), 0.1 * i - 2});
  omp_set_num_threads(1);
  const auto one = n2f.far_fields(points);
  omp_set_num_threads(2);
  const auto two = n2f.far_fields(points);
  omp_set_num_threads(omp_get_num_procs());
  for (size_t i = 0; i < one.size(); ++i)
    for (size_t a = 0; a < 3; ++a) {
      EXPECT_EQ(one[i].E[a], two[i].E[a]);
      EXPECT_EQ(one[i].H[a], two[i].H[a]);
    }
}

}  // namespace
}  // namespace spire::elec
