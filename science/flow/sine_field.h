// Random sums of sine waves, the random fields of PDEBench (Takamoto et al. 2022, data_gen_NLE
// utils.py init_multi) and of PDEformer-1's data generator (Ye et al. 2024, which adapts it):
//
//   g(x) = sum_j a_j sin(k_j x + phi_j),  then |g| with p_abs, a random sign, then a tanh window
//   0.5 (tanh((x - xL)/w) - tanh((x - xR)/w)) with p_window, then optionally (g - min)/(max - min)
//   over the grid.
//
// A drawn field is kept as numbers, so that it can be evaluated on a grid (random initial
// conditions) or written as an expression of the PDE language (a family's coefficient fields and
// initial conditions, which the job then carries as text).
#pragma once
#include <string>
#include <vector>

#include "science/flow/draws.h"

namespace spire::flow {

struct SineField {
  std::vector<double> k, amplitude, phase;  // angular wavenumbers (rad per unit x)
  bool absolute = false;
  double sign = 1;
  bool window = false;
  double x_left = 0, x_right = 0, width = 0.01;
  bool normalize = false;
  double low = 0, high = 1;  // normalize: (g - low) / (high - low)
  double scale = 1;

  double operator()(double x) const;
  // The same function in the PDE language, an expression of x (numbers written exactly).
  std::string expression() const;
  // Sets low and high to the extremes of the field on these points (before normalising).
  void normalize_on(const std::vector<double>& points);
};

struct SineFieldDraw {
  int waves = 2;        // PDEBench's num_choise_k
  int k_max = 4;        // PDEBench's k_tot
  double p_abs = 0.1;
  double p_window = 0.1;
  bool integer_wavenumbers = true;  // false: PDEformer's non-periodic case, k uniform in [0, 2 pi k_max / L)
  bool smooth = false;              // no absolute value, sign or window (PDEformer's kappa field)
};

// A field on [x0, x1]. The draws, in this order and always all of them (so that consumption is
// fixed): the `waves` wavenumber choices, k_max amplitudes, k_max phases, abs, sign, window,
// window ends.
SineField draw_sine_field(Draws& draws, double x0, double x1, const SineFieldDraw& how);

// A number as the PDE language reads it back exactly ("(-0.25)" for negatives).
std::string exact_number(double v);

}  // namespace spire::flow
