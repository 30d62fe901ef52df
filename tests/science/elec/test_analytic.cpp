// The closed-form references of analytic.h against things computed another way: the Yee dispersion
// relation against a leapfrog run of the Yee equations written here; Fresnel against the transfer
// matrix, energy conservation and the quarter-wave stack's textbook reflectance; the Airy formula of
// an absorbing slab; the dipole and line-current fields against Maxwell's equations (finite
// differences) and their powers against numerical integration of the Poynting vector.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "engine/core/error.h"
#include "science/elec/analytic.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

// 1D Yee leapfrog (Ex at integer z, Hy at half-integer z, periodic), written independently of the
// solver: E^{n+1}_j = E^n_j - dt/dx (H_{j+1/2} - H_{j-1/2}), H^{n+1/2}_{j+1/2} = H^{n-1/2}_{j+1/2} -
// dt/dx (E_{j+1} - E_j). A discrete plane wave with the omega of yee_omega must stay exactly one.
TEST(YeeDispersion, PlaneWaveOfTheLeapfrogFollowsTheExactRelation1D) {
  const int n = 40;
  const double dx = 0.05, dt = 0.5 * dx;
  const int mode = 3;
  const double k = 2 * kPi * mode / (n * dx);
  const double omega = yee_omega(Vec3{0, 0, k}, dx, dt);
  std::vector<double> e(n), h(n);
  for (int j = 0; j < n; ++j) {
    e[j] = std::cos(k * j * dx);                              // t = 0
    h[j] = std::cos(k * (j + 0.5) * dx + omega * dt / 2);     // t = -dt/2
  }
  const int steps = 400;
  for (int s = 0; s < steps; ++s) {
    for (int j = 0; j < n; ++j) h[j] -= dt / dx * (e[(j + 1) % n] - e[j]);
    for (int j = 0; j < n; ++j) e[j] -= dt / dx * (h[j] - h[(j + n - 1) % n]);
  }
  double worst = 0;
  for (int j = 0; j < n; ++j) worst = std::max(worst, std::abs(e[j] - std::cos(k * j * dx - omega * steps * dt)));
  EXPECT_LT(worst, 1e-10);
  // The continuum omega = k would be off by far more after 400 steps.
  EXPECT_GT(std::abs(std::cos(k * 7 * dx - k * steps * dt) - std::cos(k * 7 * dx - omega * steps * dt)), 1e-4);
}

// 2D TM on a periodic lattice (Ez at (i, j), Hx at (i, j+1/2), Hy at (i+1/2, j)).
TEST(YeeDispersion, PlaneWaveOfTheLeapfrogFollowsTheExactRelation2D) {
  const int n = 24;
  const double dx = 0.1, dt = 0.6 * dx;
  const double kx = 2 * kPi * 2 / (n * dx), ky = 2 * kPi * 5 / (n * dx);
  const double omega = yee_omega(Vec3{kx, ky, 0}, dx, dt);
  // Plane wave Ez = cos(kx x + ky y - w t); H from the discrete Faraday law of the same wave.
  auto idx = [&](int i, int j) { return ((i + n) % n) * n + (j + n) % n; };
  std::vector<double> ez(n * n), hx(n * n), hy(n * n);
  const double w = 2 / dt * std::sin(omega * dt / 2);  // the discrete time derivative symbol
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      ez[idx(i, j)] = std::cos(kx * i * dx + ky * j * dx);
      // dHx/dt = -dEz/dy with the discrete symbols: Hx = (2 sin(ky dx/2)/dx) / w times the wave shifted
      // by half a cell in y and -dt/2 in time; Hy likewise with the opposite sign.
      const double ph_x = kx * i * dx + ky * (j + 0.5) * dx + omega * dt / 2;
      const double ph_y = kx * (i + 0.5) * dx + ky * j * dx + omega * dt / 2;
      hx[idx(i, j)] = (2 * std::sin(ky * dx / 2) / dx) / w * std::cos(ph_x);
      hy[idx(i, j)] = -(2 * std::sin(kx * dx / 2) / dx) / w * std::cos(ph_y);
    }
  const int steps = 200;
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        hx[idx(i, j)] -= dt / dx * (ez[idx(i, j + 1)] - ez[idx(i, j)]);
        hy[idx(i, j)] += dt / dx * (ez[idx(i + 1, j)] - ez[idx(i, j)]);
      }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        ez[idx(i, j)] += dt / dx * ((hy[idx(i, j)] - hy[idx(i - 1, j)]) - (hx[idx(i, j)] - hx[idx(i, j - 1)]));
  }
  double worst = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      worst = std::max(worst, std::abs(ez[idx(i, j)] - std::cos(kx * i * dx + ky * j * dx - omega * steps * dt)));
  EXPECT_LT(worst, 1e-10);
}

