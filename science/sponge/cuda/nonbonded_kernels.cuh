// The nonbonded kernel bodies: Lennard-Jones and direct-space Coulomb over the rows of the half
// neighbour list, the Ewald correction of excluded pairs, and 1-4 pairs. Formulas, cutoffs and
// conventions are the CPU terms' (lennard_jones.cpp, coulomb.cpp), operation for operation where
// that costs nothing, so host runs of these bodies agree with the CPU platform to rounding.
//
//   row i       every listed j: LJ (cut, shifted, force_switch) when r < rc_lj, Coulomb (Ewald
//               erfc(alpha r)/r = 1/r - g(r) with the CPU's cubic spline of g = erf(alpha r)/r, or
//               reaction field) when r < rc_coulomb, in one pass; the force on i is summed in
//               registers and added once, the force on j added per pair (fixed point)
//   exclusion   -k q_i q_j erf(alpha r)/r for an excluded pair (Ewald/PME only), exact erf
//   1-4 pair    lj_scale times the full LJ and coulomb_scale k q_i q_j / r, no cutoff
//
// Energies land in two tally slots (LJ, Coulomb), the virial in the six shared ones.
#pragma once
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "science/sponge/cuda/device_box.cuh"
#include "science/sponge/cuda/device_vec.cuh"
#include "science/sponge/cuda/fixed_point.cuh"
#include "science/sponge/cuda/tally.cuh"
#include "science/sponge/system.h"

