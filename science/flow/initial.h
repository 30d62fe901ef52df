// Random initial conditions, PDEBench's generator (Takamoto et al. 2022, data_gen_NLE init_multi):
// a sum of `waves` sine modes with wavenumbers drawn from 1..k_max (in units of 2 pi / L),
// amplitudes uniform in [0, 1) and phases uniform in [0, 2 pi); then, each with its probability,
// the absolute value, a random sign, and a tanh window over a random sub-interval. In 2D the same
// with modes in both directions. Draws come from the engine's Philox generator keyed by
// (seed, sample), so sample i is the same on any thread, rank or restart.
#pragma once
#include <cstdint>
#include <vector>

#include "science/flow/space.h"

namespace spire::flow {

struct RandomInitial {
  int waves = 2;            // [random] waves
  int k_max = 4;            // [random] k_max
  double p_abs = 0.1;       // [random] p_abs
  double p_window = 0.1;    // [random] p_window
  double amplitude = 1.0;   // [random] amplitude: scales the result
  bool normalize = false;   // [random] normalize: map to [0, 1], (u - min)/(max - min) (PDEBench's if_norm)
};

// Grid values on the space's unpadded grid for sample `sample` and field `field` (different
// fields of one sample get different draws).
std::vector<double> random_initial(const RandomInitial& r, const Space& space, uint64_t seed,
                                   uint64_t sample, int field);

}  // namespace spire::flow
