// Reflectance spectra by Meep's two-run flux normalisation, for the physics tests: a plane wave from
// a current sheet (a point in 1D, a line along x in 2D with the Bloch phase exp(i 2 pi kx x), so
// that at frequency f the wave travels at sin(theta) = kx / f) meets a half-space or slab; run 1
// without it records the incident flux through a plane between sheet and interface, run 2 with it
// loads minus run 1's DFTs there and measures the reflected flux. R(f) = -reflected / incident.
//
// Layout along the propagation axis (z in 1D, y in 2D), in a: PML 1 thick at both ends of a cell
// from -3 to 3, the sheet at -1.5, the flux plane at -1, the scatterer from 0 upwards.
#pragma once
#include <cmath>
#include <complex>
#include <algorithm>
#include <memory>
#include <numbers>
#include <vector>

#include "science/elec/monitors.h"
#include "science/elec/problem.h"

namespace spire::elec::testing {

struct ReflectionSetup {
  Dimensions dimensions = Dimensions::one;
  double resolution = 40;
  double kx = 0;            // Bloch wave number along x (2D only), 1/a
  double width = 0.25;      // cell width along x (2D)
  double fcen = 1, df = 1;  // the Gaussian pulse and the monitored band
  int nfreq = 21;
  double run_after = 40;    // time run after the source ends
};

// The reflectance spectrum of `medium` objects (placed in the same frame as the header comment).
inline std::vector<double> reflectance(const ReflectionSetup& s, const std::vector<GeometricObject>& scatterer,
                                       std::vector<double>* frequencies = nullptr) {
  const bool one = s.dimensions == Dimensions::one;
  const int along = one ? 2 : 1;  // the propagation axis
  const double kx = s.kx;
  // Whole cells across x, so that the sheet and the flux line span the cell exactly.
  const double width = std::max(1.0, std::round(s.width * s.resolution)) / s.resolution;
  auto problem = [&](bool with_scatterer) {
    Problem p;
    p.dimensions = s.dimensions;
    p.cell_size = one ? Vec3{0, 0, 6} : Vec3{width, 6, 0};
    p.resolution = s.resolution;
    p.boundaries.set_pml(along, 1.0);
    if (!one) p.boundaries.set_bloch(0, kx);
    if (with_scatterer)
      for (const GeometricObject& o : scatterer) p.geometry.add(o.shape, o.medium);
    auto pulse = std::make_shared<GaussianSource>(s.fcen, s.df);
    Vec3 center, size;
    center[along] = -1.5;
    if (!one) size.x = width;
    // TM carries Ez (s polarisation), TE Hz (p polarisation), 1D Ex.
    const Component c = one ? Component::Ex : s.dimensions == Dimensions::two_tm ? Component::Ez : Component::Hz;
    p.sources.push_back(current_sheet(c, center, size, pulse, 1.0, [kx](const Vec3& r) {
      return std::exp(std::complex<double>(0, 2 * std::numbers::pi * kx * r.x));
    }));
    return p;
  };
  const std::vector<double> freqs = frequency_list(s.fcen, s.df, s.nfreq);
  if (frequencies) *frequencies = freqs;
  FluxRegion plane;
  plane.center[along] = -1.0;
  if (!one) plane.size.x = width;
  const double until = std::make_shared<GaussianSource>(s.fcen, s.df)->end_time() + s.run_after;

  Simulation incident = build(problem(false));
  std::vector<double> incident_flux;
  FluxData incident_data;
  {
    Monitors m(incident);
    Flux& flux = m.add_flux({plane}, freqs);
    incident.run(until);
    incident_flux = flux.flux();
    incident_data = flux.data();
  }
  Simulation scattered = build(problem(true));
  Monitors m(scattered);
  Flux& flux = m.add_flux({plane}, freqs);
  flux.load_minus_data(incident_data);
  scattered.run(until);
  const std::vector<double> reflected = flux.flux();
  std::vector<double> R(freqs.size());
  for (size_t i = 0; i < freqs.size(); ++i) R[i] = -reflected[i] / incident_flux[i];
  return R;
}

// The half-space from the interface at 0 upwards along the propagation axis.
inline GeometricObject half_space(Dimensions d, const Medium& medium) {
  const bool one = d == Dimensions::one;
  Block b;
  b.center = one ? Vec3{0, 0, 2} : Vec3{0, 2, 0};
  b.size = one ? Vec3{kInfinity, kInfinity, 4} : Vec3{kInfinity, 4, kInfinity};
  return {b, medium};
}

// The exact reflectance of the Yee lattice at a flat interface between dielectrics e1 (incident side)
// and e2 whose plane holds tangential-E samples, as the reflection tests lay it out (the interface
// at 0, a whole number of cells from the cell's edge): those samples get the subpixel average
// <eps> = (e1 + e2) / 2 (parallel component, half covered), every other sample lies wholly in one
// medium. Fields ~ exp(i (2 pi kx x - omega t)); in each medium the discrete plane waves exp(+-i q m)
// along the normal obey (2/dx)^2 sin^2(q dx/2) = e Omega^2 - Kx^2, with Omega = (2/dt) sin(omega dt/2)
// and Kx = (2/dx) sin(2 pi kx dx / 2) the lattice's symbols. Matching them through the difference
// equations at the interface gives r:
//   s (E normal to the plane of incidence; 1D and 2D TM, E on the interface samples): the E equation
//     (e0 Omega^2 - Kx^2) dx^2 E_0 = 2 E_0 - E_1 - E_-1 at the interface sample, E continuous;
//   p (2D TE, in Hz at y = (m + 1/2) dx): the H equations of the two samples either side,
//     Omega^2 H_m = Kx^2 a_y H_m + [a_x(m) (H_m - H_{m-1}) + a_x(m+1) (H_m - H_{m+1})] / dx^2,
//     a = 1/eps at the neighbouring E samples (1/<eps> for the Ex sample on the interface).
// The power reflectance is |r|^2 (the two-run flux ratio of waves of the same |q| in one medium).
inline double discrete_reflectance(bool s_pol, double res, double courant, double f, double kx, double e1, double e2) {
  using cd = std::complex<double>;
  const double dx = 1 / res, dt = courant * dx, pi = std::numbers::pi;
  const double W = 2 / dt * std::sin(pi * f * dt);
  const double Kx = 2 / dx * std::sin(pi * kx * dx);
  auto q = [&](double e) { cd rhs = (e * W * W - Kx * Kx) * dx * dx / 4; return 2.0 * std::asin(std::sqrt(rhs)); };  // q dx
  const cd q1 = q(e1), q2 = q(e2), I(0, 1);
  const double e0 = (e1 + e2) / 2;
  if (s_pol) {
    // (e0 W^2 - Kx^2) dx^2 E0 = 2E0 - E1 - E_{-1};  E0 = 1 + r = t, E1 = t e^{iq2}, E_{-1} = e^{-iq1} + r e^{iq1}
    const double A = (e0 * W * W - Kx * Kx) * dx * dx;
    // A (1 + r) = 2(1+r) - (1+r) e^{iq2} - e^{-iq1} - r e^{iq1}
    // r (A - 2 + e^{iq2} + e^{iq1}) = -(A - 2 + e^{iq2} + e^{-iq1})
    const cd r = -(A - 2.0 + std::exp(I * q2) + std::exp(-I * q1)) / (A - 2.0 + std::exp(I * q2) + std::exp(I * q1));
    return std::norm(r);
  }
  // p: H_m (Hz at (m + 1/2) dx), m <= -1: e^{iq1 m} + r e^{-iq1 m}; m >= 0: t e^{iq2 m}; a0 = 1/e0
  const double a0 = 1 / e0, a1 = 1 / e1, a2 = 1 / e2, h2 = dx * dx;
  // H_{-1} = e^{-iq1} + r e^{iq1}, H_{-2} = e^{-2iq1} + r e^{2iq1}: the coefficients of r below.
  // eq m=-1: (W^2 - Kx^2 a1) h2 Hm1 = a0 (Hm1 - H0) + a1 (Hm1 - Hm2)
  // eq m=0 : (W^2 - Kx^2 a2) h2 H0 = a2 (H0 - H1) + a0 (H0 - Hm1), H0 = t, H1 = t e^{iq2}
  // linear in (r, t): write as M [r t]^T = b
  const cd B1 = (W * W - Kx * Kx * a1) * h2, B2 = (W * W - Kx * Kx * a2) * h2;
  // eq1: (B1 - a0 - a1) Hm1 + a0 t + a1 Hm2 = 0
  // Hm1 = e^{-iq1} + r e^{iq1}; Hm2 = e^{-2iq1} + r e^{2iq1}
  const cd m11 = (B1 - a0 - a1) * std::exp(I * q1) + a1 * std::exp(2.0 * I * q1), m12 = a0;
  const cd b1 = -((B1 - a0 - a1) * std::exp(-I * q1) + a1 * std::exp(-2.0 * I * q1));
  // eq2: (B2 - a2 - a0 + a2 e^{iq2}) t + a0 Hm1 = 0
  const cd m21 = a0 * std::exp(I * q1), m22 = B2 - a2 - a0 + a2 * std::exp(I * q2);
  const cd b2 = -a0 * std::exp(-I * q1);
  const cd det = m11 * m22 - m12 * m21;
  const cd r = (b1 * m22 - m12 * b2) / det;
  return std::norm(r);
}

}  // namespace spire::elec::testing
