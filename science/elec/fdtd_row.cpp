// Row kernels of the Yee updates (fdtd_row.h).
#include "science/elec/fdtd_row.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace spire::elec::fdtd {

template <class T>
std::vector<ComponentUpdate<T>> component_updates(Fields<T>& fields, Cpml<T>& cpml, const UpdateCoefficients<T>& co,
                                                  const ResolvedBoundaries& bc, const Layout& L, bool kH) {
  const YeeLattice& lattice = fields.lattice();
  const int parts = fields.parts();
  const bool into_d = !kH && fields.has_d();
  std::vector<ComponentUpdate<T>> updates;
  for (Component c : lattice.components()) {
    if (is_electric(c) == kH) continue;
    ComponentUpdate<T> u;
    const size_t ci = size_t(int(c));
    for (int p = 0; p < parts; ++p) u.out[p] = into_d ? fields.d(c, FieldPart(p)) : fields.data(c, FieldPart(p));
    u.decay = co.decay[ci].empty() ? nullptr : co.decay[ci].data();
    u.scale = co.scale[ci].empty() ? nullptr : co.scale[ci].data();
    u.scale_uniform = co.scale_uniform[ci];
    const CurlTerms terms = curl_terms(lattice, c);
    for (int t = 0; t < terms.count; ++t) {
      const int axis = terms.term[t].axis;
      Term<T>& tm = u.term[u.terms++];
      for (int p = 0; p < parts; ++p) tm.src[p] = fields.data(terms.term[t].source, FieldPart(p));
      tm.l = L.logical[size_t(axis)];
      tm.negative = terms.term[t].negative;
      const AxisBoundary& ab = bc.axis[size_t(axis)];
      tm.bloch = ab.bloch;
      // E reads the neighbour before sample 0 (at x - L): exp(-i phase); H the one after n-1: exp(+i phase).
      const double theta = kH ? ab.phase : -ab.phase;
      tm.cos_phase = T(std::cos(theta));
      tm.sin_phase = T(std::sin(theta));
      if (cpml.active() && cpml.axis(axis).active()) {
        tm.pml = &cpml.axis(axis);
        for (int p = 0; p < parts; ++p) tm.psi[p] = cpml.psi(c, axis, FieldPart(p));
      }
    }
    if (u.terms > 0) updates.push_back(u);
  }
  return updates;
}