TEST(YeeDispersion, ApproachesTheContinuumFromBelowAtSecondOrder) {
  const double k = 2 * kPi;
  std::vector<double> errors;
  for (double dx : {0.05, 0.025, 0.0125}) {
    const double omega = yee_omega(Vec3{k, 0.5 * k, 0}, dx, 0.5 * dx);
    const double exact = k * std::sqrt(1.25);
    EXPECT_LT(omega, exact);
    errors.push_back(exact - omega);
  }
  EXPECT_NEAR(std::log2(errors[0] / errors[1]), 2.0, 0.02);
  EXPECT_NEAR(std::log2(errors[1] / errors[2]), 2.0, 0.02);
  // The inverse relation along an axis.
  const double omega = yee_omega(Vec3{0, 3.0, 0}, 0.1, 0.05, 1.5);
  EXPECT_NEAR(yee_wavenumber(omega, 0.1, 0.05, 1.5), 3.0, 1e-12);
}

TEST(YeeDispersion, RejectsUnstableStepsAndEvanescentFrequencies) {
  // Courant number 0.8 in 3D exceeds 1/sqrt(3) for the wave at the zone corner.
  EXPECT_THROW(yee_omega(Vec3{kPi / 0.1, kPi / 0.1, kPi / 0.1}, 0.1, 0.08), ValueError);
  EXPECT_THROW(yee_wavenumber(2 / 0.05 * std::asin(0.05 / 0.1) * 1.01, 0.1, 0.05), ValueError);
  EXPECT_THROW(yee_omega(Vec3{1, 0, 0}, -0.1, 0.05), ValueError);
}

TEST(Fresnel, NormalIncidenceBrewsterAndTotalInternalReflection) {
  const Fresnel f = fresnel(1.0, 1.5, 0.0);
  EXPECT_NEAR(f.r_s.real(), -0.2, 1e-15);
  EXPECT_NEAR(f.r_p.real(), -0.2, 1e-15);
  EXPECT_NEAR(f.R_s + f.T_s, 1.0, 1e-14);
  const double tb = brewster_angle(1.0, 1.5);
  EXPECT_NEAR(tb, std::atan(1.5), 1e-15);
  EXPECT_LT(fresnel(1.0, 1.5, tb).R_p, 1e-30);
  EXPECT_GT(fresnel(1.0, 1.5, tb).R_s, 0.1);
  // Beyond the critical angle asin(1/1.5) all power reflects.
  const Fresnel tir = fresnel(1.5, 1.0, 0.8);
  EXPECT_NEAR(tir.R_s, 1.0, 1e-14);
  EXPECT_NEAR(tir.R_p, 1.0, 1e-14);
  EXPECT_NEAR(tir.T_s, 0.0, 1e-14);
  EXPECT_THROW(fresnel(1.0, 1.5, 2.0), ValueError);
  EXPECT_THROW(brewster_angle(0.0, 1.5), ValueError);
}

