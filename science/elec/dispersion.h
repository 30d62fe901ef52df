// Dispersive polarisations by auxiliary differential equations, in Meep's D formulation: each step
// the FDTD core calls advance(c, E^n) for each E component c before its constitutive step
// E^{n+1} = inv_eps (D^{n+1} - P^{n+1}); advance moves every susceptibility's P_c from P^n to
// P^{n+1} using E^n and its own history (P^{n-1} or E^{n-1}), and returns the total P^{n+1} per sample.
//
// Every model is one recursion per sample (s the sample's strength: sigma, or delta_eps for Debye;
// omega_n = 2 pi f_n, g = 2 pi gamma; dt the time step):
//   P^{n+1} = a1 P^n + a2 P^{n-1} + s (b0 E^n + b1 E^{n-1})
// Lorentzian (Meep's update_P, src/susceptibility.cpp): the ODE P'' + g P' + omega_n^2 P =
// s omega_n^2 E by central differences at step n (b1 = 0),
//   (P^{n+1} - 2 P^n + P^{n-1}) / dt^2 + g (P^{n+1} - P^{n-1}) / (2 dt) + omega_n^2 P^n = s omega_n^2 E^n
// Drude: the same without the omega_n^2 P^n term (Meep's no_omega_0_denominator).
// Debye (Meep has none): tau P' + P = s E by the trapezoidal rule over [n, n+1] (a2 = 0), with
// the E^{n+1} it needs (not known yet when P^{n+1} is formed) extrapolated as 2 E^n - E^{n-1}:
//   tau (P^{n+1} - P^n) / dt + (P^{n+1} + P^n) / 2 = s (3 E^n - E^{n-1}) / 2
// A one-step scheme, second-order accurate, whose own pole (2 tau - dt) / (2 tau + dt) lies inside
// the unit circle for every tau / dt. (A two-step scheme centred at n, as for the Lorentzian, has
// chi = -s at the Nyquist frequency and makes the coupled update unstable for s > eps_inf; this one
// has chi = -s dt / tau there.)
//
// With E^n = E exp(-i omega n dt), the steady state is P^n = chi_dt(omega) E^n where, with
// Omega = (2 / dt) sin(omega dt / 2) and Gamma = sin(omega dt) / dt (the central-difference
// symbols of d^2/dt^2 and d/dt) and z = exp(-i omega dt),
//   Lorentzian: chi_dt = s omega_n^2 / (omega_n^2 - Omega^2 - i g Gamma)
//   Drude:      chi_dt = -s omega_n^2 / (Omega^2 + i g Gamma)
//   Debye:      chi_dt = s (3 - 1/z) / 2 / (tau (z - 1) / dt + (z + 1) / 2)
// all within O(dt^2) of the continuum chi(omega) (medium.h). discrete_susceptibility gives it.
//
// Stability. Alone, the Lorentzian recursion is unstable when omega_n dt >= 2 (a pole passes
// z = -1); ade_coefficients refuses such a time step. Coupled to the Yee update, what decides is
// the permittivity the scheme presents at the Nyquist frequency of the time step (z = -1),
//   eps_N = eps_inf + sum_j s_j chi_j(z = -1),   chi(-1) = -omega_n^2 dt^2 / (4 - omega_n^2 dt^2)
//   (Lorentzian), -omega_n^2 dt^2 / 4 (Drude), -dt / tau (Debye), per unit strength:
// a homogeneous medium is stable if and only if eps_N mu >= S^2 d (S = dt / dx the Courant number,
// d the number of dimensions). For one term this was established from the roots of the coupled
// recursion's characteristic polynomial over 2000 random media (Lorentzian, Drude, Debye; lossy and
// lossless), Courant numbers and dimensions, without an exception; the tests run the coupled update
// on both sides of the bound. check_dispersive_stability applies the test, with the sum over all
// terms, to every sample. (Meep's Lorentzian and Drude updates are these recursions, so the same
// bound holds there.)
#pragma once
#include <array>
#include <complex>
#include <cstdint>
#include <vector>

#include "science/elec/material_arrays.h"
#include "science/elec/medium.h"
#include "science/elec/yee.h"