namespace {

// One term as a segment kernel sees it: hi - lo is the signed difference; in a CPML slab psi (indexed
// like the row) with row-constant coefficients (kind 1: the slab is across rows) or per-sample ones
// (kind 2: along the row).
template <class T>
struct SegTerm {
  const T* hi = nullptr;
  const T* lo = nullptr;
  T* psi = nullptr;
  T b = 0, c = 0, kt = 0;
  const T* ba = nullptr;
  const T* ca = nullptr;
  const T* kta = nullptr;
};

// out = decay out + scale (sum over terms of d + [kt d + psi']), psi' = b psi + c d, over [k0, k1).
// kMode 0: decay 1, scale uniform; 1: decay 1, scale per sample; 2: both per sample.
template <class T, int kTerms, int kMode, int kP0, int kP1>
void seg_kernel(T* __restrict out, const SegTerm<T>& t0, const SegTerm<T>& t1, const T* __restrict decay,
                const T* __restrict scale, T s, int64_t k0, int64_t k1) {
  const T* __restrict hi0 = t0.hi;
  const T* __restrict lo0 = t0.lo;
  const T* __restrict hi1 = t1.hi;
  const T* __restrict lo1 = t1.lo;
  T* __restrict psi0 = t0.psi;
  T* __restrict psi1 = t1.psi;
  const T* __restrict ba0 = t0.ba;
  const T* __restrict ca0 = t0.ca;
  const T* __restrict kta0 = t0.kta;
  const T* __restrict ba1 = t1.ba;
  const T* __restrict ca1 = t1.ca;
  const T* __restrict kta1 = t1.kta;
  const T b0 = t0.b, c0 = t0.c, kt0 = t0.kt, b1 = t1.b, c1 = t1.c, kt1 = t1.kt;
#pragma GCC ivdep
  for (int64_t k = k0; k < k1; ++k) {
    const T d0 = hi0[k] - lo0[k];
    T curl = d0;
    if constexpr (kP0 == 1) {
      const T p = b0 * psi0[k] + c0 * d0;
      psi0[k] = p;
      curl += kt0 * d0 + p;
    } else if constexpr (kP0 == 2) {
      const T p = ba0[k] * psi0[k] + ca0[k] * d0;
      psi0[k] = p;
      curl += kta0[k] * d0 + p;
    }
    if constexpr (kTerms == 2) {
      const T d1 = hi1[k] - lo1[k];
      curl += d1;
      if constexpr (kP1 == 1) {
        const T p = b1 * psi1[k] + c1 * d1;
        psi1[k] = p;
        curl += kt1 * d1 + p;
      } else if constexpr (kP1 == 2) {
        const T p = ba1[k] * psi1[k] + ca1[k] * d1;
        psi1[k] = p;
        curl += kta1[k] * d1 + p;
      }
    }
    if constexpr (kMode == 0) {
      out[k] += s * curl;
    } else if constexpr (kMode == 1) {
      out[k] += scale[k] * curl;
    } else {
      out[k] = decay[k] * out[k] + scale[k] * curl;
    }
  }
}

template <class T>
using SegFn = void (*)(T*, const SegTerm<T>&, const SegTerm<T>&, const T*, const T*, T, int64_t, int64_t);

// The 2 x 3 x 3 x 3 kernel variants, indexed [terms - 1][mode][p0][p1].
template <class T, int kTerms, int kMode, int kP0>
constexpr std::array<SegFn<T>, 3> p1_table() {
  return {&seg_kernel<T, kTerms, kMode, kP0, 0>, &seg_kernel<T, kTerms, kMode, kP0, 1>,
          &seg_kernel<T, kTerms, kMode, kP0, 2>};
}
template <class T, int kTerms, int kMode>
constexpr std::array<std::array<SegFn<T>, 3>, 3> p0_table() {
  return {p1_table<T, kTerms, kMode, 0>(), p1_table<T, kTerms, kMode, 1>(), p1_table<T, kTerms, kMode, 2>()};
}
template <class T, int kTerms>
constexpr std::array<std::array<std::array<SegFn<T>, 3>, 3>, 3> mode_table() {
  return {p0_table<T, kTerms, 0>(), p0_table<T, kTerms, 1>(), p0_table<T, kTerms, 2>()};
}
template <class T>
const auto kSegKernels = std::array{mode_table<T, 1>(), mode_table<T, 2>()};

}  // namespace

