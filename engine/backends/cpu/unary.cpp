// CPU kernels for unary math. Real float32/float64 loops over contiguous data vectorise: exp,
// sigmoid, floor, ceil and, in float32, tanh, log, log1p and softplus come from vmath.h
// (branch-free, the same bits in every lane); abs, rint and the arithmetic ones are single
// instructions; sqrt uses the instruction directly. The rest call libm per element.
#include <immintrin.h>

#include <cmath>
#include <concepts>

#include "engine/backends/cpu/loops.h"
#include "engine/backends/cpu/vmath.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

template <class T> concept Real = std::floating_point<T>;
template <class T> concept Complex = is_complex_v<T>;
template <class T> concept Inexact = Real<T> || Complex<T>;
template <class T> concept Integer = std::same_as<T, int32_t> || std::same_as<T, int64_t>;

// A kernel applying f to each element, for every input dtype f accepts; the output dtype is what
// f returns (infer has settled that it matches).
template <class F>
KernelFn unary(const char* op, F f) {
  return [op, f](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    visit_dtype(in[0].dtype(), [&]<class T>() {
      if constexpr (std::is_invocable_v<const F&, T>)
        map<std::invoke_result_t<const F&, T>, T>(out[0], f, in[0]);
      else
        throw DTypeError(std::string(op) + ": internal: no CPU kernel for " + name(in[0].dtype()));
    });
  };
}

// --- exponentials, logarithms, powers ------------------------------------------------------------
// Complex expm1 and log1p keep their accuracy near 0, where exp(z) - 1 and log(1 + z) cancel:
// e^z - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y, and
// log(1 + z) = log1p(x (2 + x) + y^2) / 2 + i atan2(y, 1 + x).
template <Real T>
std::complex<T> expm1_complex(std::complex<T> z) {
  T x = z.real(), y = z.imag(), s = std::sin(y / 2);
  return {std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y)};
}
template <Real T>
std::complex<T> log1p_complex(std::complex<T> z) {
  T x = z.real(), y = z.imag();
  return {std::log1p(x * (2 + x) + y * y) / 2, std::atan2(y, 1 + x)};
}

SPIRE_REGISTER_KERNEL("exp", DeviceKind::CPU, unary("exp", []<Inexact T>(T x) -> T {
                        if constexpr (Real<T>) return vmath::exp(x);
                        else return std::exp(x);
                      }));
SPIRE_REGISTER_KERNEL("expm1", DeviceKind::CPU, unary("expm1", []<Inexact T>(T x) -> T {
                        if constexpr (Real<T>) return std::expm1(x);
                        else return expm1_complex(x);
                      }));
SPIRE_REGISTER_KERNEL("log", DeviceKind::CPU, unary("log", []<Inexact T>(T x) -> T {
                        if constexpr (std::same_as<T, float>) return vmath::log(x);
                        else return std::log(x);
                      }));
SPIRE_REGISTER_KERNEL("log1p", DeviceKind::CPU, unary("log1p", []<Inexact T>(T x) -> T {
                        if constexpr (std::same_as<T, float>) return vmath::log1p(x);
                        else if constexpr (Real<T>) return std::log1p(x);
                        else return log1p_complex(x);
                      }));
SPIRE_REGISTER_KERNEL("reciprocal", DeviceKind::CPU,
                      unary("reciprocal", []<Inexact T>(T x) { return T(1) / x; }));
SPIRE_REGISTER_KERNEL("square", DeviceKind::CPU, unary("square", []<class T>(T x) -> T
                                                       requires(!std::same_as<T, bool>) { return x * x; }));

// std::sqrt keeps a branch that sets errno for negative inputs (GCC's default -fmath-errno), and
// that branch stops the vectoriser; the instruction itself is IEEE correctly rounded, so the vector
// body and the scalar tail agree bit for bit.
template <Real T, bool kReciprocal>
void sqrt_contiguous(T* o, const T* a, int64_t n) {
  constexpr int64_t kBlock = 1 << 14;
  int64_t blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t i = b * kBlock, end = std::min(n, i + kBlock);
    if constexpr (std::same_as<T, float>) {
      const __m256 one = _mm256_set1_ps(1.0f);
      for (; i + 8 <= end; i += 8) {
        __m256 v = _mm256_sqrt_ps(_mm256_loadu_ps(a + i));
        if constexpr (kReciprocal) v = _mm256_div_ps(one, v);
        _mm256_storeu_ps(o + i, v);
      }
    } else {
      const __m256d one = _mm256_set1_pd(1.0);
      for (; i + 4 <= end; i += 4) {
        __m256d v = _mm256_sqrt_pd(_mm256_loadu_pd(a + i));
        if constexpr (kReciprocal) v = _mm256_div_pd(one, v);
        _mm256_storeu_pd(o + i, v);
      }
    }
    for (; i < end; ++i) o[i] = kReciprocal ? T(1) / std::sqrt(a[i]) : std::sqrt(a[i]);
  }
}

