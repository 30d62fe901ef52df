// Branch-free exp (and what is built on it) that GCC vectorises inside the elementwise loops.
// glibc's vector math (libmvec) is only used by the compiler under -ffast-math, and its variants
// differ from the scalar ones in the last bits, so the bits of a result would depend on whether an
// element landed in a vector body or a scalar tail (and so on the thread count). These functions
// are plain arithmetic: the same bits in every lane and on every path.
//
// float32 results are computed in double and rounded once, so they are correctly rounded except
// in rare near-halfway cases. float64 exp is within 1 ulp (Cody-Waite reduction with FMA, a
// degree-13 Taylor polynomial on |r| <= ln2/2, and 2^n applied in two halves so subnormal
// results come out right).
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace spire::cpu::vmath {

inline constexpr double kLog2e = 0x1.71547652b82fep0;
inline constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
inline constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
// Adding this rounds a double below 2^51 in magnitude to an integer held in the low mantissa bits.
inline constexpr double kShifter = 0x1.8p52;

// Rounds to the nearest integer (ties to even) for |x| < 2^51; NaN stays NaN.
inline double round_int(double x) { return (x + kShifter) - kShifter; }

// 2^k for an integer-valued double k in [-1022, 1023], built in the exponent field.
inline double exp2_int(double k) {
  uint64_t b = std::bit_cast<uint64_t>(k + kShifter);  // low bits: 2^51 + k
  return std::bit_cast<double>((b + 1023) << 52);       // the shift drops everything but k + 1023
}

// Out-of-range inputs get their result by a bitwise select on the finished value. A clamp or a
// ?: lets GCC move the arithmetic onto one branch, and under the default -ftrapping-math it then
// refuses to if-convert, and so to vectorise, the loop.
template <class T>
inline T select(bool c, T a, T b) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  U m = U(0) - U(c);
  return std::bit_cast<T>(U((std::bit_cast<U>(a) & m) | (std::bit_cast<U>(b) & ~m)));
}
inline constexpr double kInf = __builtin_huge_val();

// e^x in double, accurate to ~2^-37 relative (degree-9 Taylor): enough for float32 results, which
// are all normal doubles, so one 2^n suffices for |x| <= 700.
inline double exp_for_f32(double x) {
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

inline float exp(float x) { return float(exp_for_f32(double(x))); }

inline double exp(double x) {
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
inline float sigmoid(float x) { return float(1.0 / (1.0 + exp_for_f32(-double(x)))); }
inline double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// tanh|x| = 1 - 2 / (e^{2|x|} + 1). In double the cancellation for small |x| costs bits float32
// does not have; below 2^-12, tanh x rounds to x in float32.
inline float tanh(float xf) {
  double x = double(xf), ax = std::fabs(x);
  double t = 1.0 - 2.0 / (exp_for_f32(2.0 * ax) + 1.0);
  return select(ax < 0x1p-12, xf, float(std::copysign(t, x)));
}

// floor and ceil from rint (which vectorises; floor and ceil themselves only do under
// -fno-trapping-math). Exact: rint(x) is an integer within 1/2 of x. The result always has x's
// sign (ceil(-0.7) is -0), which copysign restores after the +-1 step.
template <class T>
inline T floor(T x) {
  T r = std::rint(x);
  return std::copysign(r - select(r > x, T(1), T(0)), x);
}
template <class T>
inline T ceil(T x) {
  T r = std::rint(x);
  return std::copysign(r + select(r < x, T(1), T(0)), x);
}

}  // namespace spire::cpu::vmath
