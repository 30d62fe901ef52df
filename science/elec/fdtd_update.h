// The Yee updates (CPU kernels). One time step, with E and D at t_n and H at t_{n-1/2}:
//   step_h:   H^{n+1/2} = decay_h H^{n-1/2} + scale_h (curl E^n)          (Meep's step_b + update_eh(H))
//   step_e:   X^{n+1}   = decay_e X^n       + scale_e (curl H^{n+1/2})     (Meep's step_d, + update_eh(E)
//             where X is E itself (no polarisations) or D (polarisations present)   when X = E)
//   e_from_d: E^{n+1} = inv_eps (D^{n+1} - P^{n+1})                       (dispersive runs only)
// with the semi-implicit (time-centred) conductivity of material_arrays.h:
//   decay = (1 - sigma dt/2) / (1 + sigma dt/2),
//   scale = +-(dt/dx) inv / (1 + sigma dt/2)   (+ for E/D, - for H; inv = inv_eps for E, 1 for D,
//                                               inv_mu for H)
// Because inv_eps and inv_mu are diagonal and non-dispersive, updating E and H directly is the
// D/B formulation exactly (E = inv_eps D is linear), with half the memory traffic (fields.h).
// "curl" is the plain difference of neighbouring samples (the 1/dx is in scale): backward
// differences for the E/D update (E sits after the H samples it differentiates), forward for H.
// Inside a CPML slab each difference d gains (1/kappa - 1) d + psi (cpml.h).
//
// Kernel structure (fdtd_row.h): the samples form rows along the contiguous axis (z in 3D and 1D,
// y in 2D). Each row of a component is updated in one pass of vectorised loops (restrict pointers,
// unit stride; GCC vectorises them with -O3 -march=x86-64-v3), the CPML terms folded into the same
// pass. step_h_e, the step a run takes, sweeps planes so that the planes it works on (two planes
// of each of E and H: about 1 MB for 100 x 100 cells in float64) stay in L2 while it moves along:
// each array streams from memory once per step. (Much larger planes spill to L3; blocking the
// sweep along the middle axis as well would keep them in L2.) step_h and step_e (used by dispersive runs and the energy's trial half step) walk the
// rows in blocks along the middle axis so the neighbour plane's rows are still in L2: once per
// update. OpenMP threads take contiguous ranges of planes (or of rows when there are few planes);
// every sample is computed by the same instructions whatever the split, so results are bitwise
// independent of the thread count.
//
// Walls (boundary.h): every axis wraps (sample n is sample 0); bloch axes multiply the wrapped
// neighbour by exp(-+i phase); pec and pmc walls are applied after the update by zeroing the
// tangential E (pec) or H (pmc) samples at index 0 (zero_walls).
#pragma once
#include <array>
#include <cstdint>
#include <functional>

#include "science/elec/boundary.h"
#include "science/elec/cpml.h"
#include "science/elec/fields.h"
#include "science/elec/material_arrays.h"

namespace spire::elec {

template <class T>
struct UpdateCoefficients {
  // Per component (index int(Component)): decay (empty: 1 everywhere) and scale (empty: the
  // uniform value scale_uniform) of f <- decay f + scale curl.
  std::array<AlignedVector<T>, 6> decay, scale;
  std::array<T, 6> scale_uniform{};
  // inv_eps per electric component, kept only when D is stored (for e_from_d).
  std::array<AlignedVector<T>, 3> inv_eps;
  double dx = 1;

  T scale_at(Component c, int64_t i) const {
    const auto& s = scale[size_t(int(c))];
    return s.empty() ? scale_uniform[size_t(int(c))] : s[size_t(i)];
  }
  // What a current density J (electric) or K (magnetic) at sample i adds to the updated field per
  // unit current: -(dt) inv_eps J / (1 + sigma dt/2) for E (or D), -(dt) inv_mu K / (...) for H.
  double source_factor(Component c, int64_t i) const {
    return (is_electric(c) ? -1.0 : 1.0) * double(scale_at(c, i)) * dx;
  }
};

// Checks the material arrays against the lattice (ValueError naming the component and the
// problem: a missing or wrong-sized array, a negative, NaN or infinite value) and builds the
// coefficients. d_stored: the electric update targets D (polarisations present).
template <class T>
UpdateCoefficients<T> make_update_coefficients(const MaterialArrays& materials, const YeeLattice& lattice, double dt,
                                               bool d_stored);

// A whole step, H then E/D, in one sweep over the planes of sweep_planes() (x in 2D and 3D; 1D
// has one plane): H of plane i, then E of plane i (E of a thread's first plane waits for its
// neighbour's H), so E, H and the CPML state stream through memory once per step instead of twice.
// after_h(i) runs after the H update of plane i and before any E update reads it (magnetic sources,
// pmc walls). Identical, bit for bit, to step_h, after_h on every plane, step_e.
template <class T>
void step_h_e(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& coefficients,
              const ResolvedBoundaries& boundaries, const std::function<void(int64_t plane)>& after_h);
// The planes step_h_e sweeps, and the plane of a sample index.
int64_t sweep_planes(const YeeLattice& lattice);
int64_t sweep_plane_of(const YeeLattice& lattice, int64_t index);

template <class T>
void step_h(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& coefficients,
            const ResolvedBoundaries& boundaries);
// Updates E, or D when fields.has_d().
template <class T>
void step_e(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& coefficients,
            const ResolvedBoundaries& boundaries);
// E = inv_eps (D - P) for one electric component and part; p may be null (no polarisation).
template <class T>
void e_from_d(Fields<T>& fields, const UpdateCoefficients<T>& coefficients, Component c, FieldPart part, const T* p);
// Holds tangential E (electric) at zero on pec walls, or tangential H on pmc walls; with
// target_d, D instead of E.
template <class T>
void zero_walls(Fields<T>& fields, const ResolvedBoundaries& boundaries, bool electric, bool target_d = false);
// The same within one plane of the sweep.
template <class T>
void zero_walls_in_plane(Fields<T>& fields, const ResolvedBoundaries& boundaries, bool electric, int64_t plane);

}  // namespace spire::elec