TEST(TransferMatrix, OneInterfaceEqualsFresnel) {
  for (cd n2 : {cd(1.5, 0), cd(3.4, 0), cd(2.0, 0.3), cd(0.7, 0)}) {
    for (double theta : {0.0, 0.3, 0.7, 1.2}) {
      const Fresnel f = fresnel(1.2, n2, theta);
      LayeredMedium m;
      m.incident.epsilon = 1.2 * 1.2;
      m.substrate.epsilon = n2 * n2;
      const StackResponse s = transfer_matrix(m, 2.0, theta, Polarization::s);
      const StackResponse p = transfer_matrix(m, 2.0, theta, Polarization::p);
      EXPECT_LT(std::abs(s.r - f.r_s), 1e-13) << n2 << " " << theta;
      EXPECT_LT(std::abs(p.r - f.r_p), 1e-13) << n2 << " " << theta;
      EXPECT_LT(std::abs(s.t - f.t_s), 1e-13);
      // The matrix's p transmission is the ratio of tangential E: t_p cos(theta_2) / cos(theta).
      const cd c2 = std::sqrt(n2 * n2 - std::pow(1.2 * std::sin(theta), 2)) / n2;
      if (std::abs(c2.imag()) < 1e-14) {
        EXPECT_LT(std::abs(p.t - f.t_p * c2 / std::cos(theta)), 1e-13);
      }
      EXPECT_NEAR(s.R, f.R_s, 1e-13);
      EXPECT_NEAR(p.R, f.R_p, 1e-13);
      EXPECT_NEAR(s.T, f.T_s, 1e-13);
      EXPECT_NEAR(p.T, f.T_p, 1e-13);
    }
  }
  // Brewster's zero seen through the matrix.
  LayeredMedium m;
  m.substrate.epsilon = 2.25;
  EXPECT_LT(transfer_matrix(m, 1.0, brewster_angle(1.0, 1.5), Polarization::p).R, 1e-30);
}

TEST(TransferMatrix, LosslessStacksConserveEnergy) {
  LayeredMedium m;
  m.incident.epsilon = 1.0;
  m.layers = {{2.1, 1, 0.31}, {11.56, 1, 0.17}, {1.7, 1, 0.53}, {6.0, 1, 0.08}};
  m.substrate.epsilon = 2.25;
  for (Polarization pol : {Polarization::s, Polarization::p})
    for (double theta : {0.0, 0.4, 0.9, 1.4})
      for (double omega : {0.5, 3.0, 7.7}) {
        const StackResponse r = transfer_matrix(m, omega, theta, pol);
        EXPECT_NEAR(r.R + r.T, 1.0, 1e-12) << theta << " " << omega;
        EXPECT_NEAR(r.A, 0.0, 1e-12);
      }
}

// Macleod / Hecht: N pairs of quarter-wave layers (H then L) on a substrate have the admittance
// Y = (nH/nL)^(2N) n_s at the design wavelength, R = ((n0 - Y)/(n0 + Y))^2.
TEST(TransferMatrix, QuarterWaveStackHasTheTextbookReflectance) {
  const double nh = 2.3, nl = 1.38, ns = 1.52, omega = 2 * kPi / 0.6;  // design wavelength 0.6
  for (int pairs : {1, 3, 6}) {
    LayeredMedium m;
    m.substrate.epsilon = ns * ns;
    for (int q = 0; q < pairs; ++q) {
      m.layers.push_back({nh * nh, 1, 0.6 / (4 * nh)});
      m.layers.push_back({nl * nl, 1, 0.6 / (4 * nl)});
    }
    const double y = std::pow(nh / nl, 2 * pairs) * ns;
    const double expected = std::pow((1 - y) / (1 + y), 2);
    EXPECT_NEAR(transfer_matrix(m, omega, 0.0, Polarization::s).R, expected, 1e-12) << pairs;
    EXPECT_NEAR(transfer_matrix(m, omega, 0.0, Polarization::p).R, expected, 1e-12) << pairs;
  }
}

