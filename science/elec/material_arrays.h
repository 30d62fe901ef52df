// What the FDTD updates know of materials: per-sample coefficient arrays on the Yee lattice
// (yee.h's storage order), one set per field component the problem carries. Geometry, subpixel
// averaging and material models (geometry.h, subpixel.h, medium.h) produce them; the updates
// (fdtd kernels) and the dispersive polarisations read them. Keeping this boundary to plain arrays
// lets each side be tested alone and lets the CUDA kernels take the same data.
//
// Conventions (Meep's D/B formulation; Gaussian-like normalised units, eps0 = mu0 = c = 1):
//   E_c = inv_eps_c * (D_c - sum of the dispersive polarisations P_c)    per sample
//   H_c = inv_mu_c * B_c
//   dD/dt = curl H - J - sigma_e_c * D        (Meep's D-conductivity: sigma_D = sigma / eps, so
//                                              a conductor of conductivity sigma in a medium of
//                                              permittivity eps has sigma_e = sigma / eps here)
//   dB/dt = -curl E - sigma_m_c * B
// inv_eps and inv_mu are the diagonal of the (subpixel-averaged) inverse tensors; PEC samples have
// inv_eps = 0 (E stays zero), PMC samples inv_mu = 0.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "science/elec/yee.h"

namespace spire::elec {

struct MaterialArrays {
  // Indexed by int(Component): entries for components the problem does not carry are empty.
  // inv_eps for Ex..Ez (index 0..2), inv_mu for Hx..Hz (index 3..5), each lattice.samples() long.
  std::array<std::vector<double>, 6> inverse;
  // sigma_e for Ex..Ez, sigma_m for Hx..Hz; empty when the problem has no conductivity at all
  // (the updates then skip the term).
  std::array<std::vector<double>, 6> conductivity;

  // Vacuum everywhere: inverse 1, no conductivity.
  static MaterialArrays vacuum(const YeeLattice& lattice);
};

}  // namespace spire::elec
