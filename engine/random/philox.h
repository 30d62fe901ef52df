// Philox-4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the counter-based generator of Random123, cuRAND and JAX. A block is a bijection of a
// 128-bit counter under a 64-bit key, so element i of a draw is computed from (seed, stream, block
// index) alone: no state is carried between elements, threads or devices.
//
// Layout used by Spire: key = seed (low word first); counter = (block index: low, high; stream:
// low, high). Everything here is plain integer arithmetic plus a few correctly rounded float
// operations (conversions, explicit fma, and log/sin/cos built from those), so a CUDA kernel that
// includes this header gets the same bits.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/core/host_device.h"

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

// Integers are converted through int32 (which vector units convert; unsigned and 64-bit ones
// they do not) and assembled exactly.
// [0, 1) with 24 random bits: every float32 multiple of 2^-24.
SPIRE_HD inline float unit_float(uint32_t x) { return float(int32_t(x >> 8)) * 0x1.0p-24f; }
// (0, 1]: for logarithms.
SPIRE_HD inline float unit_float_open0(uint32_t x) { return float(int32_t((x >> 8) + 1)) * 0x1.0p-24f; }
// k 2^-53 for the 53-bit k = (hi lo) >> 11, as 26 high bits times 2^27 plus 27 low bits (exact).
SPIRE_HD inline double unit_double(uint32_t hi, uint32_t lo) {
  double a = double(int32_t(hi >> 6)), b = double(int32_t(((hi & 63u) << 21) | (lo >> 11)));
  return std::fma(a, 0x1.0p27, b) * 0x1.0p-53;
}
// (0, 1]: (k + 1) 2^-53.
SPIRE_HD inline double unit_double_open0(uint32_t hi, uint32_t lo) {
  double a = double(int32_t(hi >> 6)), b = double(int32_t(((hi & 63u) << 21) | (lo >> 11)) + 1);
  return std::fma(a, 0x1.0p27, b) * 0x1.0p-53;
}

// u in [0, 1) to low + (high - low) u in T, kept below `high` where rounding would reach it.
template <class T>
struct UnitScale {
  T low, width, high, below;  // below: the largest T under high
  SPIRE_HD UnitScale(T lo, T hi) : low(lo), width(hi - lo), high(hi), below(std::nextafter(hi, lo)) {}
  SPIRE_HD T operator()(T u) const {
    T r = std::fma(u, width, low);
    return r < high ? r : below;
  }
};

namespace detail {

// log(x) and sin, cos of 2 pi u, from bit manipulation, rint and correctly rounded +, -, *,
// /, sqrt and explicit fma only (no library transcendental, no contractible a * b + c), so the
// bits are the same on every IEEE-754 device. Accuracy is a few ulp.
inline constexpr double kLn2Hi = 0.6931467056274414;     // ln 2 with 32 trailing zero bits:
inline constexpr double kLn2Lo = 4.7493250390316726e-07;  // e * kLn2Hi is exact
inline constexpr double kTwoPi = 6.283185307179586;

// For normal (not subnormal) positive x, which is all Box-Muller needs.
SPIRE_HD inline double log_portable(double x) {
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)), by integer arithmetic on the bits (as musl's log;
  // frexp and selects keep loops over this from vectorising).
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  uint64_t t = bits - 0x3fe6a09e667f3bcdull;  // the bits of sqrt(1/2)
  double de = double(int32_t(int64_t(t) >> 52));  // int32: converts in vectors
  uint64_t mbits = bits - (t & 0xfff0000000000000ull);
  double m;
  std::memcpy(&m, &mbits, sizeof m);
  // log m = 2 atanh(s) = 2 s sum_k s^2k / (2k + 1), |s| < 0.172
  double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  // Straight-line Horner (no loops or tables), so that loops calling this vectorise.
  double p = 0.043478260869565216;
  p = std::fma(p, s2, 0.047619047619047616);
  p = std::fma(p, s2, 0.05263157894736842);
  p = std::fma(p, s2, 0.058823529411764705);
  p = std::fma(p, s2, 0.06666666666666667);
  p = std::fma(p, s2, 0.07692307692307693);
  p = std::fma(p, s2, 0.09090909090909091);
  p = std::fma(p, s2, 0.1111111111111111);
  p = std::fma(p, s2, 0.14285714285714285);
  p = std::fma(p, s2, 0.2);
  p = std::fma(p, s2, 0.3333333333333333);
  p = std::fma(p, s2, 1.0);
  double lm = (2.0 * s) * p;
  return std::fma(de, kLn2Hi, std::fma(de, kLn2Lo, lm));
}

// sin(2 pi u) and cos(2 pi u) for u in [0, 1]: reduced to a quarter turn exactly (u - q / 4 needs
// no rounding), then Taylor series on |t| <= pi / 4.
SPIRE_HD inline void sincos_turns(double u, double& sn, double& cs) {
  double q = std::rint(4.0 * u);
  double t = kTwoPi * (u - 0.25 * q), t2 = t * t;
  double ps = 1.9572941063391263e-20, pc = 4.110317623312165e-19;
  ps = std::fma(ps, t2, -8.22063524662433e-18);
  pc = std::fma(pc, t2, -1.5619206968586225e-16);
  ps = std::fma(ps, t2, 2.8114572543455206e-15);
  pc = std::fma(pc, t2, 4.779477332387385e-14);
  ps = std::fma(ps, t2, -7.647163731819816e-13);
  pc = std::fma(pc, t2, -1.1470745597729725e-11);
  ps = std::fma(ps, t2, 1.6059043836821613e-10);
  pc = std::fma(pc, t2, 2.08767569878681e-09);
  ps = std::fma(ps, t2, -2.505210838544172e-08);
  pc = std::fma(pc, t2, -2.755731922398589e-07);
  ps = std::fma(ps, t2, 2.7557319223985893e-06);
  pc = std::fma(pc, t2, 2.48015873015873e-05);
  ps = std::fma(ps, t2, -0.0001984126984126984);
  pc = std::fma(pc, t2, -0.001388888888888889);
  ps = std::fma(ps, t2, 0.008333333333333333);
  pc = std::fma(pc, t2, 0.041666666666666664);
  ps = std::fma(ps, t2, -0.16666666666666666);
  pc = std::fma(pc, t2, -0.5);
  double s = std::fma(t * t2, ps, t), c = std::fma(t2, pc, 1.0);
  // Rotate by q quarter turns (selects, not a switch, so that loops over this vectorise).
  int qi = int(q);
  double a = (qi & 1) ? c : s, b = (qi & 1) ? s : c;
  sn = (qi & 2) ? -a : a;
  cs = ((qi + 1) & 2) ? -b : b;
}

}  // namespace detail

// Box-Muller: two uniforms (u1 in (0, 1], u2 in [0, 1)) to two independent standard normals
// r cos(2 pi u2), r sin(2 pi u2) with r^2 = -2 log u1, in double with the portable functions above,
// so float32 and float64 draws match bit for bit on every backend. (CPU kernels evaluate the same
// steps in separate loops, so that all but the square root vectorise.)
SPIRE_HD inline double box_muller_r2(double u1) { return -2.0 * detail::log_portable(u1); }
SPIRE_HD inline void box_muller(double u1, double u2, double& z0, double& z1) {
  double r = std::sqrt(box_muller_r2(u1));
  double sn, cs;
  detail::sincos_turns(u2, sn, cs);
  z0 = r * cs;
  z1 = r * sn;
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
