// Scattering of a plane wave by an infinite circular cylinder at normal incidence: the exact series
// solution (Bohren & Huffman, Absorption and Scattering of Light by Small Particles, ch. 8.4;
// Balanis, Advanced Engineering Electromagnetics, ch. 11.5), the reference the 2D total-field/
// scattered-field runs (plane_wave.h) are checked against.
//
// Geometry and conventions: the cylinder's axis is z, through the origin; the wave travels in the
// xy plane at angle `incidence_angle` from +x (0: along +x), time dependence exp(-i omega t) as the
// rest of the package (analytic.h), normalised units (c = 1, frequencies in c/a). mu = 1 inside and
// out; the background has relative permittivity background_eps (k = 2 pi f sqrt(background_eps)),
// the cylinder eps (relative to vacuum, real and > 0: lossless) or is a perfect electric conductor.
//   tm: E along the axis (E_z; the solver's 2D TM), the axial field is E_z;
//   te: H along the axis (H_z; the solver's 2D TE), the axial field is H_z.
// With u the axial field of the incident wave of unit amplitude, u_inc = exp(i k r cos(phi - phi0)),
// the scattered and interior fields are
//   u_s  = sum_n i^n c_n H_n(k r) exp(i n (phi - phi0))         r > radius, H_n = J_n + i Y_n
//   u_in = sum_n i^n d_n J_n(m k r) exp(i n (phi - phi0))       r < radius, m = sqrt(eps / background_eps)
// (c_{-n} = c_n, d_{-n} = d_n), from the continuity of u and of (1/eps^p) du/dr (p = 0 for tm, 1
// for te: the tangential E of te is (1/(i omega eps)) dH_z/dr) at r = radius:
//   tm: c_n = [m J_n(x) J_n'(mx) - J_n'(x) J_n(mx)] / [J_n(mx) H_n'(x) - m J_n'(mx) H_n(x)]
//   te: c_n = [J_n(x) J_n'(mx) - m J_n'(x) J_n(mx)] / [m J_n(mx) H_n'(x) - J_n'(mx) H_n(x)]
//   pec: c_n = -J_n(x) / H_n(x) (tm), -J_n'(x) / H_n'(x) (te)
// with x = k radius. Bohren & Huffman's b_n (case I, tm) and a_n (case II, te) are -c_n.
//
// Cross-sections per unit length (2D "widths", in a), from the far field
// u_s ~ sqrt(2 / (pi k r)) exp(i (k r - pi/4)) T(phi), T = sum_n c_n exp(i n (phi - phi0)):
//   bistatic width   sigma(phi) = 2 pi r |u_s|^2 / |u_inc|^2 = (4/k) |T(phi)|^2
//   scattering width sigma_s = (1 / 2 pi) integral sigma dphi = (4/k) (|c_0|^2 + 2 sum_{n>=1} |c_n|^2)
//   extinction width sigma_ext = -(4/k) Re T(phi0) (the optical theorem); equal to sigma_s for the
//   lossless cylinders here (|1 + 2 c_n| = 1 term by term).
// The series is summed to n = x' + 4.05 x'^(1/3) + 10, x' = max(x, m x) (Wiscombe's criterion with
// margin), beyond which the terms are below double precision.
#pragma once
#include <complex>
#include <vector>

#include "science/elec/yee.h"

namespace spire::elec {

enum class CylinderPolarization { tm, te };

struct MieCylinder {
  double radius = 1;          // in a, > 0
  double eps = 2;             // relative permittivity of the cylinder (> 0); not read when pec
  bool pec = false;           // a perfect electric conductor
  double background_eps = 1;  // relative permittivity around it (> 0)
};

// The coefficients at one frequency, n = 0..N.
struct MieSeries {
  double k = 0;  // background wavenumber 2 pi f sqrt(background_eps)
  double m = 0;  // relative refractive index (0 for pec)
  std::vector<std::complex<double>> scattered;  // c_n
  std::vector<std::complex<double>> interior;   // d_n (empty for pec)
};

// ValueError naming the value for a radius, eps, background_eps or frequency that is not finite
// and > 0.
MieSeries mie_cylinder_series(const MieCylinder& cylinder, CylinderPolarization polarization, double frequency);

// Scattering, extinction and bistatic widths (a) at `frequency` (c/a). `angle` of the bistatic
// width is the scattering direction measured from the direction of incidence (0: forward, pi: back).
double mie_cylinder_scattering_width(const MieCylinder& cylinder, CylinderPolarization polarization,
                                     double frequency);
double mie_cylinder_extinction_width(const MieCylinder& cylinder, CylinderPolarization polarization,
                                     double frequency);
double mie_cylinder_bistatic_width(const MieCylinder& cylinder, CylinderPolarization polarization, double frequency,
                                   double angle);

// The axial field (E_z for tm, H_z for te) at r (x, y; z ignored; relative to the cylinder's axis)
// for an incident wave of unit axial amplitude, phase 0 at the axis, travelling at incidence_angle
// from +x: the total field (incident + scattered outside, interior inside; 0 inside a pec cylinder)
// and the scattered part alone (0 inside the cylinder).
std::complex<double> mie_cylinder_total_field(const MieCylinder& cylinder, CylinderPolarization polarization,
                                              double frequency, const Vec3& r, double incidence_angle = 0);
std::complex<double> mie_cylinder_scattered_field(const MieCylinder& cylinder, CylinderPolarization polarization,
                                                  double frequency, const Vec3& r, double incidence_angle = 0);

}  // namespace spire::elec