template <bool kReciprocal>
void sqrt_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  visit_dtype(in[0].dtype(), [&]<class T>() {
    if constexpr (Real<T>) {
      if (in[0].is_contiguous() && out[0].is_contiguous()) {
        sqrt_contiguous<T, kReciprocal>(out[0].data<T>(), in[0].data<T>(), in[0].numel());
        return;
      }
    }
    if constexpr (Inexact<T>)
      map<T, T>(out[0], [](T x) { return kReciprocal ? T(1) / std::sqrt(x) : std::sqrt(x); }, in[0]);
  });
}
SPIRE_REGISTER_KERNEL("sqrt", DeviceKind::CPU, sqrt_kernel<false>);
SPIRE_REGISTER_KERNEL("rsqrt", DeviceKind::CPU, sqrt_kernel<true>);

// --- trigonometric and hyperbolic ----------------------------------------------------------------
SPIRE_REGISTER_KERNEL("sin", DeviceKind::CPU, unary("sin", []<Inexact T>(T x) { return std::sin(x); }));
SPIRE_REGISTER_KERNEL("cos", DeviceKind::CPU, unary("cos", []<Inexact T>(T x) { return std::cos(x); }));
SPIRE_REGISTER_KERNEL("tan", DeviceKind::CPU, unary("tan", []<Inexact T>(T x) { return std::tan(x); }));
SPIRE_REGISTER_KERNEL("asin", DeviceKind::CPU, unary("asin", []<Inexact T>(T x) { return std::asin(x); }));
SPIRE_REGISTER_KERNEL("acos", DeviceKind::CPU, unary("acos", []<Inexact T>(T x) { return std::acos(x); }));
SPIRE_REGISTER_KERNEL("atan", DeviceKind::CPU, unary("atan", []<Inexact T>(T x) { return std::atan(x); }));
SPIRE_REGISTER_KERNEL("sinh", DeviceKind::CPU, unary("sinh", []<Inexact T>(T x) { return std::sinh(x); }));
SPIRE_REGISTER_KERNEL("cosh", DeviceKind::CPU, unary("cosh", []<Inexact T>(T x) { return std::cosh(x); }));
SPIRE_REGISTER_KERNEL("tanh", DeviceKind::CPU, unary("tanh", []<Inexact T>(T x) -> T {
                        if constexpr (std::same_as<T, float>) return vmath::tanh(x);
                        else return std::tanh(x);
                      }));

// --- activations and special functions -----------------------------------------------------------
SPIRE_REGISTER_KERNEL("sigmoid", DeviceKind::CPU, unary("sigmoid", []<Inexact T>(T x) -> T {
                        if constexpr (Real<T>) return vmath::sigmoid(x);
                        else return T(1) / (T(1) + std::exp(-x));
                      }));
// log(1 + e^x) = log1p(e^-|x|) + max(x, 0): never overflows, and exact to rounding for x << 0.
SPIRE_REGISTER_KERNEL("softplus", DeviceKind::CPU, unary("softplus", []<Real T>(T x) -> T {
                        if constexpr (std::same_as<T, float>) return vmath::softplus(x);
                        else return std::log1p(vmath::exp(-std::abs(x))) + vmath::select(x > 0, x, T(0));
                      }));
SPIRE_REGISTER_KERNEL("erf", DeviceKind::CPU, unary("erf", []<Real T>(T x) { return std::erf(x); }));

// --- modulus, sign, phase, rounding ----------------------------------------------------------------
SPIRE_REGISTER_KERNEL("abs", DeviceKind::CPU, unary("abs", []<class T>(T x) requires(!std::same_as<T, bool>) {
                        if constexpr (Integer<T>) return x < 0 ? T(-x) : x;
                        else return std::abs(x);  // |z| for complex, as a real
                      }));
// NaN stays NaN (as NumPy); sign(+-0) = 0.
SPIRE_REGISTER_KERNEL("sign", DeviceKind::CPU, unary("sign", []<class T>(T x) -> T
                                                     requires(Real<T> || Integer<T>) {
                        T s = T(x > 0) - T(x < 0);
                        if constexpr (Real<T>) return vmath::select(x != x, x, s);
                        else return s;
                      }));
// On reals as NumPy: atan2(0, x), so 0 for x >= +0 and pi for x <= -0.
SPIRE_REGISTER_KERNEL("angle", DeviceKind::CPU, unary("angle", []<Inexact T>(T x) {
                        if constexpr (Real<T>) return std::atan2(T(0), x);
                        else return std::arg(x);
                      }));
SPIRE_REGISTER_KERNEL("floor", DeviceKind::CPU, unary("floor", []<Real T>(T x) { return vmath::floor(x); }));
SPIRE_REGISTER_KERNEL("ceil", DeviceKind::CPU, unary("ceil", []<Real T>(T x) { return vmath::ceil(x); }));
// rint rounds half to even in the default rounding mode (NumPy's round).
SPIRE_REGISTER_KERNEL("round", DeviceKind::CPU, unary("round", []<Real T>(T x) { return std::rint(x); }));

}  // namespace
}  // namespace spire::cpu