namespace spire::sponge::cuda {

// Lennard-Jones as LennardJones::KernelParameters gives it; the table holds c12, c6, shift and a
// pad per type pair (ta * ntypes + tb).
struct LjConstants {
  int enabled = 0;
  int ntypes = 0;
  double rc2 = 0;
  int switched = 0;
  double rs = 0, a12 = 0, b12 = 0, a6 = 0, b6 = 0;
};

enum CoulombKind { kNoCoulomb = 0, kEwaldCoulomb = 1, kReactionFieldCoulomb = 2 };

struct CoulombConstants {
  int kind = kNoCoulomb;
  double prefactor = 0;  // units.coulomb
  double rc2 = 0;
  double alpha = 0;                  // Ewald
  double inv_h = 0;                  // Ewald: the spline's 1 / spacing
  int last = 0;                      // Ewald: the spline's last interval
  double k_rf = 0, c_rf = 0;         // reaction field
};

struct NonbondedArgs {
  const double* x = nullptr;  // 3n
  DeviceBox box;
  const int64_t* offsets = nullptr;
  const int32_t* neighbors = nullptr;
  LjConstants lj;
  const int* type = nullptr;
  const double* lj_table = nullptr;  // 4 per type pair
  CoulombConstants coulomb;
  const double* charge = nullptr;
  const double* erf_c[4] = {nullptr, nullptr, nullptr, nullptr};  // the spline's coefficient arrays
  long long* force = nullptr;  // 3n fixed point
  TallySlots slots;            // energy[0] LJ, energy[1] Coulomb
};

// Ewald's direct-space pair per k q_i q_j: e = 1/r - g(r), s = -dE/dr / r (coulomb.cpp's EwaldKernel).
SPIRE_HD inline void ewald_pair(const CoulombConstants& c, const double* const* coef, double r2, double& e, double& s) {
  const double inv_r = 1 / sqrt(r2);
  const double x = r2 * inv_r * c.inv_h;
  int k = int(x);
  k = k < c.last ? k : c.last;
  const double t = x - double(k);
  const double a0 = coef[0][k], a1 = coef[1][k], a2 = coef[2][k], a3 = coef[3][k];
  const double g = a0 + t * (a1 + t * (a2 + t * a3));
  const double dg = (a1 + t * (2 * a2 + 3 * t * a3)) * c.inv_h;
  e = inv_r - g;
  s = (inv_r * inv_r + dg) * inv_r;
}

// Row i of the half list.
SPIRE_HD inline void nonbonded_row(const NonbondedArgs& a, int64_t i, Tally& tally) {
  const int64_t begin = a.offsets[i], end = a.offsets[i + 1];
  if (end == begin) return;
  const double xi = a.x[3 * i], yi = a.x[3 * i + 1], zi = a.x[3 * i + 2];
  const LjConstants& lj = a.lj;
  const CoulombConstants& cc = a.coulomb;
  const double* row_table = lj.enabled ? a.lj_table + 4 * int64_t(a.type[i]) * lj.ntypes : nullptr;
  const double kqi = cc.kind != kNoCoulomb ? cc.prefactor * a.charge[i] : 0;
  double fix = 0, fiy = 0, fiz = 0, e_lj = 0, e_coulomb = 0;
  for (int64_t k = begin; k < end; ++k) {
    const int64_t j = a.neighbors[k];
    double dx = xi - a.x[3 * j], dy = yi - a.x[3 * j + 1], dz = zi - a.x[3 * j + 2];
    a.box.min_image(dx, dy, dz);
    const double r2 = dx * dx + dy * dy + dz * dz;
    double fr = 0;  // the force on i is fr d, d = r_i - r_j
    bool inside = false;
    if (lj.enabled && r2 < lj.rc2) {
      const double* c = row_table + 4 * a.type[j];
      const double c12 = c[0], c6 = c[1], shift = c[2];
      const double r2inv = 1 / r2;
      const double r6inv = r2inv * r2inv * r2inv;
      double f = r6inv * (12 * c12 * r6inv - 6 * c6) * r2inv;
      double u = r6inv * (c12 * r6inv - c6) - shift;
      if (lj.switched) {
        const double r = sqrt(r2);
        double t = r - lj.rs;
        t = t > 0 ? t : 0;
        const double t2 = t * t, t3 = t2 * t;
        f += (c12 * (lj.a12 * t2 + lj.b12 * t3) - c6 * (lj.a6 * t2 + lj.b6 * t3)) * r2inv * r;
        u -= c12 * (lj.a12 / 3 * t3 + lj.b12 / 4 * t3 * t) - c6 * (lj.a6 / 3 * t3 + lj.b6 / 4 * t3 * t);
      }
      fr += f;
      e_lj += u;
      inside = true;
    }
    if (cc.kind != kNoCoulomb && r2 < cc.rc2) {
      const double kqq = kqi * a.charge[j];
      double e, s;
      if (cc.kind == kEwaldCoulomb) {
        ewald_pair(cc, a.erf_c, r2, e, s);
      } else {
        const double inv_r = 1 / sqrt(r2);
        e = inv_r + cc.k_rf * r2 - cc.c_rf;
        s = inv_r * inv_r * inv_r - 2 * cc.k_rf;
      }
      fr += kqq * s;
      e_coulomb += kqq * e;
      inside = true;
    }
    if (!inside) continue;
    const double fx = fr * dx, fy = fr * dy, fz = fr * dz;
    fix += fx, fiy += fy, fiz += fz;
    accumulate(a.force + 3 * j, -fx);
    accumulate(a.force + 3 * j + 1, -fy);
    accumulate(a.force + 3 * j + 2, -fz);
    tally.add_pair_virial(dx, dy, dz, fx, fy, fz);
  }
  accumulate(a.force + 3 * i, fix);
  accumulate(a.force + 3 * i + 1, fiy);
  accumulate(a.force + 3 * i + 2, fiz);
  tally.energy[0] += e_lj;
  tally.energy[1] += e_coulomb;
}

// erf(alpha r) / r and its r-derivative, exact (coulomb.cpp's erf_over_r and its derivative: a
// series where erf(x)/x would lose digits to cancellation).
SPIRE_HD inline double erf_over_r(double alpha, double r) {
  const double x = alpha * r;
  if (x < 0.1) {
    double sum = 0, term = 1;
    const double x2 = x * x;
    for (int n = 0; n <= 8; ++n) {
      sum += term / (2 * n + 1);
      term *= -x2 / (n + 1);
    }
    return 1.1283791670955126 * alpha * sum;
  }
  return erf(x) / r;
}

SPIRE_HD inline double erf_over_r_derivative(double alpha, double r) {
  const double x = alpha * r;
  if (x < 0.1) {
    double sum = 0, term = -x;
    const double x2 = x * x;
    for (int n = 1; n <= 9; ++n) {
      sum += term * 2.0 / (2 * n + 1);
      term *= -x2 / n;
    }
    return 1.1283791670955126 * alpha * alpha * sum;
  }
  return (1.1283791670955126 * alpha * exp(-x * x) - erf(x) / r) / r;
}

struct IndexPair {
  int i, j;
};

struct ExclusionArgs {
  const double* x = nullptr;
  DeviceBox box;
  const IndexPair* pairs = nullptr;  // Topology::exclusions
  const double* charge = nullptr;
  double prefactor = 0, alpha = 0;
  long long* force = nullptr;
  TallySlots slots;  // energy[0] Coulomb
};

// Excluded pair k: what the reciprocal sum counted and must not (add_ewald_exclusions).
SPIRE_HD inline void ewald_exclusion(const ExclusionArgs& a, int64_t k, Tally& tally) {
  const int i = a.pairs[k].i, j = a.pairs[k].j;
  const double qq = a.prefactor * a.charge[i] * a.charge[j];
  if (qq == 0) return;
  const V3 d = min_image(a.box, load3(a.x, j) - load3(a.x, i));
  const double r = norm(d);
  tally.energy[0] -= qq * erf_over_r(a.alpha, r);
  if (!(r > 0)) return;
  const V3 f = d * (qq * erf_over_r_derivative(a.alpha, r) / r);  // on j
  accumulate3(a.force, i, -f);
  accumulate3(a.force, j, f);
  add_outer(tally.virial, d, f);
}

struct Pair14Args {
  const double* x = nullptr;
  DeviceBox box;
  const Pair14* pairs = nullptr;
  LjConstants lj;  // enabled: an LJ term adds its 1-4 part
  const int* type = nullptr;
  const double* lj_table = nullptr;
  int coulomb = 0;  // a Coulomb term adds its 1-4 part
  double prefactor = 0;
  const double* charge = nullptr;
  long long* force = nullptr;
  TallySlots slots;  // energy[0] LJ, energy[1] Coulomb
};

// 1-4 pair k: LennardJones::add's and add_coulomb14's.
SPIRE_HD inline void pair14(const Pair14Args& a, int64_t k, Tally& tally) {
  const Pair14 p = a.pairs[k];
  if (a.lj.enabled) {
    const double* c = a.lj_table + 4 * (int64_t(a.type[p.i]) * a.lj.ntypes + a.type[p.j]);
    const V3 d = min_image(a.box, load3(a.x, p.i) - load3(a.x, p.j));
    const double r2inv = 1 / norm2(d), r6inv = r2inv * r2inv * r2inv;
    const double fr = p.lj_scale * r6inv * (12 * c[0] * r6inv - 6 * c[1]) * r2inv;
    tally.energy[0] += p.lj_scale * r6inv * (c[0] * r6inv - c[1]);
    const V3 f = d * fr;
    accumulate3(a.force, p.i, f);
    accumulate3(a.force, p.j, -f);
    add_outer(tally.virial, d, f);
  }
  if (a.coulomb) {
    const double qq = p.coulomb_scale * a.prefactor * a.charge[p.i] * a.charge[p.j];
    if (qq == 0) return;
    const V3 d = min_image(a.box, load3(a.x, p.j) - load3(a.x, p.i));
    const double r2 = norm2(d), r = sqrt(r2);
    tally.energy[1] += qq / r;
    const V3 f = d * (qq / (r2 * r));  // on j
    accumulate3(a.force, p.i, -f);
    accumulate3(a.force, p.j, f);
    add_outer(tally.virial, d, f);
  }
}

// Launchers (nonbonded_kernels.cu): one thread per row / pair on `stream`; nothing for zero items.
void launch_nonbonded_rows(const NonbondedArgs& a, int64_t rows, cudaStream_t stream);
void launch_ewald_exclusions(const ExclusionArgs& a, int64_t pairs, cudaStream_t stream);
void launch_pairs14(const Pair14Args& a, int64_t pairs, cudaStream_t stream);

}  // namespace spire::sponge::cuda
