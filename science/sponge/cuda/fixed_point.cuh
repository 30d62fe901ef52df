// Deterministic accumulation on the GPU: forces, energies and virials are summed as 64-bit fixed-
// point integers (OpenMM's scheme). Integer addition is associative, so the sum of any set of
// contributions has the same bits whatever order thousands of threads add them in: a GPU run is
// reproducible, step for step, as the issue asks, without sorting or a fixed reduction tree.
//
// Scale 2^32: a resolution of 2.3e-10 (kJ/mol/nm for forces, kJ/mol for energies) and a range of
// +-2.1e9, far beyond any physical force or energy of a stable simulation; a contribution outside
// the range wraps, which a NaN check on the converted values would not see, so the conversions
// here saturate instead (a blown-up simulation shows huge numbers, not plausible ones).
//
// On the host (tests run kernel bodies in loops) the same functions add without atomics.
#pragma once
#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"

namespace spire::sponge::cuda {

inline constexpr double kFixedScale = 4294967296.0;  // 2^32
inline constexpr double kFixedLimit = 9.2e18;         // just inside int64's range

SPIRE_HD inline long long to_fixed(double v) {
  const double s = v * kFixedScale;
  // NaN compares false both ways and goes to the largest value: never silently zero.
  if (!(s < kFixedLimit)) return (long long)kFixedLimit;
  if (s < -kFixedLimit) return -(long long)kFixedLimit;
  return (long long)llrint(s);
}

SPIRE_HD inline double from_fixed(long long v) { return double(v) / kFixedScale; }

// *slot += v in fixed point; an atomic add on the device (unsigned: two's-complement wraps the same
// way, and CUDA's 64-bit atomicAdd takes unsigned long long).
SPIRE_HD inline void accumulate(long long* slot, double v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<unsigned long long*>(slot), (unsigned long long)to_fixed(v));
#else
  *slot = (long long)((unsigned long long)*slot + (unsigned long long)to_fixed(v));
#endif
}

// The same at another scale, for sums whose terms are bounded far more tightly than forces: PME's
// charge mesh (each point a sum of q theta^3, a few e at most) takes 2^40, a resolution of 9e-13 e
// and a range of +-8.4e6 e, so that rounding the spread charges costs the reciprocal sum no digits
// a double-precision mesh would keep.
inline constexpr double kMeshFixedScale = 1099511627776.0;  // 2^40

SPIRE_HD inline long long to_fixed(double v, double scale) {
  const double s = v * scale;
  if (!(s < kFixedLimit)) return (long long)kFixedLimit;
  if (s < -kFixedLimit) return -(long long)kFixedLimit;
  return (long long)llrint(s);
}

SPIRE_HD inline double from_fixed(long long v, double scale) { return double(v) / scale; }

SPIRE_HD inline void accumulate(long long* slot, double v, double scale) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<unsigned long long*>(slot), (unsigned long long)to_fixed(v, scale));
#else
  *slot = (long long)((unsigned long long)*slot + (unsigned long long)to_fixed(v, scale));
#endif
}

}  // namespace spire::sponge::cuda
