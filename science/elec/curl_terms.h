// How a Yee update sees the lattice, shared by every implementation of the update: the CPU row
// kernels (fdtd_row.h), the adjoint step (adjoint_step.h) and the CUDA platform's plans and traffic
// model (cuda/update_plan.h, cuda/traffic.h). Resolved once here so that they cannot disagree on
// which terms a component's update has, or on how its storage is walked.
//
// Curl terms: (curl F)_c = d_a F_b - d_b F_a with a = c+1, b = c+2 (cyclic, c's own axis) and F
// the H fields for an E update, the E fields for an H update. A term whose derivative axis the
// problem lacks (a 2D or 1D lattice) or whose source component it does not carry is dropped; a
// component left with no term is not updated.
//
// Logical layout: the storage seen as axes (N0, N1, N2) with N2 contiguous: the axes a problem
// lacks come first (they have one sample), then the ones it has in x, y, z order. 3D: (x, y, z); 2D:
// (-, x, y); 1D: (-, -, z). Logical index l0 * stride0 + l1 * stride1 + l2 is the storage index.
#pragma once
#include <array>
#include <cstdint>

#include "science/elec/yee.h"

namespace spire::elec::fdtd {

struct Layout {
  std::array<int64_t, 3> n{1, 1, 1}, stride{1, 1, 1};
  std::array<int, 3> logical{0, 1, 2};  // physical axis -> logical axis
};

inline Layout make_layout(const YeeLattice& lattice) {
  Layout L;
  int next = 0;
  for (int a = 0; a < 3; ++a)
    if (!lattice.has_axis(a)) L.logical[size_t(a)] = next++;
  for (int a = 0; a < 3; ++a)
    if (lattice.has_axis(a)) L.logical[size_t(a)] = next++;
  for (int a = 0; a < 3; ++a) L.n[size_t(L.logical[size_t(a)])] = lattice.n(a);
  L.stride = {L.n[1] * L.n[2], L.n[2], 1};
  return L;
}

struct CurlTerm {
  int axis = 0;                      // physical axis of the derivative
  Component source = Component::Ex;  // the differentiated component
  bool negative = false;             // enters the curl with a minus sign (the d_b F_a term)
};

struct CurlTerms {
  int count = 0;  // 0, 1 or 2; the positive term first when both remain
  CurlTerm term[2];
};

inline CurlTerms curl_terms(const YeeLattice& lattice, Component c) {
  const int own = axis_of(c), a = (own + 1) % 3, b = (own + 2) % 3;
  const int base = is_electric(c) ? 3 : 0;  // E from the curl of H, H from the curl of E
  const int terms[2][2] = {{a, b}, {b, a}};  // (derivative axis, source axis)
  CurlTerms out;
  for (int t = 0; t < 2; ++t) {
    const Component src = Component(base + terms[t][1]);
    if (!lattice.has_axis(terms[t][0]) || !lattice.has(src)) continue;
    out.term[out.count++] = {terms[t][0], src, t == 1};
  }
  return out;
}

}  // namespace spire::elec::fdtd
