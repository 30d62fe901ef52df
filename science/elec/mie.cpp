// The cylinder's series solution (mie.h): coefficients from the interface conditions, widths and
// fields as sums over them. Bessel functions of real argument from <cmath> (std::cyl_bessel_j,
// std::cyl_neumann): real eps keeps every argument real.
#include "science/elec/mie.h"

#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

double bessel_j(int n, double x) { return std::cyl_bessel_j(double(n), x); }
// J_n'(x) = (J_{n-1}(x) - J_{n+1}(x)) / 2, J_0' = -J_1.
double bessel_j_prime(int n, double x) {
  return n == 0 ? -bessel_j(1, x) : 0.5 * (bessel_j(n - 1, x) - bessel_j(n + 1, x));
}
// The outgoing Hankel function H_n^(1) = J_n + i Y_n (outgoing for exp(-i omega t)) and its derivative.
cd hankel(int n, double x) { return {bessel_j(n, x), std::cyl_neumann(double(n), x)}; }
cd hankel_prime(int n, double x) {
  if (n == 0) return -hankel(1, x);
  return 0.5 * (hankel(n - 1, x) - hankel(n + 1, x));
}

void check_input(const MieCylinder& c, double frequency) {
  SPIRE_CHECK(std::isfinite(c.radius) && c.radius > 0, ValueError, "Mie cylinder: radius must be finite and > 0 (a), got ",
              c.radius);
  SPIRE_CHECK(c.pec || (std::isfinite(c.eps) && c.eps > 0), ValueError,
              "Mie cylinder: eps must be finite and > 0 (a real, lossless permittivity) unless pec, got ", c.eps);
  SPIRE_CHECK(std::isfinite(c.background_eps) && c.background_eps > 0, ValueError,
              "Mie cylinder: background_eps must be finite and > 0, got ", c.background_eps);
  SPIRE_CHECK(std::isfinite(frequency) && frequency > 0, ValueError,
              "Mie cylinder: frequency must be finite and > 0 (c/a), got ", frequency);
}

// i^n for n >= 0.
cd i_power(int n) {
  switch (n % 4) {
    case 0: return {1, 0};
    case 1: return {0, 1};
    case 2: return {-1, 0};
    default: return {0, -1};
  }
}

// The polar coordinates of r relative to the direction of incidence.
void polar(const Vec3& r, double incidence_angle, double& rho, double& phi) {
  rho = std::hypot(r.x, r.y);
  phi = std::atan2(r.y, r.x) - incidence_angle;
}

}  // namespace

MieSeries mie_cylinder_series(const MieCylinder& cyl, CylinderPolarization pol, double frequency) {
  check_input(cyl, frequency);
  MieSeries s;
  s.k = 2 * kPi * frequency * std::sqrt(cyl.background_eps);
  s.m = cyl.pec ? 0.0 : std::sqrt(cyl.eps / cyl.background_eps);
  const double x = s.k * cyl.radius, mx = s.m * x;
  const double xmax = std::max(x, mx);
  const int terms = int(std::ceil(xmax + 4.05 * std::cbrt(xmax) + 10));
  const bool tm = pol == CylinderPolarization::tm;
  for (int n = 0; n <= terms; ++n) {
    const double jx = bessel_j(n, x), jpx = bessel_j_prime(n, x);
    const cd hx = hankel(n, x), hpx = hankel_prime(n, x);
    // Y_n grows without bound as n passes x: once H_n overflows, c_n ~ 1/H_n is zero to double
    // precision and so are all the later terms.
    if (!std::isfinite(hx.imag()) || !std::isfinite(hpx.imag()) || std::abs(hx.imag()) > 1e300) break;
    cd c, d;
    if (cyl.pec) {
      c = tm ? -jx / hx : -jpx / hpx;
    } else {
      const double m = s.m, jm = bessel_j(n, mx), jpm = bessel_j_prime(n, mx);
      if (tm)
        c = (m * jx * jpm - jpx * jm) / (jm * hpx - m * jpm * hx);
      else
        c = (jx * jpm - m * jpx * jm) / (m * jm * hpx - jpm * hx);
      // Interior coefficient from whichever interface condition is better conditioned (J_n(mx)
      // or J_n'(mx) may vanish): u continuous, or (1/eps^p) du/dr continuous.
      const cd u_out = jx + c * hx, du_out = jpx + c * hpx;
      if (std::abs(jm) >= std::abs(jpm))
        d = u_out / jm;
      else
        d = tm ? du_out / (m * jpm) : m * du_out / jpm;
      s.interior.push_back(d);
    }
    s.scattered.push_back(c);
  }
  return s;
}

