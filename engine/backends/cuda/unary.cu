// Unary math on the GPU with the CPU kernels' semantics (engine/backends/cpu/unary.cpp): the same
// formulas where the CPU has its own (complex expm1 and log1p, sigmoid, softplus, rsqrt), libm's
// counterparts elsewhere. Results may differ from the CPU's in the last bits (different libm), never
// in special values: NaN stays NaN, sign(+-0) is 0, round is half to even, floor(-0.5) is -1.
#include <cuda/std/cmath>

#include "engine/backends/cuda/arithmetic.cuh"
#include "engine/backends/cuda/elementwise.cuh"
#include "engine/backends/cuda/unary.h"

namespace spire::cuda {
namespace {

namespace cs = ::cuda::std;

// Which input types an op takes, as engine/ops/unary.cpp's Domain.
template <class T> inline constexpr bool inexact_v = is_floating_v<T> || is_complex_v<T>;
template <class T> inline constexpr bool signed_v = inexact_v<T> || is_integer_v<T>;
template <class T> inline constexpr bool real_v = is_floating_v<T> || is_integer_v<T>;

struct Inexact { template <class T> static constexpr bool accepts() { return inexact_v<T>; } };
struct Floating { template <class T> static constexpr bool accepts() { return is_floating_v<T>; } };
struct Signed { template <class T> static constexpr bool accepts() { return signed_v<T>; } };
struct Real { template <class T> static constexpr bool accepts() { return real_v<T>; } };

// --- exponentials, logarithms, powers ------------------------------------------------------------
struct Exp : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::exp(x); } };

// Complex expm1 and log1p keep their accuracy near 0, where exp(z) - 1 and log(1 + z) cancel:
// e^z - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y, and
// log(1 + z) = log1p(x (2 + x) + y^2) / 2 + i atan2(y, 1 + x).
struct Expm1 : Inexact {
  template <class T> SPIRE_HD T operator()(T z) const {
    if constexpr (is_complex_v<T>) {
      using R = real_t<T>;
      R x = z.real(), y = z.imag(), s = cs::sin(y / 2);
      return T(cs::expm1(x) * cs::cos(y) - 2 * s * s, cs::exp(x) * cs::sin(y));
    } else {
      return cs::expm1(z);
    }
  }
};
struct Log : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::log(x); } };
struct Log1p : Inexact {
  template <class T> SPIRE_HD T operator()(T z) const {
    if constexpr (is_complex_v<T>) {
      using R = real_t<T>;
      R x = z.real(), y = z.imag();
      return T(cs::log1p(x * (2 + x) + y * y) / 2, cs::atan2(y, 1 + x));
    } else {
      return cs::log1p(z);
    }
  }
};
struct Reciprocal : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return T(1) / x; } };
struct Square : Signed {
  template <class T> SPIRE_HD T operator()(T x) const {
    if constexpr (is_integer_v<T>) return wrap_mul(x, x);
    else return x * x;
  }
};
// Correctly rounded sqrt and division (nvcc's defaults, -prec-sqrt=true -prec-div=true): real
// results match the CPU's bit for bit. rsqrtf would not.
struct Sqrt : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::sqrt(x); } };
struct Rsqrt : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return T(1) / cs::sqrt(x); } };

// --- trigonometric and hyperbolic ----------------------------------------------------------------
struct Sin : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::sin(x); } };
struct Cos : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::cos(x); } };
struct Tan : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::tan(x); } };
struct Asin : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::asin(x); } };
struct Acos : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::acos(x); } };
struct Atan : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::atan(x); } };
struct Sinh : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::sinh(x); } };
struct Cosh : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::cosh(x); } };
struct Tanh : Inexact { template <class T> SPIRE_HD T operator()(T x) const { return cs::tanh(x); } };

