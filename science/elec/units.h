// Normalised units and SI. Like Meep, the solver works with c = eps0 = mu0 = 1 and a length unit a
// that the user picks (a = 1 um makes every length a micrometre); then
//   lengths:      x [a]                  -> x * a                 metres
//   time:         t [a/c]                -> t * a / c             seconds
//   frequency:    f [c/a]                -> f * c / a             hertz   (wavelength in vacuum: a / f)
//   conductivity: sigma [eps0 c / a]     -> sigma * eps0 * c / a  siemens per metre
// The conductivity is the physical sigma measured in eps0 c/a; material_arrays.h's per-sample
// sigma_e is the D-conductivity sigma / eps_r (a rate in c/a), as in Meep.
// Field amplitudes are left unscaled: the equations are linear, so a user scales them by the
// source amplitude in whatever unit suits the problem.
#pragma once

namespace spire::elec {

namespace si {
// CODATA 2018: c is exact; eps0 and mu0 are measured since the 2019 SI redefinition.
constexpr double kSpeedOfLight = 299792458.0;             // m/s
constexpr double kVacuumPermittivity = 8.8541878128e-12;  // F/m
constexpr double kVacuumPermeability = 1.25663706212e-6;  // N/A^2
constexpr double kVacuumImpedance = 376.730313668;        // ohm: sqrt(mu0 / eps0)
}  // namespace si

class UnitScale {
 public:
  // a: the length unit in metres (> 0 and finite; ValueError naming the value otherwise).
  explicit UnitScale(double a_metres);

  double a() const { return a_; }

  double length_to_si(double x) const { return x * a_; }
  double length_from_si(double metres) const { return metres / a_; }
  double time_to_si(double t) const { return t * a_ / si::kSpeedOfLight; }
  double time_from_si(double seconds) const { return seconds * si::kSpeedOfLight / a_; }
  double frequency_to_si(double f) const { return f * si::kSpeedOfLight / a_; }
  double frequency_from_si(double hertz) const { return hertz * a_ / si::kSpeedOfLight; }
  // The vacuum wavelength of normalised frequency f, in metres, and back (f = a / lambda).
  double wavelength_to_si(double f) const;
  double frequency_from_wavelength_si(double metres) const;
  double conductivity_to_si(double sigma) const {
    return sigma * si::kVacuumPermittivity * si::kSpeedOfLight / a_;
  }
  double conductivity_from_si(double siemens_per_metre) const {
    return siemens_per_metre * a_ / (si::kVacuumPermittivity * si::kSpeedOfLight);
  }

 private:
  double a_;
};

}  // namespace spire::elec
