// Philox-4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the counter-based generator of Random123, cuRAND and JAX. A block is a bijection of a
// 128-bit counter under a 64-bit key, so element i of a draw is computed from (seed, stream, block
// index) alone: no state is carried between elements, threads or devices.
//
// Layout used by Spire: key = seed (low word first); counter = (block index: low, high; stream:
// low, high). Everything here is plain integer arithmetic plus a few correctly rounded float
// operations (conversions, explicit fma), so a CUDA kernel that includes this header gets the same
// bits; only the transcendental functions of the normal transform (log, sin, cos) come from the
// device's math library.
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SPIRE_HD __host__ __device__
#else
#define SPIRE_HD
#endif

namespace spire::philox {

// Plain aggregates rather than std::array, whose members are host-only in CUDA device code.
struct Block {
  uint32_t v[4];
  SPIRE_HD constexpr uint32_t operator[](int i) const { return v[i]; }
  SPIRE_HD constexpr uint32_t& operator[](int i) { return v[i]; }
  friend constexpr bool operator==(const Block&, const Block&) = default;
};
struct Key {
  uint32_t v[2];
  SPIRE_HD constexpr uint32_t operator[](int i) const { return v[i]; }
};

inline constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
inline constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments

SPIRE_HD constexpr Block single_round(const Block& c, const Key& k) {
  uint64_t p0 = uint64_t(kM0) * c[0], p1 = uint64_t(kM1) * c[2];
  return {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
}

// Philox-4x32 with `rounds` rounds (10 is the standard, crush-resistant choice).
SPIRE_HD constexpr Block philox4x32(Block ctr, Key key, int rounds = 10) {
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) key = {key[0] + kW0, key[1] + kW1};
    ctr = single_round(ctr, key);
  }
  return ctr;
}

// The block at `index` of stream `stream` under `seed`.
SPIRE_HD constexpr Block block(uint64_t seed, uint64_t stream, uint64_t index) {
  return philox4x32({uint32_t(index), uint32_t(index >> 32), uint32_t(stream), uint32_t(stream >> 32)},
                    {uint32_t(seed), uint32_t(seed >> 32)});
}

// --- Conversions from random bits. Each is exact or one correctly rounded operation. ---

// [0, 1) with 24 random bits: every float32 multiple of 2^-24.
SPIRE_HD inline float unit_float(uint32_t x) { return float(x >> 8) * 0x1.0p-24f; }
// (0, 1]: for logarithms.
SPIRE_HD inline float unit_float_open0(uint32_t x) { return float((x >> 8) + 1) * 0x1.0p-24f; }
// [0, 1) with 53 random bits.
SPIRE_HD inline double unit_double(uint32_t hi, uint32_t lo) {
  return double(((uint64_t(hi) << 32) | lo) >> 11) * 0x1.0p-53;
}
SPIRE_HD inline double unit_double_open0(uint32_t hi, uint32_t lo) {
  return double((((uint64_t(hi) << 32) | lo) >> 11) + 1) * 0x1.0p-53;
}

// low + (high - low) * u in T, kept below `high` where rounding would reach it.
template <class T>
SPIRE_HD inline T scale_unit(T u, T low, T high) {
  T r = std::fma(u, high - low, low);
  return r < high ? r : std::nextafter(high, low);
}

// Box-Muller: two uniforms (u1 in (0, 1], u2 in [0, 1)) to two independent standard normals,
// computed in double so that float32 results are the correctly rounded values of nearly exact ones.
SPIRE_HD inline void box_muller(double u1, double u2, double& z0, double& z1) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  double r = std::sqrt(-2.0 * std::log(u1));
  double t = kTwoPi * u2;
  z0 = r * std::cos(t);
  z1 = r * std::sin(t);
}

// floor(U * range) for a 128-bit fixed-point U in [0, 1) made of the block's four words. One block
// per draw and no rejection, so consumption is fixed; the probability of each of the `range`
// outcomes differs from 1/range by less than 2^-64 relative (range < 2^64).
SPIRE_HD inline uint64_t bounded(const Block& b, uint64_t range) {
  uint64_t xh = (uint64_t(b[0]) << 32) | b[1], xl = (uint64_t(b[2]) << 32) | b[3];
#if defined(__CUDA_ARCH__)
  uint64_t lo_hi = __umul64hi(xl, range);
  uint64_t mid_lo = xh * range, mid_hi = __umul64hi(xh, range);
  return mid_hi + (mid_lo + lo_hi < mid_lo ? 1 : 0);
#else
  unsigned __int128 t = (unsigned __int128)xh * range + (((unsigned __int128)xl * range) >> 64);
  return uint64_t(t >> 64);
#endif
}

}  // namespace spire::philox