// --- activations and special functions -----------------------------------------------------------
// 1 / (1 + e^-x): no cancellation. float32 goes through double and rounds once, as the CPU does.
struct Sigmoid : Inexact {
  template <class T> SPIRE_HD T operator()(T x) const {
    if constexpr (cs::is_same_v<T, float>) return float(1.0 / (1.0 + cs::exp(-double(x))));
    else return T(1) / (T(1) + cs::exp(-x));
  }
};
// log(1 + e^x) = log1p(e^-|x|) + max(x, 0): never overflows, and exact to rounding for x << 0.
// float32 in double, rounded once, as the CPU. A NaN x gives NaN (through log1p).
struct Softplus : Floating {
  template <class T> SPIRE_HD T operator()(T x) const {
    if constexpr (cs::is_same_v<T, float>) {
      double d = double(x);
      return float(cs::log1p(cs::exp(-cs::fabs(d))) + (d > 0.0 ? d : 0.0));
    } else {
      return cs::log1p(cs::exp(-cs::fabs(x))) + (x > 0 ? x : T(0));
    }
  }
};
struct Erf : Floating { template <class T> SPIRE_HD T operator()(T x) const { return cs::erf(x); } };

// --- modulus, sign, phase, rounding ---------------------------------------------------------------
struct Abs : Signed {
  template <class T> SPIRE_HD real_t<T> operator()(T x) const {
    if constexpr (is_integer_v<T>) return x < 0 ? wrap_neg(x) : x;
    else if constexpr (is_complex_v<T>) return cs::abs(x);  // |z|, a real
    else return cs::fabs(x);
  }
};
// NaN stays NaN (as NumPy); sign(+-0) = +0.
struct Sign : Real {
  template <class T> SPIRE_HD T operator()(T x) const {
    T s = T(T(x > 0) - T(x < 0));
    if constexpr (is_floating_v<T>) return x != x ? x : s;
    else return s;
  }
};
// On reals as NumPy: atan2(0, x), so 0 for x >= +0 and pi for x <= -0.
struct Angle : Inexact {
  template <class T> SPIRE_HD real_t<T> operator()(T x) const {
    if constexpr (is_complex_v<T>) return cs::arg(x);
    else return cs::atan2(T(0), x);
  }
};
struct Floor : Floating { template <class T> SPIRE_HD T operator()(T x) const { return cs::floor(x); } };
struct Ceil : Floating { template <class T> SPIRE_HD T operator()(T x) const { return cs::ceil(x); } };
// rint rounds half to even in the default rounding mode (NumPy's round).
struct Round : Floating { template <class T> SPIRE_HD T operator()(T x) const { return cs::rint(x); } };

template <class F>
cudaError_t unary(const Loop<2>& L) {
  return visit_elem(L.elem[1], [&]<class T>() -> cudaError_t {
    if constexpr (F::template accepts<T>()) return launch_map<decltype(F{}(T{})), T>(L, F{});
    else return cudaErrorNotSupported;
  });
}

}  // namespace

cudaError_t launch_unary(UnaryOp op, const Loop<2>& L) {
  switch (op) {
    case UnaryOp::Exp: return unary<Exp>(L);
    case UnaryOp::Expm1: return unary<Expm1>(L);
    case UnaryOp::Log: return unary<Log>(L);
    case UnaryOp::Log1p: return unary<Log1p>(L);
    case UnaryOp::Reciprocal: return unary<Reciprocal>(L);
    case UnaryOp::Square: return unary<Square>(L);
    case UnaryOp::Sqrt: return unary<Sqrt>(L);
    case UnaryOp::Rsqrt: return unary<Rsqrt>(L);
    case UnaryOp::Sin: return unary<Sin>(L);
    case UnaryOp::Cos: return unary<Cos>(L);
    case UnaryOp::Tan: return unary<Tan>(L);
    case UnaryOp::Asin: return unary<Asin>(L);
    case UnaryOp::Acos: return unary<Acos>(L);
    case UnaryOp::Atan: return unary<Atan>(L);
    case UnaryOp::Sinh: return unary<Sinh>(L);
    case UnaryOp::Cosh: return unary<Cosh>(L);
    case UnaryOp::Tanh: return unary<Tanh>(L);
    case UnaryOp::Sigmoid: return unary<Sigmoid>(L);
    case UnaryOp::Softplus: return unary<Softplus>(L);
    case UnaryOp::Erf: return unary<Erf>(L);
    case UnaryOp::Abs: return unary<Abs>(L);
    case UnaryOp::Sign: return unary<Sign>(L);
    case UnaryOp::Angle: return unary<Angle>(L);
    case UnaryOp::Floor: return unary<Floor>(L);
    case UnaryOp::Ceil: return unary<Ceil>(L);
    case UnaryOp::Round: return unary<Round>(L);
  }
  return cudaErrorInvalidValue;
}

}  // namespace spire::cuda