template <class T, bool kH>
void process_rows(const Layout& L, const ComponentUpdate<T>& u, int parts, int64_t l0, int64_t l1_begin,
                  int64_t l1_end, Scratch<T>& scratch) {
  constexpr int kind = kH ? 1 : 0;  // the CPML table: H updates differentiate at half-integer positions
  const int64_t N0 = L.n[0], N1 = L.n[1], N2 = L.n[2], S0 = L.stride[0], S1 = L.stride[1];
  const int mode = u.decay ? 2 : (u.scale ? 1 : 0);
  const auto& kernels = kSegKernels<T>[size_t(u.terms - 1)][size_t(mode)];
  const int64_t kp = kH ? N2 - 1 : 0;  // the peeled sample of rows differentiated along themselves

  // What does not change from row to row: per term, the neighbour across planes (l = 0 terms),
  // the CPML state of this plane, and the segments along the row.
  bool along_row = false;
  int z_term = -1;
  int64_t plane_delta[2] = {0, 0};
  bool plane_wraps[2] = {false, false};
  int64_t plane_slab[2] = {-1, -1};
  for (int t = 0; t < u.terms; ++t) {
    const Term<T>& tm = u.term[t];
    if (tm.l == 2) {
      along_row = true;
      if (tm.pml) z_term = t;
    } else if (tm.l == 0) {
      plane_wraps[t] = kH ? l0 == N0 - 1 : l0 == 0;
      const int64_t target = kH ? (plane_wraps[t] ? 0 : l0 + 1) : (plane_wraps[t] ? N0 - 1 : l0 - 1);
      plane_delta[t] = (target - l0) * S0;
      if (tm.pml) plane_slab[t] = tm.pml->slab(l0);
    }
  }
  int64_t cuts[4] = {0, N2, N2, N2};
  int segments = 1;
  if (z_term >= 0) {
    const CpmlAxis<T>& ax = *u.term[z_term].pml;
    cuts[1] = std::min<int64_t>(ax.pml_low, N2);
    cuts[2] = std::max<int64_t>(cuts[1], N2 - ax.pml_high);
    segments = 3;
  }
  SegTerm<T> st[2];
  for (int t = 0; t < u.terms; ++t) {
    const Term<T>& tm = u.term[t];
    if (!tm.pml) continue;
    const CpmlAxis<T>& ax = *tm.pml;
    if (tm.l == 2) {
      st[t].ba = ax.b[size_t(kind)].data();
      st[t].ca = ax.c[size_t(kind)].data();
      st[t].kta = ax.kappa_term[size_t(kind)].data();
    } else if (tm.l == 0 && plane_slab[t] >= 0) {
      st[t].b = ax.b[size_t(kind)][size_t(l0)];
      st[t].c = ax.c[size_t(kind)][size_t(l0)];
      st[t].kt = ax.kappa_term[size_t(kind)][size_t(l0)];
    }
  }

  for (int64_t l1 = l1_begin; l1 < l1_end; ++l1) {
    const int64_t row = l0 * S0 + l1 * S1;
    const T* decay = u.decay ? u.decay + row : nullptr;
    const T* scale = u.scale ? u.scale + row : nullptr;
    int64_t row_slab[2] = {plane_slab[0], plane_slab[1]};
    for (int t = 0; t < u.terms; ++t) {
      const Term<T>& tm = u.term[t];
      if (tm.l != 1 || !tm.pml) continue;
      row_slab[t] = tm.pml->slab(l1);
      if (row_slab[t] >= 0) {
        st[t].b = tm.pml->b[size_t(kind)][size_t(l1)];
        st[t].c = tm.pml->c[size_t(kind)][size_t(l1)];
        st[t].kt = tm.pml->kappa_term[size_t(kind)][size_t(l1)];
      }
    }
    for (int p = 0; p < parts; ++p) {
      T* out = u.out[p] + row;
      T* psi_row[2] = {nullptr, nullptr};
      T edge[2] = {0, 0};
      for (int t = 0; t < u.terms; ++t) {
        const Term<T>& tm = u.term[t];
        const T* here = tm.src[p] + row;
        const T* hi;
        const T* lo;
        if (tm.l == 2) {
          // E: the neighbour before k = 0 is sample N2-1 times exp(-i phase); H: the one after
          // k = N2-1 is sample 0 times exp(+i phase) (cos/sin_phase hold the sign).
          const int64_t kw = kH ? 0 : N2 - 1;
          if (tm.bloch) {
            const T x = tm.src[0][row + kw], y = tm.src[1][row + kw];
            edge[t] = p == 0 ? x * tm.cos_phase - y * tm.sin_phase : x * tm.sin_phase + y * tm.cos_phase;
          } else {
            edge[t] = here[kw];
          }
          hi = kH ? here + 1 : here;
          lo = kH ? here : here - 1;
        } else {
          bool wraps;
          int64_t delta;
          if (tm.l == 0) {
            wraps = plane_wraps[t];
            delta = plane_delta[t];
          } else {
            wraps = kH ? l1 == N1 - 1 : l1 == 0;
            const int64_t target = kH ? (wraps ? 0 : l1 + 1) : (wraps ? N1 - 1 : l1 - 1);
            delta = (target - l1) * S1;
          }
          const T* other = here + delta;
          if (wraps && tm.bloch) {
            std::vector<T>& g = scratch.ghost[t][p];
            g.resize(size_t(N2));
            const T* xr = tm.src[0] + row + delta;
            const T* yr = tm.src[1] + row + delta;
            for (int64_t k = 0; k < N2; ++k)
              g[size_t(k)] = p == 0 ? xr[k] * tm.cos_phase - yr[k] * tm.sin_phase
                                    : xr[k] * tm.sin_phase + yr[k] * tm.cos_phase;
            other = g.data();
          }
          hi = kH ? other : here;
          lo = kH ? here : other;
        }
        if (tm.negative) std::swap(hi, lo);
        st[t].hi = hi;
        st[t].lo = lo;
        if (tm.pml) {
          const int64_t S = tm.pml->slabs();
          if (tm.l == 2)
            psi_row[t] = tm.psi[p] + (l0 * N1 + l1) * S;
          else if (row_slab[t] >= 0)
            psi_row[t] = tm.psi[p] + (tm.l == 0 ? (row_slab[t] * N1 + l1) * N2 : (l0 * S + row_slab[t]) * N2);
        }
      }
      for (int g = 0; g < segments; ++g) {
        int64_t a = cuts[g], b = cuts[g + 1];
        if (along_row && a < b && kp == a) ++a;
        if (along_row && a < b && kp == b - 1) --b;
        if (a >= b) continue;
        int pk[2] = {0, 0};
        for (int t = 0; t < u.terms; ++t) {
          if (t == z_term) {
            if (g != 1) {
              // psi index of sample k: k in the low slab, pml_low + k - (N2 - pml_high) in the high.
              const CpmlAxis<T>& ax = *u.term[t].pml;
              pk[t] = 2;
              st[t].psi = psi_row[t] + (g == 0 ? 0 : ax.pml_low - (N2 - ax.pml_high));
            }
          } else if (psi_row[t]) {
            pk[t] = 1;
            st[t].psi = psi_row[t];
          }
        }
        kernels[size_t(pk[0])][size_t(pk[1])](out, st[0], st[1], decay, scale, u.scale_uniform, a, b);
      }
      if (!along_row) continue;
      // The peeled sample, with its wrapped neighbour; the same arithmetic as the segments.
      const int64_t k = kp;
      T curl = 0;
      for (int t = 0; t < u.terms; ++t) {
        const Term<T>& tm = u.term[t];
        T d;
        if (tm.l == 2) {
          const T own = tm.src[p][row + k];
          d = kH ? edge[t] - own : own - edge[t];
          if (tm.negative) d = -d;
        } else {
          d = st[t].hi[k] - st[t].lo[k];
        }
        curl += d;
        if (!tm.pml) continue;
        T* psi;
        T b, c, kt;
        if (tm.l == 2) {
          const int64_t s = tm.pml->slab(k);
          if (s < 0) continue;
          psi = psi_row[t] + s;
          b = st[t].ba[k];
          c = st[t].ca[k];
          kt = st[t].kta[k];
        } else {
          if (!psi_row[t]) continue;
          psi = psi_row[t] + k;
          b = st[t].b;
          c = st[t].c;
          kt = st[t].kt;
        }
        const T v = b * *psi + c * d;
        *psi = v;
        curl += kt * d + v;
      }
      const T sk = scale ? scale[k] : u.scale_uniform;
      out[k] = (decay ? decay[k] : T(1)) * out[k] + sk * curl;
    }
  }
}

template std::vector<ComponentUpdate<float>> component_updates<float>(Fields<float>&, Cpml<float>&,
                                                                      const UpdateCoefficients<float>&,
                                                                      const ResolvedBoundaries&, const Layout&, bool);
template std::vector<ComponentUpdate<double>> component_updates<double>(Fields<double>&, Cpml<double>&,
                                                                        const UpdateCoefficients<double>&,
                                                                        const ResolvedBoundaries&, const Layout&, bool);
template void process_rows<float, true>(const Layout&, const ComponentUpdate<float>&, int, int64_t, int64_t,
                                        int64_t, Scratch<float>&);
template void process_rows<float, false>(const Layout&, const ComponentUpdate<float>&, int, int64_t, int64_t,
                                         int64_t, Scratch<float>&);
template void process_rows<double, true>(const Layout&, const ComponentUpdate<double>&, int, int64_t, int64_t,
                                         int64_t, Scratch<double>&);
template void process_rows<double, false>(const Layout&, const ComponentUpdate<double>&, int, int64_t, int64_t,
                                          int64_t, Scratch<double>&);

}  // namespace spire::elec::fdtd
