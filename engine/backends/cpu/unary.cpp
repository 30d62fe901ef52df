// CPU kernels for unary math. Real float32/float64 loops over contiguous data vectorise: exp,
// sigmoid, floor, ceil and, in float32, tanh, log, log1p and softplus come from vmath.h
// (branch-free, the same bits in every lane); sqrt, abs, rint and the arithmetic ones are single
// instructions. The rest call libm per element.
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

// A single correctly rounded instruction for reals (the engine builds with -fno-math-errno, so
// no errno branch keeps std::sqrt out of vector loops).
SPIRE_REGISTER_KERNEL("sqrt", DeviceKind::CPU, unary("sqrt", []<Inexact T>(T x) { return std::sqrt(x); }));
SPIRE_REGISTER_KERNEL("rsqrt", DeviceKind::CPU, unary("rsqrt", []<Inexact T>(T x) { return T(1) / std::sqrt(x); }));

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