double mie_cylinder_scattering_width(const MieCylinder& cyl, CylinderPolarization pol, double frequency) {
  const MieSeries s = mie_cylinder_series(cyl, pol, frequency);
  double sum = 0;
  for (size_t n = 0; n < s.scattered.size(); ++n) sum += (n == 0 ? 1.0 : 2.0) * std::norm(s.scattered[n]);
  return 4 / s.k * sum;
}

double mie_cylinder_extinction_width(const MieCylinder& cyl, CylinderPolarization pol, double frequency) {
  const MieSeries s = mie_cylinder_series(cyl, pol, frequency);
  double sum = 0;
  for (size_t n = 0; n < s.scattered.size(); ++n) sum += (n == 0 ? 1.0 : 2.0) * s.scattered[n].real();
  return -4 / s.k * sum;
}

double mie_cylinder_bistatic_width(const MieCylinder& cyl, CylinderPolarization pol, double frequency,
                                   double angle) {
  const MieSeries s = mie_cylinder_series(cyl, pol, frequency);
  cd t = 0;
  for (size_t n = 0; n < s.scattered.size(); ++n) t += (n == 0 ? 1.0 : 2.0) * s.scattered[n] * std::cos(double(n) * angle);
  return 4 / s.k * std::norm(t);
}

std::complex<double> mie_cylinder_scattered_field(const MieCylinder& cyl, CylinderPolarization pol, double frequency,
                                                  const Vec3& r, double incidence_angle) {
  const MieSeries s = mie_cylinder_series(cyl, pol, frequency);
  double rho, phi;
  polar(r, incidence_angle, rho, phi);
  if (rho < cyl.radius) return 0.0;
  const double kr = s.k * rho;
  cd u = 0;
  for (size_t n = 0; n < s.scattered.size(); ++n) {
    const int nn = int(n);
    // The n and -n terms together: i^n c_n H_n (e^{i n phi} + e^{-i n phi}) (J_{-n} = (-1)^n J_n and
    // i^{-n} (-1)^n = i^n, so the -n term has the same coefficient).
    u += (n == 0 ? 1.0 : 2.0 * std::cos(double(nn) * phi)) * i_power(nn) * s.scattered[n] * hankel(nn, kr);
  }
  return u;
}

std::complex<double> mie_cylinder_total_field(const MieCylinder& cyl, CylinderPolarization pol, double frequency,
                                              const Vec3& r, double incidence_angle) {
  double rho, phi;
  polar(r, incidence_angle, rho, phi);
  if (rho >= cyl.radius) {
    const double k = 2 * kPi * frequency * std::sqrt(cyl.background_eps);
    return std::polar(1.0, k * rho * std::cos(phi)) +
           mie_cylinder_scattered_field(cyl, pol, frequency, r, incidence_angle);
  }
  const MieSeries s = mie_cylinder_series(cyl, pol, frequency);
  if (cyl.pec) return 0.0;
  const double mkr = s.m * s.k * rho;
  cd u = 0;
  for (size_t n = 0; n < s.interior.size(); ++n) {
    const int nn = int(n);
    u += (n == 0 ? 1.0 : 2.0 * std::cos(double(nn) * phi)) * i_power(nn) * s.interior[n] * bessel_j(nn, mkr);
  }
  return u;
}

}  // namespace spire::elec
