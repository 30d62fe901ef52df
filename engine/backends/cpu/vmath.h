// Branch-free exp and log (and what is built on them) that GCC vectorises inside the elementwise
// loops. glibc's vector math (libmvec) is only used by the compiler under -ffast-math, and its
// variants differ from the scalar ones in the last bits, so the bits of a result would depend on
// whether an element landed in a vector body or a scalar tail (and so on the thread count). These
// functions are plain arithmetic: the same bits in every lane and on every path.
//
// Accuracy, checked against libm in double precision over every float32 input:
// - float32 exp and tanh are computed in float32 (8 lanes): within 1 ulp, and correctly rounded
//   for all but ~0.2% of inputs.
// - float32 sigmoid, log, log1p and softplus are computed in double and rounded once: within
//   1 ulp, and correctly rounded for all but about one input in a million.
// - float64 exp (and sigmoid) are within 1 ulp: Cody-Waite reduction with FMA, a degree-13 Taylor
//   polynomial on |r| <= ln2/2, and 2^n applied in two halves so subnormal results come out right.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace spire::cpu::vmath {

// Everything here is always inlined: a call left in a loop body stops vectorisation, and GCC's
// heuristics decline to inline exp into its several callers in one file.

inline constexpr double kLog2e = 0x1.71547652b82fep0;
inline constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
inline constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
// Adding this rounds a double below 2^51 in magnitude to an integer held in the low mantissa bits.
inline constexpr double kShifter = 0x1.8p52;

// Rounds to the nearest integer (ties to even) for |x| < 2^51; NaN stays NaN.
[[gnu::always_inline]] inline double round_int(double x) { return (x + kShifter) - kShifter; }

// 2^k for an integer-valued double k in [-1022, 1023], built in the exponent field.
[[gnu::always_inline]] inline double exp2_int(double k) {
  uint64_t b = std::bit_cast<uint64_t>(k + kShifter);  // low bits: 2^51 + k
  return std::bit_cast<double>((b + 1023) << 52);       // the shift drops everything but k + 1023
}

// Out-of-range inputs get their result by a bitwise select on the finished value. A clamp or a
// ?: lets GCC move the arithmetic onto one branch, and under the default -ftrapping-math it then
// refuses to if-convert, and so to vectorise, the loop.
template <class T>
[[gnu::always_inline]] inline T select(bool c, T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  U m = U(0) - U(c);
  return std::bit_cast<T>(U((std::bit_cast<U>(a) & m) | (std::bit_cast<U>(b) & ~m)));
}
inline constexpr double kInf = __builtin_huge_val();

// float32 versions of the above: round_int for |x| < 2^22, and 2^k for integer k in [-126, 127].
[[gnu::always_inline]] inline float round_int(float x) { return (x + 0x1.8p23f) - 0x1.8p23f; }
[[gnu::always_inline]] inline float exp2_int(float k) {
  uint32_t b = std::bit_cast<uint32_t>(k + 0x1.8p23f);
  return std::bit_cast<float>((b + 127) << 23);
}

// e^x in double, accurate to ~2^-37 relative (degree-9 Taylor): enough for float32 results, which
// are all normal doubles, so one 2^n suffices for |x| <= 700.
[[gnu::always_inline]] inline double exp_for_f32(double x) {
  double n = round_int(x * kLog2e);
  double r = std::fma(-n, kLn2Hi, x);
  double p = 1.0 / 362880;
  p = std::fma(p, r, 1.0 / 40320);
  p = std::fma(p, r, 1.0 / 5040);
  p = std::fma(p, r, 1.0 / 720);
  p = std::fma(p, r, 1.0 / 120);
  p = std::fma(p, r, 1.0 / 24);
  p = std::fma(p, r, 1.0 / 6);
  p = std::fma(p, r, 0.5);
  p = std::fma(p, r, 1.0);
  p = std::fma(p, r, 1.0);
  double e = p * exp2_int(n);
  e = select(x > 700.0, kInf, e);
  return select(x < -700.0, 0.0, e);  // NaN fails both tests and stays NaN
}

// e^x in float32: reduction by ln2 split in two floats (exact products inside the FMAs), a
// degree-7 Taylor polynomial on |r| <= ln2/2 (truncation 2^-27.5), 2^n in two halves as below.
[[gnu::always_inline]] inline float exp(float x) {
  float n = round_int(x * 0x1.715476p0f);
  float r = std::fma(-n, 0x1.62e43p-1f, x);
  r = std::fma(-n, -0x1.05c610p-29f, r);
  float p = 1.0f / 5040;
  p = std::fma(p, r, 1.0f / 720);
  p = std::fma(p, r, 1.0f / 120);
  p = std::fma(p, r, 1.0f / 24);
  p = std::fma(p, r, 1.0f / 6);
  p = std::fma(p, r, 0.5f);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
  float h = round_int(0.5f * n);
  float e = p * exp2_int(h) * exp2_int(n - h);  // |n| <= 159 here: both halves are normal
  e = select(x > 100.0f, std::numeric_limits<float>::infinity(), e);
  return select(x < -110.0f, 0.0f, e);
}

