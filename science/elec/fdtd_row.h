// The row kernels behind fdtd_update.h (internal to the CPU updates). A row is the run of samples
// along the contiguous storage axis at fixed (l0, l1) of the logical layout (curl_terms.h).
// Updating one row of one component means, for each of its (one or two) curl terms, the signed
// difference of a source component between neighbouring rows (or neighbouring samples of the same
// row), plus, in a CPML slab of that term's axis, the correction (1/kappa - 1) d + psi with psi
// advanced in the same pass. A row is cut into segments (the CPML slabs along the row and the
// interior between) so that each segment runs one branch-free, vectorised loop; the one sample
// whose neighbour wraps through the wall along the row is done on its own. The terms of each
// update are curl_terms.h's, as every other implementation of the update takes them.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "science/elec/boundary.h"
#include "science/elec/cpml.h"
#include "science/elec/curl_terms.h"
#include "science/elec/fdtd_update.h"
#include "science/elec/fields.h"

namespace spire::elec::fdtd {

// One term of a component's curl: +- the difference of a source component along an axis.
template <class T>
struct Term {
  const T* src[2] = {nullptr, nullptr};
  int l = 0;              // logical axis of the derivative
  bool negative = false;  // enters the curl with a minus sign
  bool bloch = false;
  T cos_phase = 1, sin_phase = 0;  // the wrapped neighbour's factor exp(i theta)
  const CpmlAxis<T>* pml = nullptr;
  T* psi[2] = {nullptr, nullptr};
};

template <class T>
struct ComponentUpdate {
  T* out[2] = {nullptr, nullptr};
  Term<T> term[2];
  int terms = 0;
  const T* decay = nullptr;  // null: 1
  const T* scale = nullptr;  // null: scale_uniform
  T scale_uniform = 0;
};

template <class T>
struct Scratch {
  std::vector<T> ghost[2][2];  // [term][part]: a bloch-wrapped neighbour row
};

// The updates of every carried H (kH) or E/D component, with their terms resolved.
template <class T>
std::vector<ComponentUpdate<T>> component_updates(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& co,
                                                  const ResolvedBoundaries& bc, const Layout& L, bool kH);

// Updates rows (l0, l1) for l1 in [l1_begin, l1_end) of one component, every part. kH: an H update
// (forward differences). A run of rows shares the setup that only depends on the plane.
template <class T, bool kH>
void process_rows(const Layout& L, const ComponentUpdate<T>& u, int parts, int64_t l0, int64_t l1_begin,
                  int64_t l1_end, Scratch<T>& scratch);

}  // namespace spire::elec::fdtd