// An absorbing slab at normal incidence: the Airy sum r = (r12 + r23 e^{2i delta}) / (1 + r12 r23
// e^{2i delta}), delta = omega n d (exp(-i omega t): the round trip multiplies by e^{2 i k d}).
TEST(TransferMatrix, AbsorbingSlabMatchesTheAirySum) {
  const cd n(2.0, 0.4);
  const double d = 0.37, omega = 4.1, n1 = 1.0, n3 = 1.45;
  const cd r12 = (n1 - n) / (n1 + n), r23 = (n - n3) / (n + n3);
  const cd t12 = 2 * n1 / (n1 + n), t23 = 2.0 * n / (n + n3);
  const cd e2 = std::exp(cd(0, 2) * omega * n * d);
  const cd r = (r12 + r23 * e2) / (1.0 + r12 * r23 * e2);
  const cd t = t12 * t23 * std::exp(cd(0, 1) * omega * n * d) / (1.0 + r12 * r23 * e2);
  LayeredMedium m;
  m.layers = {{n * n, 1, d}};
  m.substrate.epsilon = n3 * n3;
  const StackResponse s = transfer_matrix(m, omega, 0.0, Polarization::s);
  EXPECT_LT(std::abs(s.r - r), 1e-13);
  EXPECT_LT(std::abs(s.t - t), 1e-13);
  EXPECT_NEAR(s.T, n3 * std::norm(t), 1e-13);
  EXPECT_GT(s.A, 0.05);
  // Errors name what was wrong.
  m.incident.epsilon = cd(1, 0.1);
  EXPECT_THROW(transfer_matrix(m, omega, 0.0, Polarization::s), ValueError);
  m.incident.epsilon = 1;
  m.layers[0].thickness = -1;
  EXPECT_THROW(transfer_matrix(m, omega, 0.0, Polarization::s), ValueError);
}

// curl F by central differences of step h.
ComplexVec3 curl(const std::function<ComplexVec3(Vec3)>& f, Vec3 r, double h, bool planar) {
  auto d = [&](int a, int c) {
    if (planar && a == 2) return cd(0);
    Vec3 p = r, m = r;
    p[a] += h;
    m[a] -= h;
    return (f(p)[c] - f(m)[c]) / (2 * h);
  };
  return {d(1, 2) - d(2, 1), d(2, 0) - d(0, 2), d(0, 1) - d(1, 0)};
}

TEST(Dipole, FieldsSatisfyMaxwellAndRadiateTheAnalyticPower) {
  const double omega = 2 * kPi;
  const ComplexVec3 p = {cd(0.3, -0.2), cd(0.1, 0.4), cd(1.0, 0.0)};
  auto E = [&](Vec3 r) { return dipole_fields(p, omega, r).E; };
  auto H = [&](Vec3 r) { return dipole_fields(p, omega, r).H; };
  for (Vec3 r : {Vec3{0.3, 0.2, -0.1}, Vec3{1.1, -0.7, 0.4}, Vec3{-2.0, 0.5, 3.0}}) {
    const ComplexVec3 ce = curl(E, r, 1e-4, false), ch = curl(H, r, 1e-4, false);
    const PhasorFields f = dipole_fields(p, omega, r);
    for (int a = 0; a < 3; ++a) {
      const double scale = std::abs(omega * f.H[a]) + std::abs(omega * f.E[a]) + 1e-3;
      EXPECT_LT(std::abs(ce[a] - cd(0, omega) * f.H[a]), 1e-6 * scale);   // curl E = i w H
      EXPECT_LT(std::abs(ch[a] + cd(0, omega) * f.E[a]), 1e-6 * scale);   // curl H = -i w E
    }
  }
  // Far away the exact field approaches the far field as 1/(kr).
  const Vec3 far{300.0, -200.0, 150.0};
  const PhasorFields a = dipole_fields(p, omega, far), b = dipole_far_fields(p, omega, far);
  double diff = 0, size = 0;
  for (int c = 0; c < 3; ++c) {
    diff += std::norm(a.E[c] - b.E[c]) + std::norm(a.H[c] - b.H[c]);
    size += std::norm(b.E[c]) + std::norm(b.H[c]);
  }
  EXPECT_LT(std::sqrt(diff / size), 2.0 / (omega * 390));
  // Power through a sphere of radius 0.7 (near zone) by Gauss-Legendre x trapezoid quadrature.
  const int nt = 24, np = 48;
  std::vector<double> mu(nt), w(nt);
  for (int i = 0; i < nt; ++i) {  // Legendre nodes by Newton's method
    double x = std::cos(kPi * (i + 0.75) / (nt + 0.5));
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = x;
      for (int l = 2; l <= nt; ++l) {
        const double p2 = ((2 * l - 1) * x * p1 - (l - 1) * p0) / l;
        p0 = p1;
        p1 = p2;
      }
      const double dp = nt * (x * p1 - p0) / (x * x - 1);
      const double dx = p1 / dp;
      x -= dx;
      if (std::abs(dx) < 1e-15) {
        mu[i] = x;
        w[i] = 2 / ((1 - x * x) * dp * dp);
        break;
      }
    }
  }
  const double R = 0.7;
  double power = 0;
  for (int i = 0; i < nt; ++i)
    for (int j = 0; j < np; ++j) {
      const double st = std::sqrt(1 - mu[i] * mu[i]), ph = 2 * kPi * j / np;
      const Vec3 n{st * std::cos(ph), st * std::sin(ph), mu[i]};
      const PhasorFields f = dipole_fields(p, omega, Vec3{R * n.x, R * n.y, R * n.z});
      const ComplexVec3 s = {f.E[1] * std::conj(f.H[2]) - f.E[2] * std::conj(f.H[1]),
                             f.E[2] * std::conj(f.H[0]) - f.E[0] * std::conj(f.H[2]),
                             f.E[0] * std::conj(f.H[1]) - f.E[1] * std::conj(f.H[0])};
      power += 0.5 * (s[0] * n.x + s[1] * n.y + s[2] * n.z).real() * R * R * w[i] * 2 * kPi / np;
    }
  EXPECT_NEAR(power / dipole_power(p, omega), 1.0, 1e-10);
  // sin^2 pattern of a z dipole.
  const ComplexVec3 pz = {0, 0, 1};
  EXPECT_NEAR(dipole_power_per_solid_angle(pz, omega, Vec3{1, 0, 1}),
              std::pow(omega, 4) / (32 * kPi * kPi) * 0.5, 1e-12);
  // Current element: p = i I l / omega, the power omega^2 |I l|^2 / (12 pi).
  const ComplexVec3 il = {0, 0, cd(2.0, 0)};
  EXPECT_NEAR(dipole_power(dipole_moment_of_current(il, omega), omega), omega * omega * 4 / (12 * kPi), 1e-12);
}

