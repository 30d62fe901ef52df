// Media and susceptibilities (medium.h): construction, validation with messages that name the bad
// parameter, and the analytic eps(f), mu(f) users compare against.
#include "science/elec/medium.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;
const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

const char* kind_name(Susceptibility::Kind k) {
  switch (k) {
    case Susceptibility::Kind::lorentzian: return "LorentzianSusceptibility";
    case Susceptibility::Kind::drude: return "DrudeSusceptibility";
    case Susceptibility::Kind::debye: return "DebyeSusceptibility";
  }
  return "Susceptibility";
}

bool same_vec(const Vec3& a, const Vec3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

void check_diag(const Vec3& v, const std::string& where, const char* name, bool positive) {
  for (int a = 0; a < 3; ++a) {
    const double x = v[a];
    if (positive) {
      SPIRE_CHECK(std::isfinite(x) && x > 0, ValueError, where, ": ", name, ".", axis_name(a),
                  " must be finite and > 0, got ", x);
    } else {
      SPIRE_CHECK(std::isfinite(x), ValueError, where, ": ", name, ".", axis_name(a), " must be finite, got ", x);
    }
  }
}

}  // namespace

Susceptibility Susceptibility::lorentzian(double frequency, double gamma, double sigma) {
  Susceptibility s;
  s.kind = Kind::lorentzian;
  s.frequency = frequency;
  s.gamma = gamma;
  s.sigma_diag = {sigma, sigma, sigma};
  s.validate("LorentzianSusceptibility");
  return s;
}

Susceptibility Susceptibility::drude(double frequency, double gamma, double sigma) {
  Susceptibility s;
  s.kind = Kind::drude;
  s.frequency = frequency;
  s.gamma = gamma;
  s.sigma_diag = {sigma, sigma, sigma};
  s.validate("DrudeSusceptibility");
  return s;
}

Susceptibility Susceptibility::debye(double tau, double delta_epsilon) {
  Susceptibility s;
  s.kind = Kind::debye;
  s.tau = tau;
  s.sigma_diag = {delta_epsilon, delta_epsilon, delta_epsilon};
  s.validate("DebyeSusceptibility");
  return s;
}

Susceptibility& Susceptibility::with_sigma_diag(Vec3 sigma) {
  sigma_diag = sigma;
  validate(kind_name(kind));
  return *this;
}

std::complex<double> Susceptibility::chi(double f, int axis) const {
  SPIRE_CHECK(std::isfinite(f) && f > 0, ValueError, describe(), ".chi: frequency must be finite and > 0 (c/a), got ", f);
  SPIRE_CHECK(axis >= 0 && axis < 3, ValueError, describe(), ".chi: axis must be 0, 1 or 2, got ", axis);
  const double s = sigma_diag[axis];
  using C = std::complex<double>;
  switch (kind) {
    case Kind::lorentzian:
      return s * frequency * frequency / C(frequency * frequency - f * f, -f * gamma);
    case Kind::drude:
      return -s * frequency * frequency / C(f * f, f * gamma);
    case Kind::debye:
      return s / C(1.0, -kTwoPi * f * tau);
  }
  return 0.0;
}

bool Susceptibility::same_model(const Susceptibility& o) const {
  if (kind != o.kind) return false;
  if (kind == Kind::debye) return tau == o.tau;
  return frequency == o.frequency && gamma == o.gamma;
}

std::string Susceptibility::describe() const {
  if (kind == Kind::debye) return detail::cat(kind_name(kind), "(tau=", tau, ")");
  return detail::cat(kind_name(kind), "(frequency=", frequency, ", gamma=", gamma, ")");
}

void Susceptibility::validate(const std::string& where) const {
  const std::string w = where == kind_name(kind) ? where : detail::cat(where, ": ", kind_name(kind));
  if (kind == Kind::debye) {
    SPIRE_CHECK(std::isfinite(tau) && tau > 0, ValueError, w, ": tau (relaxation time, a/c) must be finite and > 0, got ", tau);
    check_diag(sigma_diag, w, "delta_epsilon", false);
    return;
  }
  SPIRE_CHECK(std::isfinite(frequency) && frequency > 0, ValueError, w,
              ": frequency (c/a) must be finite and > 0, got ", frequency);
  SPIRE_CHECK(std::isfinite(gamma) && gamma >= 0, ValueError, w, ": gamma (c/a) must be finite and >= 0, got ", gamma);
  check_diag(sigma_diag, w, "sigma", false);
}

Medium Medium::dielectric(double epsilon) {
  Medium m;
  m.epsilon_diag = {epsilon, epsilon, epsilon};
  m.validate("Medium(epsilon)");
  return m;
}

Medium Medium::from_index(double index) {
  SPIRE_CHECK(std::isfinite(index) && index > 0, ValueError, "Medium(index): index must be finite and > 0, got ", index);
  return dielectric(index * index);
}

