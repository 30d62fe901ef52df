// The cylinder's series solution (mie.h) against what does not come from the series' coefficient
// formulas: the published small-cylinder limits (a perfectly conducting wire: Balanis, Advanced
// Engineering Electromagnetics, 11.5; a dielectric rod: its electrostatic polarisability radiating
// as a 2D line dipole), the large-cylinder extinction limit 4a (twice the shadow: the extinction
// paradox), and the boundary-value problem itself: the total field satisfies the Helmholtz equation
// on each side and the interface conditions at r = radius (finite differences of the field the
// series returns).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/mie.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;
constexpr double kEulerGamma = 0.57721566490153286;

// f giving background wavenumber k (vacuum background).
double freq(double k) { return k / (2 * kPi); }

TEST(Mie, ThinPecWireTmMatchesBalanis) {
  // Balanis (11-96): a thin PEC wire, E along it, scatters through the n = 0 term alone,
  //   sigma_s = (pi^2 / k) / [(pi/2)^2 + (ln(k a / 2) + gamma)^2]     (ka -> 0).
  const MieCylinder wire{.radius = 1e-3, .pec = true};
  for (double k : {0.5, 1.0, 2.0}) {
    const double x = k * wire.radius;
    const double L = std::log(x / 2) + kEulerGamma;
    const double expect = kPi * kPi / k / (kPi * kPi / 4 + L * L);
    EXPECT_NEAR(mie_cylinder_scattering_width(wire, CylinderPolarization::tm, freq(k)) / expect, 1, 1e-5) << k;
  }
}

TEST(Mie, ThinPecWireTeMatchesLowFrequencyLimit) {
  // H along a thin PEC wire: n = 0 and n = +-1 terms, c_0 = -c_1 = -i pi x^2 / 4 at leading order,
  //   sigma_s = (3 pi^2 / 4) k^3 a^4   (relative corrections O(x^2)).
  const MieCylinder wire{.radius = 1e-3, .pec = true};
  for (double k : {0.5, 1.0, 2.0}) {
    const double expect = 0.75 * kPi * kPi * std::pow(k, 3) * std::pow(wire.radius, 4);
    EXPECT_NEAR(mie_cylinder_scattering_width(wire, CylinderPolarization::te, freq(k)) / expect, 1, 1e-4) << k;
  }
}

TEST(Mie, ThinDielectricRodRadiatesAsALineDipole) {
  // A rod of radius a << wavelength in a uniform field E0 carries the dipole moment per length
  //   p = pi a^2 (eps - 1) E0               (E0 along the axis: tm)
  //   p = 2 pi a^2 (eps - 1)/(eps + 1) E0   (E0 across it: te)
  // and a line dipole radiates P = k^3 |p|^2 / 8 (along the line) or k^3 |p|^2 / 16 (across it, a
  // sin^2 pattern) per length (analytic.h's line current with I = omega p), so with the incident
  // intensity E0^2 / 2:  sigma_tm = (pi^2/4) k^3 a^4 (eps-1)^2,  sigma_te = (pi^2/2) k^3 a^4
  // ((eps-1)/(eps+1))^2 (Bohren & Huffman 8.4, small-particle limit).
  for (double eps : {2.0, 4.0, 12.0}) {
    const MieCylinder rod{.radius = 2e-4, .eps = eps};
    const double k = 1.5, a4k3 = std::pow(k, 3) * std::pow(rod.radius, 4);
    EXPECT_NEAR(mie_cylinder_scattering_width(rod, CylinderPolarization::tm, freq(k)) /
                    (kPi * kPi / 4 * a4k3 * (eps - 1) * (eps - 1)), 1, 1e-4) << eps;
    EXPECT_NEAR(mie_cylinder_scattering_width(rod, CylinderPolarization::te, freq(k)) /
                    (kPi * kPi / 2 * a4k3 * std::pow((eps - 1) / (eps + 1), 2)), 1, 1e-4) << eps;
  }
}

