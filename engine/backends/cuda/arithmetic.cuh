// Integer arithmetic as the CPU kernels do it, for the device side of the elementwise ops
// (arithmetic.cu, unary.cu, binary.cu): two's complement wrapping on overflow (computed in unsigned
// arithmetic, where wrapping is defined behaviour), truncating division, and powers by squaring.
#pragma once
#include <cuda/std/type_traits>

#include "engine/backends/cuda/device_types.cuh"

namespace spire::cuda {

template <class T>
inline constexpr bool is_integer_v = ::cuda::std::is_same_v<T, int32_t> || ::cuda::std::is_same_v<T, int64_t>;
template <class T>
inline constexpr bool is_floating_v = ::cuda::std::is_same_v<T, float> || ::cuda::std::is_same_v<T, double>;

template <class T> using unsigned_t = ::cuda::std::make_unsigned_t<T>;

template <class T> SPIRE_HD inline T wrap_add(T a, T b) { return T(unsigned_t<T>(a) + unsigned_t<T>(b)); }
template <class T> SPIRE_HD inline T wrap_sub(T a, T b) { return T(unsigned_t<T>(a) - unsigned_t<T>(b)); }
template <class T> SPIRE_HD inline T wrap_mul(T a, T b) { return T(unsigned_t<T>(a) * unsigned_t<T>(b)); }
template <class T> SPIRE_HD inline T wrap_neg(T a) { return T(unsigned_t<T>(0) - unsigned_t<T>(a)); }

// a / b truncated toward zero, as C++. The CPU traps on b == 0 (and on INT_MIN / -1); a GPU thread
// cannot, so b == 0 gives 0 and INT_MIN / -1 wraps to INT_MIN. The public div promotes integers
// to floating point, so only direct calls of the primitive get here.
template <class T>
SPIRE_HD inline T int_div(T a, T b) {
  if (b == 0) return T(0);
  if (b == T(-1)) return wrap_neg(a);
  return T(a / b);
}

// Integer power by squaring (wrapping on overflow, as NumPy). Negative exponents truncate 1/a^|b|
// towards zero, as PyTorch does for tensor exponents: only bases 1 and -1 survive. The CPU's
// int_pow, step for step.
template <class T>
SPIRE_HD inline T int_pow(T a, int64_t b) {
  if (b < 0) return a == 1 ? T(1) : a == -1 ? T(b % 2 ? -1 : 1) : T(0);
  unsigned_t<T> r = 1, x = unsigned_t<T>(a);
  for (; b; b >>= 1, x *= x)
    if (b & 1) r *= x;
  return T(r);
}

}  // namespace spire::cuda
