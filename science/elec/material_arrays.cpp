// MaterialArrays::vacuum (material_arrays.h): the coefficient arrays of empty space, the starting
// point that geometry overwrites and what a vacuum-only run needs.
#include "science/elec/material_arrays.h"

namespace spire::elec {

MaterialArrays MaterialArrays::vacuum(const YeeLattice& lattice) {
  MaterialArrays m;
  const size_t n = size_t(lattice.samples());
  // inv_eps = inv_mu = 1 for every carried component; no conductivity arrays (the updates skip
  // the loss term when they are empty).
  for (Component c : lattice.components()) m.inverse[size_t(int(c))].assign(n, 1.0);
  return m;
}

}  // namespace spire::elec
