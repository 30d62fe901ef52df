// Running discrete Fourier transforms of one field component over a set of points (Meep's
// add_dft_fields): after every time step,
//   F(x, omega) += f(x, t_n) exp(i omega t_n) dt
// for each frequency, so that after a run F is the (unnormalised) Fourier transform of f over the
// run. exp(+i omega t) extracts the exp(-i omega t) phasors of Meep's convention (analytic.h). Meep
// scales its DFTs by a further 1/sqrt(2 pi); every ratio (transmission, reflection, normalised flux)
// is the same, absolute DFT values and fluxes differ by that factor (fluxes by 1/(2 pi)).
//
// Times: the E fields of a step are known at the step's time t, the H fields half a step earlier
// (the Yee leapfrog), so a DFT of an H component uses t_n = t - dt/2 (component_time()): given the
// step time, every monitor applies its component's own offset, and E and H DFTs are phasors at the
// same instant, as the flux and near-to-far transforms need.
//
// Points: a rectilinear set, one list of positions (in a) per axis; the value at a point is the
// multilinear interpolation of the component's own staggered samples (interpolation.h), so a point
// on a sample takes it exactly and a point between samples takes linear weights from the two
// neighbours along each axis — that is how a region of lower dimension (a plane, a line, a point
// between grid planes) gets its weights. Indices wrap periodically (yee.h: sample n is sample 0).
// on_region() gives Meep's add_dft_fields over a box: the component's samples inside it, and along
// axes where the box has no extent, the interpolated slice.
//
// Work per step: one gather of the interpolated values, then one fused multiply-add per point and
// frequency, threaded over points (each point is written by one thread: the same bits whatever the
// thread count).
#pragma once
#include <array>
#include <complex>
#include <cstdint>
#include <vector>

#include "science/elec/simulation.h"
#include "science/elec/yee.h"

namespace spire::elec {

// The field arrays of one step as the monitors read them: one pointer per component, indexed by
// int(Component), each lattice.samples() long in yee.h's storage order; nullptr for components the
// problem does not carry. `imag` holds imaginary parts when the fields are complex (Bloch-periodic
// problems) and is all nullptr otherwise. Real is float or double (the solver's precision).
template <class Real>
struct FieldArrays {
  std::array<const Real*, 6> real{};
  std::array<const Real*, 6> imag{};
};

// The time at which component c of a step whose E fields are at time t is known.
inline double component_time(Component c, double t, double dt) { return is_electric(c) ? t : t - dt / 2; }

// Meep's frequency list for (fcen, df, nfreq): nfreq evenly spaced frequencies from fcen - df/2 to
// fcen + df/2 (fcen alone when nfreq = 1). ValueError for nfreq < 1 or df < 0.
std::vector<double> frequency_list(double fcen, double df, int nfreq);

class DftFields {
 public:
  // DFT of component c at the points positions[0] x positions[1] x positions[2] (in a). Along an
  // axis the problem does not have, the list must hold one position (its value is not used).
  // frequencies in c/a (omega = 2 pi f), dt the time step (> 0). ValueError naming the problem:
  // a component the lattice does not carry, a position outside the cell, no frequencies, bad dt.
  DftFields(const YeeLattice& lattice, Component c, const std::array<std::vector<double>, 3>& positions,
            std::vector<double> frequencies, double dt);
  // Meep's add_dft_fields over the box center +- size/2: along axes with size > 0, the component's
  // samples inside the box (boundaries included); along axes with size 0, the slice at center.
  static DftFields on_region(const YeeLattice& lattice, Component c, Vec3 center, Vec3 size,
                             std::vector<double> frequencies, double dt);

  // Adds one step: `field` is the component's whole array (lattice.samples() values), t the time of
  // the step's E fields (the component's own time is component_time(c, t, dt)).
  void accumulate(const double* field, double t);
  void accumulate(const float* field, double t);
  // Complex fields (real and imaginary arrays).
  void accumulate(const double* real, const double* imag, double t);
  void accumulate(const float* real, const float* imag, double t);
  // Picks this component's arrays from a step's fields.
  template <class Real>
  void update(const FieldArrays<Real>& fields, double t);

  Component component() const { return component_; }
  const std::vector<double>& frequencies() const { return frequencies_; }
  double dt() const { return dt_; }
  // The point positions along each axis and the number of points along each.
  const std::array<std::vector<double>, 3>& positions() const { return positions_; }
  std::array<int64_t, 3> shape() const;
  int64_t points() const { return points_; }
  // The gather as (sample, point, weight) entries (interpolation.h's weights, zeros dropped): point
  // p's value is the sum over its entries of weight * field[sample]. Ordered by point, then lo
  // before hi along x, y, z. The adjoint run (adjoint.cpp) scatters with them, the transpose.
  struct Tap {
    int64_t sample = 0, point = 0;
    double weight = 0;
  };
  std::vector<Tap> taps() const;
  int64_t steps() const { return steps_; }

  // The DFT at frequency index f of point p = (i * n_y + j) * n_z + k (yee.h's order over shape()).
  std::complex<double> value(size_t f, int64_t p) const;
  // All points at frequency index f, in that order.
  std::vector<std::complex<double>> values(size_t f) const;
  // All accumulators, frequency-major (f * points() + p): Meep's get_dft_array data, for saving the
  // fields of one run and loading them into another (the two-run normalisation of flux.h).
  std::vector<std::complex<double>> data() const;
  // Replaces the accumulators (same length as data(): ValueError otherwise). scale multiplies them:
  // -1 loads the negated fields of an earlier run (Meep's load_minus_*).
  void set_data(const std::vector<std::complex<double>>& data, double scale = 1);

  // Checkpoints (simulation.h's named arrays): the accumulators and the step count under
  // prefix + "/re", "/im", "/steps". load_state restores them exactly (ValueError naming an array
  // that is missing or of another length: a DFT over other points or frequencies).
  void save_state(SimulationState& out, const std::string& prefix) const;
  void load_state(const SimulationState& in, const std::string& prefix);

 private:
  template <class Real>
  void gather(const Real* field, std::vector<double>& out) const;
  void add(double t);  // adds gathered_re_ (and gathered_im_ when complex) with the step's phases

  Component component_;
  std::vector<double> frequencies_;
  double dt_;
  std::array<std::vector<double>, 3> positions_;
  int64_t points_ = 0;
  int64_t steps_ = 0;
  // Per axis and point: the two neighbouring samples (wrapped) and the weight of the upper one.
  std::array<std::vector<int64_t>, 3> lo_, hi_;
  std::array<std::vector<double>, 3> w_hi_;
  std::array<int64_t, 3> strides_{};  // of the lattice's storage
  std::vector<double> re_, im_;       // accumulators, frequency-major
  std::vector<double> gathered_re_, gathered_im_;
  bool complex_step_ = false;
};

}  // namespace spire::elec
