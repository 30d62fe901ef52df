// What one sample's Yee update needs to know, as plain structs of pointers and sizes that a CUDA
// kernel takes by value and a host loop can take as well (the host tests run the same per-sample
// bodies, yee_kernels.cuh, over the CPU engine's own arrays).
//
// A StepPlan describes one half step: every carried H component (an H plan) or every carried E
// component (an E plan), each with the one or two terms of its curl, resolved by the function the
// CPU kernels use (curl_terms.h): for component c with own axis o, the terms are (derivative along
// o+1 of source component o+2) and (minus the derivative along o+2 of source component o+1),
// cyclically, dropping a term whose axis or source the problem lacks; H is updated from E (forward
// differences), E from H (backward differences).
//
// Storage is seen in curl_terms.h's logical layout (N0, N1, N2), N2 contiguous: 3D (x, y, z), 2D
// (-, x, y), 1D (-, -, z). A term's CPML tables are those of its physical axis for its kind of
// update (cpml.h: [0] for E at integer positions, [1] for H at half-integer ones), indexed by the
// sample's coordinate along that axis; its psi array is ordered like the lattice with the extent
// along the term's axis replaced by the slab count (cpml.h).
//
// The pointers may be host or device memory: make_step_plan only copies them.
#pragma once
#include <array>
#include <cstdint>

#include "science/elec/boundary.h"
#include "science/elec/yee.h"

namespace spire::elec::cuda {

template <class T>
struct TermPlan {
  const T* src = nullptr;  // the differentiated component
  int l = 0;               // logical axis of the derivative
  bool negative = false;   // enters the curl with a minus sign
  // CPML along the term's axis: tables indexed by the coordinate along it (null: no CPML).
  const T* b = nullptr;
  const T* c = nullptr;
  const T* kappa_term = nullptr;
  T* psi = nullptr;
  int64_t pml_low = 0, pml_high = 0;
};

template <class T>
struct ComponentPlan {
  T* out = nullptr;
  const T* decay = nullptr;  // null: 1 everywhere
  const T* scale = nullptr;  // null: scale_uniform everywhere
  T scale_uniform = 0;
  int terms = 0;
  TermPlan<T> term[2];
};

template <class T>
struct StepPlan {
  int64_t n[3] = {1, 1, 1};       // logical extents
  int64_t stride[3] = {1, 1, 1};  // logical strides
  int components = 0;
  ComponentPlan<T> component[3];
};

// Where a run's arrays are (host or device): fields, CPML psi, update coefficients and CPML
// tables, indexed as the CPU engine's (int(Component), physical axis).
template <class T>
struct ArrayPointers {
  std::array<T*, 6> field{};
  std::array<std::array<T*, 3>, 6> psi{};  // [component][axis]; null where there is none
  std::array<const T*, 6> decay{}, scale{};
  std::array<T, 6> scale_uniform{};
  // [axis][kind]: the CPML tables b, c and 1/kappa - 1 (cpml.h's CpmlAxis), null without a pml.
  std::array<std::array<const T*, 2>, 3> pml_b{}, pml_c{}, pml_kappa_term{};
  std::array<int64_t, 3> pml_low{}, pml_high{};
};

// The plan of the H half step (magnetic = true) or the E half step over `arrays`.
template <class T>
StepPlan<T> make_step_plan(const YeeLattice& lattice, const ResolvedBoundaries& boundaries,
                           const ArrayPointers<T>& arrays, bool magnetic);

// The psi arrays a run has (cpml.h): component c and axis a have one when the problem has axis a,
// a != c's own axis, and the axis has a pml. Their length: samples / n(a) * slabs(a).
bool has_psi(const YeeLattice& lattice, const ResolvedBoundaries& boundaries, Component c, int axis);
int64_t psi_length(const YeeLattice& lattice, const ResolvedBoundaries& boundaries, int axis);

}  // namespace spire::elec::cuda
