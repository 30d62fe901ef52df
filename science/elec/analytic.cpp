// Closed-form references (analytic.h). Each formula is written out in the form of its textbook
// source, independently of the solver's and monitors' code, so the tests that compare them measure
// something.
//
// Dipole power (normalised units, eps0 = mu0 = c = 1, exp(-i omega t)): the far field of the point
// dipole is E = k^2/(4 pi) (n x p) x n e^{ikr}/r, H = k^2/(4 pi) n x p e^{ikr}/r, so the time-averaged
// flux density is 1/2 Re(E x H*).n = k^4 |n x p|^2 / (32 pi^2 r^2); integrating |n x p|^2 over the
// sphere gives (8 pi / 3) |p|^2 and P = k^4 |p|^2 / (12 pi) = omega^4 |p|^2 / (12 pi). With J = dP/dt
// -> -i omega p, a current element I l has p = i I l / omega and P = omega^2 |I l|^2 / (12 pi).
//
// Line current: with the Hankel asymptotics H_n(x) ~ sqrt(2/(pi x)) e^{i(x - n pi/2 - pi/4)}, the TM far
// field gives 1/2 Re(-Ez H_phi*) = omega k |I|^2 / (16 pi k rho); times 2 pi rho: P = omega |I|^2 / 8.
// TE: |I_phi|^2 = |I|^2 sin^2 averages to half of that: omega |I|^2 / 16.
#include "science/elec/analytic.h"

#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

void check_finite_positive(double v, const char* who, const char* what) {
  SPIRE_CHECK(std::isfinite(v) && v > 0, ValueError, who, ": ", what, " must be finite and > 0, got ", v);
}

// sqrt with the branch Im >= 0 (and Re >= 0 when real): the forward, decaying wave for exp(-i omega t).
cd forward_sqrt(cd z) {
  cd s = std::sqrt(z);
  if (s.imag() < 0 || (s.imag() == 0 && s.real() < 0)) s = -s;
  return s;
}

