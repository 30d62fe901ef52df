// The per-sample bodies of the cuda platform's kernels (SPIRE_HD: the device runs them one thread
// per sample, the host tests in loops over the CPU engine's own arrays):
//   update_sample   one sample of every component of an H or E half step (update_plan.h), the
//                   CPML terms folded in;
//   add_source      one source entry: field[index] += T(factor * value[slot]) (source_batch.h);
//   wall_index      the samples a pec/pmc wall holds at zero;
//   energy_chunk    one chunk of the energy sums, in the CPU's order.
//
// Arithmetic: the same operations, in the same order and with the same roundings, as the CPU's
// row kernels (fdtd_row.cpp) as GCC compiles them with -O3 -march=x86-64-v3 (its default
// -ffp-contract=fast fuses the first product of each a*b + c*d, and x += a*b): for every term d
// (the signed difference of neighbours) and every sample,
//   curl = d0 [+ fma(kappa_term, d0, psi0')] [+ d1 [+ fma(kappa_term, d1, psi1')]]
//   psi'  = fma(b, psi, c * d)
//   out   = fma(scale, curl, out)               (no conductivity)
//   out   = fma(decay, out, scale * curl)       (conductivity)
// and, for the one sample per row whose neighbour along the row wraps (the CPU's peeled sample),
// curl starts from 0 + d0 and out = fma(decay or 1, out, scale * curl). Every fused multiply-add
// and every rounding is written out (fma_rn, mul_rn), so neither nvcc nor a host compiler can
// contract differently: a float64 or float32 update has the CPU's bits (the host tests check it).
#pragma once
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "science/elec/cuda/update_plan.h"

namespace spire::elec::cuda {

// ---- correctly rounded operations that no compiler fuses ----

SPIRE_HD inline double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
SPIRE_HD inline float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
// A product rounded on its own: the device intrinsics are never contracted; on the host the
// volatile store keeps a compiler with FMA instructions from fusing it into a following add.
SPIRE_HD inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  volatile double p = a * b;
  return p;
#endif
}
SPIRE_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  volatile float p = a * b;
  return p;
#endif
}
SPIRE_HD inline double div_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

// ---- the Yee update ----

// Whether coordinate x along an axis of n samples lies in a CPML slab, and its slab index s there
// (cpml.h: x in the low slab, low + x - (n - high) in the high one).
template <class I>
SPIRE_HD inline bool in_slab(I x, I n, I low, I high, I& s) {
  if (x < low) {
    s = x;
    return true;
  }
  if (x >= n - high) {
    s = low + (x - (n - high));
    return true;
  }
  return false;
}

// Loops over the (at most three) components and (two) terms are unrolled on the device so that
// the plan stays in the kernel's parameter space (a runtime index into it would copy it to local
// memory); coordinates are picked by selects for the same reason.
#if defined(__CUDA_ARCH__)
#define SPIRE_ELEC_UNROLL _Pragma("unroll")
#else
#define SPIRE_ELEC_UNROLL
#endif

template <class I>
SPIRE_HD inline I pick(int l, I a, I b, I c) { return l == 0 ? a : (l == 1 ? b : c); }