TEST(Mie, LargePecCylinderExtinguishesTwiceItsShadow) {
  // ka >> 1: extinction (= scattering: no loss) tends to 4a, twice the shadow, with the creeping-
  // wave (Fock) correction of a large conducting cylinder: Q_ext = sigma / 2a = 2 + 0.996 x^(-2/3)
  // with E along the axis, 2 - 0.864 x^(-2/3) with H along it (van de Hulst, Light Scattering by
  // Small Particles, 1957). Measured: x^(2/3) (sigma/4a - 1) = 0.4980 (tm), -0.4336 (te) at x = 800.
  const MieCylinder cyl{.radius = 1, .pec = true};
  const double x = 800;
  const double tm = mie_cylinder_scattering_width(cyl, CylinderPolarization::tm, freq(x)) / 4 - 1;
  const double te = mie_cylinder_scattering_width(cyl, CylinderPolarization::te, freq(x)) / 4 - 1;
  EXPECT_NEAR(tm * std::pow(x, 2.0 / 3), 0.498, 0.003);
  EXPECT_NEAR(te * std::pow(x, 2.0 / 3), -0.432, 0.005);
}

TEST(Mie, LosslessCylinderObeysTheOpticalTheorem) {
  // sigma_ext (the forward amplitude) equals sigma_s (the scattered power) without loss; a wrong
  // sign or factor in a coefficient breaks |1 + 2 c_n| = 1 and with it this equality.
  for (auto pol : {CylinderPolarization::tm, CylinderPolarization::te})
    for (const MieCylinder& cyl : {MieCylinder{.radius = 0.33, .eps = 4}, MieCylinder{.radius = 1.3, .eps = 2.25},
                                   MieCylinder{.radius = 0.5, .pec = true}})
      for (double f : {0.3, 0.9, 1.7}) {
        const double s = mie_cylinder_scattering_width(cyl, pol, f), e = mie_cylinder_extinction_width(cyl, pol, f);
        EXPECT_NEAR(e / s, 1, 1e-10) << f;
        // The bistatic width averages to the total (exactly on 180 equally spaced angles: |T|^2
        // is a cosine series of degree below 90 here).
        double mean = 0;
        const int n = 180;
        for (int i = 0; i < n; ++i) mean += mie_cylinder_bistatic_width(cyl, pol, f, 2 * kPi * (i + 0.5) / n) / n;
        EXPECT_NEAR(mean / s, 1, 1e-10) << f;
      }
}

// Finite-difference checks of the boundary-value problem the field solves: the Helmholtz equation
// inside (wavenumber m k) and outside (k), continuity of u and of (1/eps^p) du/dr at the surface.
void check_boundary_value_problem(const MieCylinder& cyl, CylinderPolarization pol, double f, double angle) {
  const double k = 2 * kPi * f, m = std::sqrt(cyl.eps), a = cyl.radius, h = 1e-4 * a;
  auto u = [&](double x, double y) { return mie_cylinder_total_field(cyl, pol, f, Vec3{x, y, 0}, angle); };
  auto laplacian = [&](double x, double y) {
    const double hh = 1e-3 * a;
    return (u(x + hh, y) + u(x - hh, y) + u(x, y + hh) + u(x, y - hh) - 4.0 * u(x, y)) / (hh * hh);
  };
  for (double phi : {0.1, 1.3, 2.9, 4.4}) {
    const double c = std::cos(phi), s = std::sin(phi);
    // Helmholtz at 0.5 a and 2 a.
    const double ri = 0.5 * a, ro = 2 * a;
    const cd ui = u(ri * c, ri * s), uo = u(ro * c, ro * s);
    EXPECT_LT(std::abs(laplacian(ri * c, ri * s) + m * m * k * k * ui), 1e-4 * m * m * k * k * std::abs(ui) + 1e-6);
    EXPECT_LT(std::abs(laplacian(ro * c, ro * s) + k * k * uo), 1e-4 * k * k * std::abs(uo) + 1e-6);
    // Interface: one-sided second-order derivatives from r = a -+ (0, h, 2h).
    auto at = [&](double r) { return u(r * c, r * s); };
    const cd in0 = at(a - 1e-12 * a), out0 = at(a + 1e-12 * a);
    const cd din = (3.0 * in0 - 4.0 * at(a - h) + at(a - 2 * h)) / (2 * h);
    const cd dout = (-3.0 * out0 + 4.0 * at(a + h) - at(a + 2 * h)) / (2 * h);
    EXPECT_LT(std::abs(in0 - out0), 1e-8 * std::abs(out0) + 1e-10) << phi;
    const double jump = pol == CylinderPolarization::tm ? 1.0 : 1 / cyl.eps;  // (1/eps^p) du/dr
    EXPECT_LT(std::abs(jump * din - dout), 1e-5 * k * (std::abs(dout) + std::abs(out0))) << phi;
  }
}