[[gnu::always_inline]] inline double exp(double x) {
  double n = round_int(x * kLog2e);
  double r = std::fma(-n, kLn2Hi, x);
  r = std::fma(-n, kLn2Lo, r);
  double p = 1.0 / 6227020800;
  p = std::fma(p, r, 1.0 / 479001600);
  p = std::fma(p, r, 1.0 / 39916800);
  p = std::fma(p, r, 1.0 / 3628800);
  p = std::fma(p, r, 1.0 / 362880);
  p = std::fma(p, r, 1.0 / 40320);
  p = std::fma(p, r, 1.0 / 5040);
  p = std::fma(p, r, 1.0 / 720);
  p = std::fma(p, r, 1.0 / 120);
  p = std::fma(p, r, 1.0 / 24);
  p = std::fma(p, r, 1.0 / 6);
  p = std::fma(p, r, 0.5);
  p = std::fma(p, r, 1.0);
  p = std::fma(p, r, 1.0);
  // 2^n as 2^h * 2^(n-h): each half is a normal number even when e^x is subnormal or overflows.
  // Exact for |x| < 1400 (|n| <= 2046); beyond, the result is 0 or inf.
  double h = round_int(0.5 * n);
  double e = p * exp2_int(h) * exp2_int(n - h);
  e = select(x > 1000.0, kInf, e);
  return select(x < -1000.0, 0.0, e);
}

// 1 / (1 + e^-x): no cancellation, so exp's accuracy carries over.
[[gnu::always_inline]] inline float sigmoid(float x) { return float(1.0 / (1.0 + exp_for_f32(-double(x)))); }
[[gnu::always_inline]] inline double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// tanh in float32: below |x| = 0.625 the odd polynomial x + x^3 P(x^2) of Cephes' tanhf; above,
// 1 - 2 / (e^{2|x|} + 1), where the cancellation is mild (at most a factor 1.5) and e^{2|x|} = inf
// gives 1.
[[gnu::always_inline]] inline float tanh(float x) {
  float ax = std::fabs(x), z = x * x;
  float p = -5.70498872745e-3f;
  p = std::fma(p, z, 2.06390887954e-2f);
  p = std::fma(p, z, -5.37397155531e-2f);
  p = std::fma(p, z, 1.33314422036e-1f);
  p = std::fma(p, z, -3.33332819422e-1f);
  float small = std::fma(p * z, x, x);
  float large = std::copysign(1.0f - 2.0f / (exp(2.0f * ax) + 1.0f), x);
  return select(ax < 0.625f, small, large);
}

// log x in double for x > 0 normal (every float32 is a normal double), relative error ~2^-36:
// enough for float32 results. x = 2^e m with m in [sqrt(1/2), sqrt(2)), and
// log m = 2 atanh(s) = 2 (s + s^3/3 + ... + s^11/11) with s = (m - 1) / (m + 1), |s| < 0.172.
// m - 1 is exact, so log x keeps its relative accuracy near x = 1.
[[gnu::always_inline]] inline double log_for_f32(double x) {
  uint64_t b = std::bit_cast<uint64_t>(x);
  double m = std::bit_cast<double>((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);  // [1, 2)
  double e = std::bit_cast<double>((b >> 52) | 0x4330000000000000ULL) - 0x1.00000000003ffp52;  // exponent - 1023
  bool big = m > 0x1.6a09e667f3bcdp0;
  m = select(big, 0.5 * m, m);
  e = e + select(big, 1.0, 0.0);
  double s = (m - 1.0) / (m + 1.0), z = s * s;
  double p = 1.0 / 11;
  p = std::fma(p, z, 1.0 / 9);
  p = std::fma(p, z, 1.0 / 7);
  p = std::fma(p, z, 1.0 / 5);
  p = std::fma(p, z, 1.0 / 3);
  double r = std::fma(e, kLn2Hi, 2.0 * std::fma(s * z, p, s));
  r = select(x == 0.0, -kInf, r);
  r = select(x == kInf, kInf, r);
  return select(x >= 0.0, r, std::numeric_limits<double>::quiet_NaN());  // x < 0 or NaN
}

[[gnu::always_inline]] inline float log(float x) { return float(log_for_f32(double(x))); }

// log(1 + x): for |x| >= 2^-20, 1 + x is exact in double; below, x - x^2/2 + x^3/3 is exact to
// ~2^-40 relative.
[[gnu::always_inline]] inline float log1p(float xf) {
  double x = double(xf);
  double small = x * std::fma(x, std::fma(x, 1.0 / 3, -0.5), 1.0);
  return float(select(std::fabs(x) < 0x1p-20, small, log_for_f32(1.0 + x)));
}

// log(1 + e^x) = log1p(e^-|x|) + max(x, 0): never overflows. With t = e^-|x| in (0, 1], log(1 + t)
// in double is accurate to float32 precision when t >= 2^-20, and t (1 - t/2) is below.
[[gnu::always_inline]] inline float softplus(float xf) {
  double x = double(xf);
  double t = exp_for_f32(-std::fabs(x));
  double l = select(t < 0x1p-20, t * (1.0 - 0.5 * t), log_for_f32(1.0 + t));
  return float(l + select(x > 0.0, x, 0.0));
}

// floor and ceil from rint (which vectorises; floor and ceil themselves only do under
// -fno-trapping-math). Exact: rint(x) is an integer within 1/2 of x. The result always has x's
// sign (ceil(-0.7) is -0), which copysign restores after the +-1 step.
template <class T>
[[gnu::always_inline]] inline T floor(T x) {
  T r = std::rint(x);
  return std::copysign(r - select(r > x, T(1), T(0)), x);
}
template <class T>
[[gnu::always_inline]] inline T ceil(T x) {
  T r = std::rint(x);
  return std::copysign(r + select(r < x, T(1), T(0)), x);
}

}  // namespace spire::cpu::vmath
