// CPU kernels for pow, atan2, maximum, minimum, where and clamp.
#include <cmath>
#include <concepts>
#include <limits>

#include "engine/backends/cpu/loops.h"
#include "engine/backends/cpu/vmath.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

template <class T> concept Real = std::floating_point<T>;
template <class T> concept Integer = std::same_as<T, int32_t> || std::same_as<T, int64_t>;

// Integer power by squaring (wrapping on overflow, as NumPy). Negative exponents truncate 1/a^|b|
// towards zero, as PyTorch does for tensor exponents: only bases 1 and -1 survive.
template <Integer T>
T int_pow(T a, int64_t b) {
  if (b < 0) return a == 1 ? T(1) : a == -1 ? T(b % 2 ? -1 : 1) : T(0);
  using U = std::make_unsigned_t<T>;  // unsigned arithmetic wraps without undefined behaviour
  U r = 1, x = U(a);
  for (; b; b >>= 1, x *= x)
    if (b & 1) r *= x;
  return T(r);
}

void pow_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (Integer<T>)
      map<T, T, T>(out[0], [](T a, T b) { return int_pow(a, int64_t(b)); }, in[0], in[1]);
    else if constexpr (!std::same_as<T, bool>)
      map<T, T, T>(out[0], [](T a, T b) { return T(std::pow(a, b)); }, in[0], in[1]);
  });
}
SPIRE_REGISTER_KERNEL("pow", DeviceKind::CPU, pow_kernel);

// Common exponents get exact (and vectorisable) forms instead of a general pow, as NumPy does.
void pow_scalar_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  const Scalar& p = attrs.get<Scalar>("exponent");
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (Integer<T>) {
      int64_t e = p.to_int();
      map<T, T>(out[0], [e](T x) { return int_pow(x, e); }, in[0]);
    } else if constexpr (!std::same_as<T, bool>) {
      const bool real_p = p.kind() != DType::Complex128 || p.to_complex().imag() == 0;
      const double d = p.to_double();
      if (real_p && d == 1) map<T, T>(out[0], [](T x) { return x; }, in[0]);
      else if (real_p && d == 2) map<T, T>(out[0], [](T x) { return x * x; }, in[0]);
      else if (real_p && d == 3) map<T, T>(out[0], [](T x) { return x * x * x; }, in[0]);
      else if (real_p && d == -1) map<T, T>(out[0], [](T x) { return T(1) / x; }, in[0]);
      else if (real_p && d == -2) map<T, T>(out[0], [](T x) { return T(1) / (x * x); }, in[0]);
      else if (real_p && d == 0.5) map<T, T>(out[0], [](T x) { return std::sqrt(x); }, in[0]);
      else if (real_p && d == 0) map<T, T>(out[0], [](T) { return T(1); }, in[0]);
      else {
        T e = p.to<T>();
        map<T, T>(out[0], [e](T x) { return T(std::pow(x, e)); }, in[0]);
      }
    }
  });
}
SPIRE_REGISTER_KERNEL("pow_scalar", DeviceKind::CPU, pow_scalar_kernel);

void atan2_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (Real<T>) map<T, T, T>(out[0], [](T y, T x) { return std::atan2(y, x); }, in[0], in[1]);
  });
}
SPIRE_REGISTER_KERNEL("atan2", DeviceKind::CPU, atan2_kernel);

// NaN in either input gives NaN (NumPy's maximum; fmax would drop it). Branch-free so it vectorises.
template <bool kMax>
void extremum_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (Real<T>)
      map<T, T, T>(out[0], [](T a, T b) { return vmath::select((kMax ? a > b : a < b) | (a != a), a, b); },
                   in[0], in[1]);
    else if constexpr (Integer<T>)
      map<T, T, T>(out[0], [](T a, T b) { return (kMax ? a > b : a < b) ? a : b; }, in[0], in[1]);
  });
}
SPIRE_REGISTER_KERNEL("maximum", DeviceKind::CPU, extremum_kernel<true>);
SPIRE_REGISTER_KERNEL("minimum", DeviceKind::CPU, extremum_kernel<false>);

// The condition is read as bytes: GCC does not vectorise loads of bool (a 1-bit type to it).
// c ? a : b without a branch where the type allows (a captured number otherwise compiles to a jump,
// mispredicted half the time on random masks).
template <class T>
T pick(uint8_t c, T a, T b) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) return vmath::select(c != 0, a, b);
  else return c ? a : b;
}

// A number as one branch (relu's 0) is captured, so the loop has two operands and vectorises.
void where_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if (in[2].numel() == 1 && in[1].numel() != 1) {
      T b = *in[2].data<T>();
      map<T, uint8_t, T>(out[0], [b](uint8_t c, T a) { return pick(c, a, b); }, in[0], in[1]);
    } else if (in[1].numel() == 1 && in[2].numel() != 1) {
      T a = *in[1].data<T>();
      map<T, uint8_t, T>(out[0], [a](uint8_t c, T b) { return pick(c, a, b); }, in[0], in[2]);
    } else {
      map<T, uint8_t, T, T>(out[0], [](uint8_t c, T a, T b) { return c ? a : b; }, in[0], in[1], in[2]);
    }
  });
}
SPIRE_REGISTER_KERNEL("where", DeviceKind::CPU, where_kernel);

// min(max(x, lo), hi) with NaN passing through; a missing bound is the type's extreme.
void clamp_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (Real<T> || Integer<T>) {
      using L = std::numeric_limits<T>;
      T lo = attrs.has("lo") ? attrs.get<Scalar>("lo").to<T>() : (L::has_infinity ? -L::infinity() : L::lowest());
      T hi = attrs.has("hi") ? attrs.get<Scalar>("hi").to<T>() : (L::has_infinity ? L::infinity() : L::max());
      map<T, T>(out[0], [lo, hi](T x) {
        T v = x < lo ? lo : x;
        return v > hi ? hi : v;
      }, in[0]);
    }
  });
}
SPIRE_REGISTER_KERNEL("clamp", DeviceKind::CPU, clamp_kernel);

}  // namespace
}  // namespace spire::cpu