TEST(Mie, TotalFieldSolvesTheInterfaceProblem) {
  for (auto pol : {CylinderPolarization::tm, CylinderPolarization::te}) {
    check_boundary_value_problem(MieCylinder{.radius = 0.33, .eps = 4}, pol, 1.0, 0.0);
    check_boundary_value_problem(MieCylinder{.radius = 0.8, .eps = 2}, pol, 1.4, 0.7);
  }
}

TEST(Mie, PecCylinderHoldsTheTangentialFieldAtZero) {
  // tm: E_z = 0 on the surface; te: E_phi ~ dH_z/dr = 0 there.
  const MieCylinder cyl{.radius = 0.4, .pec = true};
  const double f = 1.2, a = cyl.radius, h = 1e-5;
  for (double phi : {0.0, 0.8, 2.0, 3.1}) {
    const Vec3 r{a * std::cos(phi), a * std::sin(phi), 0};
    EXPECT_LT(std::abs(mie_cylinder_total_field(cyl, CylinderPolarization::tm, f, r)), 1e-10);
    auto hz = [&](double rr) {
      return mie_cylinder_total_field(cyl, CylinderPolarization::te, f, Vec3{rr * std::cos(phi), rr * std::sin(phi), 0});
    };
    const cd d = (-3.0 * hz(a) + 4.0 * hz(a + h) - hz(a + 2 * h)) / (2 * h);
    EXPECT_LT(std::abs(d), 1e-6 * 2 * kPi * f) << phi;
  }
}

TEST(Mie, FarFieldGivesTheBistaticWidth) {
  // 2 pi r |u_s|^2 -> sigma(angle) as r grows (1/(kr) corrections); rotation of the incidence
  // rotates the pattern.
  const MieCylinder cyl{.radius = 0.33, .eps = 4};
  const double f = 0.9, r = 2000, inc = 0.6;
  for (double angle : {0.0, 1.0, 2.5}) {
    const Vec3 p{r * std::cos(angle + inc), r * std::sin(angle + inc), 0};
    const double near = 2 * kPi * r * std::norm(mie_cylinder_scattered_field(cyl, CylinderPolarization::te, f, p, inc));
    EXPECT_NEAR(near / mie_cylinder_bistatic_width(cyl, CylinderPolarization::te, f, angle), 1, 1e-3) << angle;
  }
}

TEST(Mie, BadInputNamesTheValue) {
  try {
    mie_cylinder_scattering_width(MieCylinder{.radius = -1}, CylinderPolarization::tm, 1);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("radius"), std::string::npos);
  }
  EXPECT_THROW(mie_cylinder_scattering_width(MieCylinder{.radius = 1, .eps = 0}, CylinderPolarization::te, 1), ValueError);
  EXPECT_THROW(mie_cylinder_scattering_width(MieCylinder{.radius = 1}, CylinderPolarization::te, 0), ValueError);
}

}  // namespace
}  // namespace spire::elec