TEST(LineCurrent, FieldsSatisfyMaxwellAndRadiateTheAnalyticPower) {
  const double omega = 3.0;
  for (ComplexVec3 current : {ComplexVec3{0, 0, cd(1.0, 0.5)}, ComplexVec3{cd(0.7, 0), cd(0, -0.4), 0}}) {
    auto E = [&](Vec3 r) { return line_current_fields(current, omega, r).E; };
    auto H = [&](Vec3 r) { return line_current_fields(current, omega, r).H; };
    for (Vec3 r : {Vec3{0.3, 0.2, 0}, Vec3{-1.1, 0.7, 0}, Vec3{2.0, -3.5, 0}}) {
      const ComplexVec3 ce = curl(E, r, 1e-4, true), ch = curl(H, r, 1e-4, true);
      const PhasorFields f = line_current_fields(current, omega, r);
      for (int a = 0; a < 3; ++a) {
        const double scale = std::abs(omega * f.H[a]) + std::abs(omega * f.E[a]) + 1e-3;
        EXPECT_LT(std::abs(ce[a] - cd(0, omega) * f.H[a]), 1e-6 * scale);
        EXPECT_LT(std::abs(ch[a] + cd(0, omega) * f.E[a]), 1e-6 * scale);
      }
    }
    const double R = 0.9;
    const int np = 256;
    double power = 0;
    for (int j = 0; j < np; ++j) {
      const double ph = 2 * kPi * j / np;
      const PhasorFields f = line_current_fields(current, omega, Vec3{R * std::cos(ph), R * std::sin(ph), 0});
      const cd sx = f.E[1] * std::conj(f.H[2]) - f.E[2] * std::conj(f.H[1]);
      const cd sy = f.E[2] * std::conj(f.H[0]) - f.E[0] * std::conj(f.H[2]);
      power += 0.5 * (sx * std::cos(ph) + sy * std::sin(ph)).real() * R * 2 * kPi / np;
    }
    EXPECT_NEAR(power / line_current_power(current, omega), 1.0, 1e-10);
  }
}

}  // namespace
}  // namespace spire::elec