namespace spire::elec {

// The per-sample strengths of one susceptibility model over a lattice (what subpixel.h's sampling
// produces): model's dynamics (its sigma_diag is not used), strength per sample for Ex, Ey, Ez
// (index 0..2), each lattice.samples() long, or empty where the component is not carried or the
// strength is zero everywhere.
struct SusceptibilityArrays {
  Susceptibility model;
  std::array<std::vector<double>, 3> strength;
};

// The recursion's coefficients for a model and time step (for kernels elsewhere, e.g. on a GPU).
struct AdeCoefficients {
  double a1 = 0, a2 = 0, b0 = 0, b1 = 0;
};
// ValueError naming the model and dt when dt is not finite > 0 or the recursion would be unstable.
AdeCoefficients ade_coefficients(const Susceptibility& model, double dt);

// chi_dt(f) of the scheme (header comment) for strength sigma_diag[axis], f > 0 in c/a.
std::complex<double> discrete_susceptibility(const Susceptibility& model, double frequency, double dt, int axis = 0);
// chi_dt at the Nyquist frequency of the time step (z = -1) per unit strength (real, <= 0).
double nyquist_susceptibility(const Susceptibility& model, double dt);
// ValueError naming the first E sample (component, index, position) where eps_N mu < S^2 d
// (header comment), with mu the smallest permeability in the problem, and what to change.
// Samples inside a PEC (inv_eps = 0) are skipped.
void check_dispersive_stability(const YeeLattice& lattice, const MaterialArrays& arrays,
                                const std::vector<SusceptibilityArrays>& terms, double dt);

// The polarisations of all dispersive terms of a problem. T is the field type (double or float); the
// coefficients are computed in double and rounded once. Only samples with a nonzero strength carry
// state. Each sample's update is independent and the terms are summed in a fixed order, so the
// results are the same bits whatever the thread count.
template <class T>
class Polarizations {
 public:
  Polarizations() = default;
  // terms: one entry per model (entries with the same model are merged by adding strengths);
  // ValueError where a strength array is not lattice.samples() long or is given for a component
  // the lattice does not carry, or for a bad time step (ade_coefficients).
  Polarizations(const YeeLattice& lattice, const std::vector<SusceptibilityArrays>& terms, double dt);

  bool empty() const { return terms_.empty(); }
  size_t size() const { return terms_.size(); }
  // Whether any term acts on component c.
  bool has(Component c) const;
  // Advances every term's P_c by one step from E^n (e: component c's field, lattice.samples()
  // long) and returns the total P^{n+1} (lattice.samples() long, zero where no term acts), or
  // nullptr when no term acts on c.
  const T* advance(Component c, const T* e);
  // The same step, adding each term's P^{n+1} into p_total (lattice.samples() long, zeroed by the
  // caller) instead of an array of its own: the form of the FDTD core's polarisation hook. Complex
  // (Bloch-periodic) fields need one Polarizations per part, real and imaginary.
  void advance_into(Component c, const T* e, T* p_total);
  // The total P of component c after the last advance (zeros before the first), or nullptr (also
  // when only advance_into has been used).
  const T* total(Component c) const;
  // The samples where some term acts on c, increasing.
  const std::vector<int64_t>& active(Component c) const { return active_[size_t(axis_of(c))]; }
  // Zeros every P (the state at t = 0).
  void reset();

  // State of term t for component c (for checkpoints), at the term's samples (sample_indices, in
  // increasing sample order): P^n, and the history the recursion keeps (P^{n-1} for Lorentzian and
  // Drude terms, E^{n-1} for Debye terms).
  const std::vector<int64_t>& sample_indices(size_t t, Component c) const;
  std::vector<T>& polarization(size_t t, Component c);
  std::vector<T>& history(size_t t, Component c);
  const Susceptibility& model(size_t t) const { return terms_[t].model; }

 private:
  struct Field {
    std::vector<int64_t> index;
    std::vector<T> strength, p, history;
  };
  struct Term {
    Susceptibility model;
    T a1 = 0, a2 = 0, b0 = 0, b1 = 0;
    std::array<Field, 3> field;
  };
  Field& field(size_t t, Component c);
  int64_t samples_ = 0;
  std::vector<Term> terms_;
  std::array<std::vector<int64_t>, 3> active_;
  std::array<std::vector<T>, 3> total_;  // allocated by the first advance()
};

extern template class Polarizations<double>;
extern template class Polarizations<float>;

}  // namespace spire::elec
