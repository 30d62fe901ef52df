// Energies and virials of the force kernels: each thread's body returns its share as a Tally of
// doubles (up to two energy terms and the six independent virial components), and the share is
// added to the totals in fixed point (fixed_point.cuh), so the totals have the same bits whatever
// order threads finish in.
//
// On the device a warp first sums its 32 tallies in doubles by a fixed tree (__shfl_down_sync with
// offsets 16, 8, 4, 2, 1: which thread adds to which depends only on the lane, and a lane's tally
// only on its item), then one lane adds the sum with one atomic per value: 32 times fewer atomics
// and roundings than one per thread, and still the same bits every run. On the host (tests running
// the bodies in loops) each tally is added as it is: simpler, and just as order-independent.
#pragma once
#include "engine/core/host_device.h"
#include "science/sponge/cuda/fixed_point.cuh"

namespace spire::sponge::cuda {

// Virial components in this order: xx xy xz yy yz zz (W is symmetric for the terms here).
enum VirialComponent { kWxx = 0, kWxy = 1, kWxz = 2, kWyy = 3, kWyz = 4, kWzz = 5 };

struct Tally {
  double energy[2] = {0, 0};
  double virial[6] = {0, 0, 0, 0, 0, 0};

  // A pair's share: d (x) f with f = fr d (LJ and Coulomb pairs, d = r_i - r_j, fr d the force on i).
  SPIRE_HD void add_pair_virial(double dx, double dy, double dz, double fx, double fy, double fz) {
    virial[kWxx] += dx * fx, virial[kWxy] += dx * fy, virial[kWxz] += dx * fz;
    virial[kWyy] += dy * fy, virial[kWyz] += dy * fz, virial[kWzz] += dz * fz;
  }
};

// Where a kernel's tallies go: totals[energy[k]] for energy k (< 0: the kernel has no such energy)
// and totals[virial .. virial + 5] (< 0: no virial).
struct TallySlots {
  long long* totals = nullptr;
  int energy[2] = {-1, -1};
  int virial = -1;
};

// One thread's tally into the totals (the host path).
SPIRE_HD inline void commit(const TallySlots& s, const Tally& t) {
  for (int k = 0; k < 2; ++k)
    if (s.energy[k] >= 0) accumulate(s.totals + s.energy[k], t.energy[k]);
  if (s.virial >= 0)
    for (int c = 0; c < 6; ++c) accumulate(s.totals + s.virial + c, t.virial[c]);
}

#if defined(__CUDACC__)
// The warp's sum, in lane 0. Every lane of the warp must call it (threads without an item pass 0).
__device__ inline double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The warp's tallies into the totals: every lane of the warp must call it (threads past the last
// item with an empty tally), so kernels that use it launch whole warps and never return early.
__device__ inline void commit_warp(const TallySlots& s, const Tally& t) {
  const bool lead = (threadIdx.x & 31) == 0;
  for (int k = 0; k < 2; ++k)
    if (s.energy[k] >= 0) {
      const double v = warp_sum(t.energy[k]);
      if (lead && v != 0) accumulate(s.totals + s.energy[k], v);
    }
  if (s.virial >= 0)
    for (int c = 0; c < 6; ++c) {
      const double v = warp_sum(t.virial[c]);
      if (lead && v != 0) accumulate(s.totals + s.virial + c, v);
    }
}
#endif

}  // namespace spire::sponge::cuda
