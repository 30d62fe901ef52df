// Why `spire pde generate` rejects a sample (generate.cpp): its solve stopped on a non-finite
// value or on the bound, or its final snapshot checkerboards, which a spectral solver shows as
// energy piling up in the highest modes.
#pragma once
#include <string>
#include <vector>

#include "science/flow/solver.h"
#include "science/flow/space.h"

namespace spire::flow {

// The share of a grid field's energy (sum of |c|^2 over modes, both signs of a Fourier wavenumber
// counted) in the top 1/8 of each axis's modes: Fourier wavenumbers |k| >= 7/8 of the Nyquist
// wavenumber on some axis, Chebyshev degrees >= 7/8 n. 0 for a zero field.
double checkerboard_share(const Space& space, const double* grid);

// "" for a sample to keep, else the reason: "not finite", "beyond bound" or "checkerboard".
std::string rejection_reason(const Space& space, const Solution& solution, double bound, double checkerboard);

}  // namespace spire::flow