Medium& Medium::with_conductivity(double sigma) {
  SPIRE_CHECK(std::isfinite(sigma), ValueError, "Medium.with_conductivity: sigma must be finite, got ", sigma);
  for (int a = 0; a < 3; ++a) D_conductivity_diag[a] = sigma / epsilon_diag[a];
  return *this;
}

Medium& Medium::with_D_conductivity(double sigma_D) {
  SPIRE_CHECK(std::isfinite(sigma_D), ValueError, "Medium.with_D_conductivity: D_conductivity must be finite, got ", sigma_D);
  D_conductivity_diag = {sigma_D, sigma_D, sigma_D};
  return *this;
}

Medium& Medium::with_B_conductivity(double sigma_B) {
  SPIRE_CHECK(std::isfinite(sigma_B), ValueError, "Medium.with_B_conductivity: B_conductivity must be finite, got ", sigma_B);
  B_conductivity_diag = {sigma_B, sigma_B, sigma_B};
  return *this;
}

Medium& Medium::with_susceptibility(const Susceptibility& s) {
  s.validate("Medium.with_susceptibility");
  E_susceptibilities.push_back(s);
  return *this;
}

bool Medium::has_D_conductivity() const {
  return D_conductivity_diag.x != 0 || D_conductivity_diag.y != 0 || D_conductivity_diag.z != 0;
}

bool Medium::has_B_conductivity() const {
  return B_conductivity_diag.x != 0 || B_conductivity_diag.y != 0 || B_conductivity_diag.z != 0;
}

std::array<std::complex<double>, 3> Medium::epsilon(double f) const {
  SPIRE_CHECK(std::isfinite(f) && f > 0, ValueError, "Medium.epsilon: frequency must be finite and > 0 (c/a), got ", f);
  std::array<std::complex<double>, 3> eps;
  if (is_pec()) {
    eps.fill(-std::numeric_limits<double>::infinity());
    return eps;
  }
  for (int a = 0; a < 3; ++a) {
    std::complex<double> e = epsilon_diag[a];
    for (const Susceptibility& s : E_susceptibilities) e += s.chi(f, a);
    // Meep's D-conductivity multiplies the whole permittivity: dD/dt = ... - sigma_D D.
    eps[size_t(a)] = e * std::complex<double>(1.0, D_conductivity_diag[a] / (kTwoPi * f));
  }
  return eps;
}

std::array<std::complex<double>, 3> Medium::mu(double f) const {
  SPIRE_CHECK(std::isfinite(f) && f > 0, ValueError, "Medium.mu: frequency must be finite and > 0 (c/a), got ", f);
  std::array<std::complex<double>, 3> m;
  if (is_pmc()) {
    m.fill(-std::numeric_limits<double>::infinity());
    return m;
  }
  for (int a = 0; a < 3; ++a)
    m[size_t(a)] = mu_diag[a] * std::complex<double>(1.0, B_conductivity_diag[a] / (kTwoPi * f));
  return m;
}

void Medium::validate(const std::string& where) const {
  if (kind != Kind::ordinary) return;  // the perfect conductors carry no parameters
  check_diag(epsilon_diag, where, "epsilon_diag", true);
  check_diag(mu_diag, where, "mu_diag", true);
  check_diag(D_conductivity_diag, where, "D_conductivity_diag", false);
  check_diag(B_conductivity_diag, where, "B_conductivity_diag", false);
  for (size_t i = 0; i < E_susceptibilities.size(); ++i)
    E_susceptibilities[i].validate(detail::cat(where, ": E_susceptibilities[", i, "]"));
}

Medium perfect_electric_conductor() {
  Medium m;
  m.kind = Medium::Kind::perfect_electric_conductor;
  return m;
}

Medium perfect_magnetic_conductor() {
  Medium m;
  m.kind = Medium::Kind::perfect_magnetic_conductor;
  return m;
}

bool same_medium(const Medium& a, const Medium& b) {
  if (a.kind != b.kind) return false;
  if (a.kind != Medium::Kind::ordinary) return true;
  if (!same_vec(a.epsilon_diag, b.epsilon_diag) || !same_vec(a.mu_diag, b.mu_diag) ||
      !same_vec(a.D_conductivity_diag, b.D_conductivity_diag) || !same_vec(a.B_conductivity_diag, b.B_conductivity_diag) ||
      a.E_susceptibilities.size() != b.E_susceptibilities.size())
    return false;
  for (size_t i = 0; i < a.E_susceptibilities.size(); ++i) {
    const Susceptibility& s = a.E_susceptibilities[i];
    const Susceptibility& t = b.E_susceptibilities[i];
    if (!s.same_model(t) || !same_vec(s.sigma_diag, t.sigma_diag)) return false;
  }
  return true;
}

}  // namespace spire::elec
