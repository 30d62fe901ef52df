// Materials of an FDTD problem, as Meep describes them (Meep's Python Medium and Susceptibility),
// in Meep's normalised units: c = eps0 = mu0 = 1, frequencies f in c/a (the angular frequency is
// omega = 2 pi f), times in a/c. Fields vary as exp(-i omega t), so loss is Im eps > 0.
//
// A Medium is a diagonal instantaneous permittivity eps_inf and permeability, Meep's conductivities
// (dD/dt = curl H - sigma_D D, so sigma_D = sigma / eps for a conductor of conductivity sigma in a
// medium of permittivity eps), and electric susceptibilities added to eps_inf:
//   eps(f) = (eps_inf + sum_n chi_n(f)) (1 + i sigma_D / (2 pi f))             per axis
//   Lorentzian (Meep's LorentzianSusceptibility(frequency f_n, gamma g_n, sigma)):
//     chi(f) = sigma f_n^2 / (f_n^2 - f^2 - i f g_n)
//   Drude (Meep's DrudeSusceptibility(frequency f_n, gamma g_n, sigma)): the plasma frequency is
//     f_p = sqrt(sigma) f_n,
//     chi(f) = -sigma f_n^2 / (f^2 + i f g_n)
//   Debye (relaxation time tau in a/c, strength delta_eps; Meep has none):
//     chi(f) = delta_eps / (1 - i 2 pi f tau)
// sigma (delta_eps for Debye) may differ per axis (Meep's sigma_diag). The perfect conductors are
// media of their own kind: the sampling gives them inv_eps = 0 (PEC) or inv_mu = 0 (PMC) and never
// averages them with their neighbours.
#pragma once
#include <array>
#include <complex>
#include <string>
#include <vector>

#include "science/elec/yee.h"

namespace spire::elec {

struct Susceptibility {
  enum class Kind { lorentzian, drude, debye };
  Kind kind = Kind::lorentzian;
  double frequency = 0;  // f_n in c/a (Lorentzian, Drude)
  double gamma = 0;      // damping g_n in c/a (Lorentzian, Drude)
  double tau = 0;        // relaxation time in a/c (Debye)
  // sigma per axis for Lorentzian and Drude terms, delta_eps per axis for Debye terms.
  Vec3 sigma_diag{0, 0, 0};

  static Susceptibility lorentzian(double frequency, double gamma, double sigma);
  static Susceptibility drude(double frequency, double gamma, double sigma);
  static Susceptibility debye(double tau, double delta_epsilon);
  Susceptibility& with_sigma_diag(Vec3 sigma);

  // chi(f) along axis 0..2 (the continuum model above); f > 0.
  std::complex<double> chi(double frequency, int axis = 0) const;
  // Two terms share one polarisation field when their dynamics are the same (kind, frequency,
  // gamma, tau): only their strengths differ.
  bool same_model(const Susceptibility& other) const;
  // "LorentzianSusceptibility(frequency=1, gamma=0.1)": how errors and reports name the term.
  std::string describe() const;
  // ValueError naming the parameter: frequency finite > 0, gamma finite >= 0, tau finite > 0,
  // sigma finite (negative strengths are gain, as Meep allows).
  void validate(const std::string& where) const;
};

struct Medium {
  enum class Kind { ordinary, perfect_electric_conductor, perfect_magnetic_conductor };
  Kind kind = Kind::ordinary;
  Vec3 epsilon_diag{1, 1, 1};
  Vec3 mu_diag{1, 1, 1};
  Vec3 D_conductivity_diag{0, 0, 0};
  Vec3 B_conductivity_diag{0, 0, 0};
  std::vector<Susceptibility> E_susceptibilities;

  static Medium vacuum() { return Medium(); }
  // Meep's Medium(epsilon=e) and Medium(index=n) (epsilon = n^2).
  static Medium dielectric(double epsilon);
  static Medium from_index(double index);
  // An ordinary conductivity sigma (J = sigma E in the instantaneous medium): Meep's
  // D_conductivity = sigma / eps along each axis, which gives eps(f) = eps + i sigma / (2 pi f)
  // without susceptibilities. Call after setting epsilon.
  Medium& with_conductivity(double sigma);
  Medium& with_D_conductivity(double sigma_D);
  Medium& with_B_conductivity(double sigma_B);
  Medium& with_susceptibility(const Susceptibility& s);

  bool is_pec() const { return kind == Kind::perfect_electric_conductor; }
  bool is_pmc() const { return kind == Kind::perfect_magnetic_conductor; }
  bool has_D_conductivity() const;
  bool has_B_conductivity() const;

  // The diagonal of the complex permittivity and permeability at frequency f > 0 (c/a), as above.
  // A PEC has eps = -inf (Meep's metal), a PMC mu = -inf.
  std::array<std::complex<double>, 3> epsilon(double frequency) const;
  std::array<std::complex<double>, 3> mu(double frequency) const;

  // ValueError naming the parameter and what is allowed: epsilon and mu finite > 0, conductivities
  // finite, each susceptibility valid. where names the medium in the message ("geometry object 3").
  void validate(const std::string& where = "Medium") const;
};

Medium perfect_electric_conductor();
Medium perfect_magnetic_conductor();

// Same kind and bit-identical parameters (media compare equal only when the updates would treat
// them identically; subpixel averaging skips interfaces between equal media).
bool same_medium(const Medium& a, const Medium& b);

}  // namespace spire::elec