// Sample (x0, x1, x2) (logical coordinates, storage index idx) of one component. I is the index
// type: the kernels (and the host tests, host_backend.h) use 32-bit unsigned arithmetic, native on
// the device where 64-bit products take several instructions (cuda_backend.h's sample limit keeps
// every sample and psi index in range; intermediates only wrap where the result is back in range).
template <class T, bool kH, class I>
SPIRE_HD inline void update_component(const StepPlan<T>& p, const ComponentPlan<T>& u, I x0, I x1, I x2, I idx) {
  const I n0 = I(p.n[0]), n1 = I(p.n[1]), n2 = I(p.n[2]);
  bool along_row = false;
  SPIRE_ELEC_UNROLL
  for (int t = 0; t < 2; ++t) along_row = along_row || (t < u.terms && u.term[t].l == 2);
  // The CPU peels the sample whose neighbour along the row wraps: k = N2-1 for H, 0 for E.
  const bool peeled = along_row && x2 == (kH ? n2 - 1 : I(0));
  T curl = T(0);
  SPIRE_ELEC_UNROLL
  for (int t = 0; t < 2; ++t) {
    if (t >= u.terms) break;
    const TermPlan<T>& tm = u.term[t];
    const int l = tm.l;
    const I xl = pick(l, x0, x1, x2), nl = pick(l, n0, n1, n2);
    const I sl = pick(l, I(p.stride[0]), I(p.stride[1]), I(1));
    // H differentiates forward (the sample after; n-1 wraps to 0), E backward (0 wraps to n-1).
    const I other = kH ? (xl == nl - 1 ? idx - xl * sl : idx + sl) : (xl == 0 ? idx + (nl - 1) * sl : idx - sl);
    const T here = tm.src[idx], there = tm.src[other];
    T d;
    if (peeled && l == 2) {
      d = kH ? there - here : here - there;
      if (tm.negative) d = -d;
    } else {
      const T hi = kH ? there : here, lo = kH ? here : there;
      d = tm.negative ? lo - hi : hi - lo;
    }
    curl = (t == 0 && !peeled) ? d : curl + d;
    if (!tm.psi) continue;
    const I low = I(tm.pml_low), high = I(tm.pml_high);
    I s = 0;
    if (!in_slab(xl, nl, low, high, s)) continue;
    const I S = low + high;
    const I j = l == 2 ? (x0 * n1 + x1) * S + s : l == 1 ? (x0 * S + s) * n2 + x2 : (s * n1 + x1) * n2 + x2;
    const T v = fma_rn(tm.b[xl], tm.psi[j], mul_rn(tm.c[xl], d));
    tm.psi[j] = v;
    curl = curl + fma_rn(tm.kappa_term[xl], d, v);
  }
  const T sk = u.scale ? u.scale[idx] : u.scale_uniform;
  T& out = u.out[idx];
  if (peeled)
    out = fma_rn(u.decay ? u.decay[idx] : T(1), out, mul_rn(sk, curl));
  else if (u.decay)
    out = fma_rn(u.decay[idx], out, mul_rn(sk, curl));
  else
    out = fma_rn(sk, curl, out);
}

// Every component of the plan at logical coordinates (x0, x1, x2).
template <class T, bool kH, class I>
SPIRE_HD inline void update_sample(const StepPlan<T>& p, I x0, I x1, I x2) {
  const I idx = (x0 * I(p.n[1]) + x1) * I(p.n[2]) + x2;
  SPIRE_ELEC_UNROLL
  for (int c = 0; c < 3; ++c)
    if (c < p.components) update_component<T, kH, I>(p, p.component[c], x0, x1, x2, idx);
}

// ---- sources ----

// One half step's source entries (source_batch.h), in device or host memory.
struct SourceEntries {
  const int64_t* index = nullptr;    // sample
  const double* factor = nullptr;    // multiplies the slot's value
  const int32_t* slot = nullptr;     // into the half step's values
  const int32_t* source = nullptr;   // into the half step's on flags
  const int8_t* component = nullptr; // int(Component)
};

// field[index] += T(factor * values[slot]) for entry e, when its source is on (on[source] != 0).
template <class T>
SPIRE_HD inline void add_source(const SourceEntries& s, int64_t e, const double* values, const double* on,
                                T* const* field) {
  if (on[s.source[e]] == 0) return;
  T* f = field[s.component[e]];
  const int64_t i = s.index[e];
  f[i] = f[i] + T(mul_rn(s.factor[e], values[s.slot[e]]));
}

// ---- walls ----

// The storage index of sample t of the plane at index 0 along `axis` (the plane's samples in
// storage order) of a lattice of physical extents n.
SPIRE_HD inline int64_t wall_index(const int64_t* n, int axis, int64_t t) {
  if (axis == 0) return t;
  if (axis == 1) return (t / n[2]) * n[1] * n[2] + t % n[2];
  return t * n[2];
}

// ---- energies ----

// sum over i in [begin, end) of a[i] b[i] / inv[i] (0 where inv <= 0), in index order, in double:
// simulation.cpp's ordered_sum term by term. inv null: the uniform value inv_uniform.
template <class T>
SPIRE_HD inline double energy_chunk(const T* a, const T* b, const double* inv, double inv_uniform, int64_t begin,
                                    int64_t end) {
  double s = 0;
  for (int64_t i = begin; i < end; ++i) {
    const double w = inv ? inv[i] : inv_uniform;
    s = s + (w > 0 ? div_rn(mul_rn(double(a[i]), double(b[i])), w) : 0.0);
  }
  return s;
}

}  // namespace spire::elec::cuda