ComplexVec3 cross(const ComplexVec3& a, const ComplexVec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
ComplexVec3 to_complex(Vec3 v) { return {cd(v.x), cd(v.y), cd(v.z)}; }
cd dot(const ComplexVec3& a, const ComplexVec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

void check_angle(double theta, const char* who) {
  SPIRE_CHECK(std::isfinite(theta) && theta >= 0 && theta < kPi / 2, ValueError, who,
              ": the angle of incidence must be in [0, pi/2) radians, got ", theta);
}

}  // namespace

// ---- Yee dispersion ----------------------------------------------------------------------------

double yee_omega(Vec3 k, double dx, double dt, double index) {
  check_finite_positive(dx, "yee_omega", "dx");
  check_finite_positive(dt, "yee_omega", "dt");
  check_finite_positive(index, "yee_omega", "the refractive index");
  double sum = 0;
  for (int a = 0; a < 3; ++a) {
    const double s = std::sin(k[a] * dx / 2) / dx;
    sum += s * s;
  }
  const double arg = dt * std::sqrt(sum) / index;  // = sin(omega dt / 2)
  SPIRE_CHECK(arg <= 1, ValueError, "yee_omega: no real frequency for this wave vector: sin(omega dt/2) would be ",
              arg, " > 1 (dt = ", dt, " is above the stability limit for dx = ", dx, ", n = ", index, ")");
  return 2 / dt * std::asin(arg);
}

double yee_wavenumber(double omega, double dx, double dt, double index) {
  check_finite_positive(dx, "yee_wavenumber", "dx");
  check_finite_positive(dt, "yee_wavenumber", "dt");
  check_finite_positive(index, "yee_wavenumber", "the refractive index");
  SPIRE_CHECK(std::isfinite(omega) && omega >= 0, ValueError, "yee_wavenumber: omega must be finite and >= 0, got ",
              omega);
  const double arg = index * dx / dt * std::sin(omega * dt / 2);  // = sin(k dx / 2)
  const double cutoff = dt / (index * dx) <= 1 ? 2 / dt * std::asin(dt / (index * dx)) : kPi / dt;
  SPIRE_CHECK(omega * dt <= kPi && arg <= 1, ValueError, "yee_wavenumber: omega = ", omega,
              " is above the lattice's cutoff ", cutoff, " along an axis (dx = ", dx, ", dt = ", dt, ", n = ", index,
              "): the discrete wave is evanescent there");
  return 2 / dx * std::asin(arg);
}

// ---- Fresnel -----------------------------------------------------------------------------------

Fresnel fresnel(double n1, cd n2, double theta) {
  check_finite_positive(n1, "fresnel", "n1");
  SPIRE_CHECK(std::isfinite(n2.real()) && std::isfinite(n2.imag()) && n2 != cd(0), ValueError,
              "fresnel: n2 must be finite and nonzero, got ", n2);
  check_angle(theta, "fresnel");
  const double c1 = std::cos(theta), s1 = std::sin(theta);
  // n2 c2 = sqrt(n2^2 - n1^2 sin^2): Snell's law with the decaying branch.
  const cd n2c2 = forward_sqrt(n2 * n2 - n1 * n1 * s1 * s1);
  const cd c2 = n2c2 / n2;
  Fresnel f;
  f.r_s = (n1 * c1 - n2c2) / (n1 * c1 + n2c2);
  f.t_s = 2 * n1 * c1 / (n1 * c1 + n2c2);
  f.r_p = (n1 * c2 - n2 * c1) / (n1 * c2 + n2 * c1);
  f.t_p = 2 * n1 * c1 / (n1 * c2 + n2 * c1);
  f.R_s = std::norm(f.r_s);
  f.R_p = std::norm(f.r_p);
  f.T_s = n2c2.real() * std::norm(f.t_s) / (n1 * c1);
  f.T_p = (n2 * std::conj(c2)).real() * std::norm(f.t_p) / (n1 * c1);
  return f;
}

double brewster_angle(double n1, double n2) {
  check_finite_positive(n1, "brewster_angle", "n1");
  check_finite_positive(n2, "brewster_angle", "n2");
  return std::atan2(n2, n1);
}

// ---- Transfer matrix ---------------------------------------------------------------------------

StackResponse transfer_matrix(const LayeredMedium& medium, double omega, double theta, Polarization pol) {
  const char* who = "transfer_matrix";
  check_finite_positive(omega, who, "omega");
  check_angle(theta, who);
  auto check_layer = [&](const Layer& l, const std::string& name) {
    for (cd v : {l.epsilon, l.mu})
      SPIRE_CHECK(std::isfinite(v.real()) && std::isfinite(v.imag()) && v != cd(0), ValueError, who, ": ", name,
                  " has epsilon = ", l.epsilon, ", mu = ", l.mu, "; both must be finite and nonzero");
  };
  const Layer& inc = medium.incident;
  check_layer(inc, "the incident medium");
  SPIRE_CHECK(inc.epsilon.imag() == 0 && inc.mu.imag() == 0 && inc.epsilon.real() > 0 && inc.mu.real() > 0,
              ValueError, who, ": the incident medium must be lossless (real epsilon > 0 and mu > 0), got epsilon = ",
              inc.epsilon, ", mu = ", inc.mu);
  check_layer(medium.substrate, "the substrate");
  for (size_t j = 0; j < medium.layers.size(); ++j) {
    check_layer(medium.layers[j], detail::cat("layer ", j));
    SPIRE_CHECK(std::isfinite(medium.layers[j].thickness) && medium.layers[j].thickness >= 0, ValueError, who,
                ": layer ", j, " has thickness ", medium.layers[j].thickness, "; it must be finite and >= 0");
  }
  // The tangential wavenumber is conserved: n_inc sin(theta) in every layer.
  const double n_inc = std::sqrt(inc.epsilon.real() * inc.mu.real());
  const double beta2 = std::pow(n_inc * std::sin(theta), 2);
  // Tilted admittance: H_tan = eta E_tan (in units of the vacuum admittance, = 1 here).
  auto admittance = [&](const Layer& l, cd& q) {
    q = forward_sqrt(l.epsilon * l.mu - beta2);  // n cos(theta_j)
    SPIRE_CHECK(q != cd(0), ValueError, who, ": grazing propagation (n cos theta = 0) in a layer of epsilon ",
                l.epsilon);
    return pol == Polarization::s ? q / l.mu : l.epsilon / q;
  };
  cd q;
  const cd eta0 = admittance(inc, q);
  const cd eta_sub = admittance(medium.substrate, q);
  // [B; C] = M_1 M_2 ... M_N [1; eta_sub]: the tangential (E, H) at the first face for unit E at the
  // substrate. With fields A e^{i k z} + B e^{-i k z} in a layer (exp(-i omega t)), a layer of phase
  // thickness delta = omega q d relates its faces by M = [[cos d, -i sin d / eta], [-i eta sin d, cos d]].
  cd B = 1, C = eta_sub;
  for (size_t j = medium.layers.size(); j-- > 0;) {
    const Layer& l = medium.layers[j];
    const cd eta = admittance(l, q);
    const cd delta = omega * q * l.thickness;
    const cd cs = std::cos(delta), sn = std::sin(delta);
    const cd B2 = cs * B - cd(0, 1) * sn / eta * C;
    const cd C2 = -cd(0, 1) * eta * sn * B + cs * C;
    B = B2;
    C = C2;
  }
  StackResponse out;
  const cd denom = eta0 * B + C;
  out.r = (eta0 * B - C) / denom;
  out.t = 2.0 * eta0 / denom;
  out.R = std::norm(out.r);
  // Transmitted power Re(E H*) at the substrate per incident power eta0 |E_inc|^2.
  out.T = eta_sub.real() * std::norm(out.t) / eta0.real();
  out.A = 1 - out.R - out.T;
  return out;
}

// ---- Point dipole ------------------------------------------------------------------------------

PhasorFields dipole_fields(const ComplexVec3& p, double omega, Vec3 r) {
  check_finite_positive(omega, "dipole_fields", "omega");
  const double rr = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  SPIRE_CHECK(rr > 0, ValueError, "dipole_fields: the field point must differ from the dipole's position");
  const double k = omega;
  const ComplexVec3 n = to_complex(Vec3{r.x / rr, r.y / rr, r.z / rr});
  const cd phase = std::exp(cd(0, k * rr));
  const ComplexVec3 nxp = cross(n, p);
  const ComplexVec3 nxpxn = cross(nxp, n);
  const cd ndp = dot(n, p);
  const cd near = (1 / (rr * rr * rr) - cd(0, k) / (rr * rr)) * phase;
  const cd far = k * k * phase / rr;
  const cd h_factor = k * k / (4 * kPi) * phase / rr * (1.0 - 1.0 / cd(0, k * rr));
  PhasorFields f;
  for (int a = 0; a < 3; ++a) {
    f.H[a] = h_factor * nxp[a];
    f.E[a] = (far * nxpxn[a] + (3.0 * n[a] * ndp - p[a]) * near) / (4 * kPi);
  }
  return f;
}

PhasorFields dipole_far_fields(const ComplexVec3& p, double omega, Vec3 r) {
  check_finite_positive(omega, "dipole_far_fields", "omega");
  const double rr = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  SPIRE_CHECK(rr > 0, ValueError, "dipole_far_fields: the field point must differ from the dipole's position");
  const double k = omega;
  const ComplexVec3 n = to_complex(Vec3{r.x / rr, r.y / rr, r.z / rr});
  const cd g = k * k / (4 * kPi) * std::exp(cd(0, k * rr)) / rr;
  const ComplexVec3 nxp = cross(n, p), nxpxn = cross(nxp, n);
  PhasorFields f;
  for (int a = 0; a < 3; ++a) {
    f.H[a] = g * nxp[a];
    f.E[a] = g * nxpxn[a];
  }
  return f;
}

ComplexVec3 dipole_moment_of_current(const ComplexVec3& current_moment, double omega) {
  check_finite_positive(omega, "dipole_moment_of_current", "omega");
  ComplexVec3 p;
  for (int a = 0; a < 3; ++a) p[a] = cd(0, 1) * current_moment[a] / omega;
  return p;
}

double dipole_power(const ComplexVec3& p, double omega) {
  check_finite_positive(omega, "dipole_power", "omega");
  const double p2 = std::norm(p[0]) + std::norm(p[1]) + std::norm(p[2]);
  return std::pow(omega, 4) * p2 / (12 * kPi);
}

double dipole_power_per_solid_angle(const ComplexVec3& p, double omega, Vec3 direction) {
  check_finite_positive(omega, "dipole_power_per_solid_angle", "omega");
  const double len = std::sqrt(direction.x * direction.x + direction.y * direction.y + direction.z * direction.z);
  SPIRE_CHECK(len > 0, ValueError, "dipole_power_per_solid_angle: the direction must be nonzero");
  const ComplexVec3 n = to_complex(Vec3{direction.x / len, direction.y / len, direction.z / len});
  const ComplexVec3 nxp = cross(n, p);
  const double s = std::norm(nxp[0]) + std::norm(nxp[1]) + std::norm(nxp[2]);
  return std::pow(omega, 4) * s / (32 * kPi * kPi);
}

// ---- Line current ------------------------------------------------------------------------------

PhasorFields line_current_fields(const ComplexVec3& current, double omega, Vec3 r) {
  check_finite_positive(omega, "line_current_fields", "omega");
  const double rho = std::hypot(r.x, r.y);
  SPIRE_CHECK(rho > 0, ValueError, "line_current_fields: the field point must be off the line current");
  const double k = omega, x = k * rho;
  const cd h0(std::cyl_bessel_j(0.0, x), std::cyl_neumann(0.0, x));
  const cd h1(std::cyl_bessel_j(1.0, x), std::cyl_neumann(1.0, x));
  const double cphi = r.x / rho, sphi = r.y / rho;
  // Polar components of the in-plane current at the field point.
  const cd i_rho = current[0] * cphi + current[1] * sphi;
  const cd i_phi = -current[0] * sphi + current[1] * cphi;
  const cd iz = current[2];
  const cd ik(0, k);
  // TM part.
  const cd ez = -omega / 4 * h0 * iz;
  const cd h_phi = ik / 4.0 * h1 * iz;
  // TE part.
  const cd hz = -ik / 4.0 * h1 * i_phi;
  const cd e_rho = -h1 * i_rho / (4 * rho);
  const cd e_phi = -omega / 4 * (h0 - h1 / x) * i_phi;
  PhasorFields f;
  f.E = {e_rho * cphi - e_phi * sphi, e_rho * sphi + e_phi * cphi, ez};
  f.H = {-h_phi * sphi, h_phi * cphi, hz};
  return f;
}

double line_current_power(const ComplexVec3& current, double omega) {
  check_finite_positive(omega, "line_current_power", "omega");
  return omega * std::norm(current[2]) / 8 + omega * (std::norm(current[0]) + std::norm(current[1])) / 16;
}

}  // namespace spire::elec
