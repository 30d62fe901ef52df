// pow, pow_scalar, atan2, maximum, minimum, where and clamp on the GPU, with the CPU kernels'
// semantics (engine/backends/cpu/binary.cpp): integer powers by squaring with wrapping, NaN
// propagating through maximum, minimum and clamp.
#include <cuda/std/cmath>
#include <cstring>

#include "engine/backends/cuda/arithmetic.cuh"
#include "engine/backends/cuda/binary.h"
#include "engine/backends/cuda/elementwise.cuh"

namespace spire::cuda {
namespace {

namespace cs = ::cuda::std;

template <class T>
T host_value(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// --- pow ------------------------------------------------------------------------------------------
struct Pow {
  template <class T> SPIRE_HD T operator()(T a, T b) const {
    if constexpr (is_integer_v<T>) return int_pow(a, int64_t(b));
    else return cs::pow(a, b);
  }
};

struct PowInt {
  int64_t e;
  template <class T> SPIRE_HD T operator()(T x) const { return int_pow(x, e); }
};
template <class T>
struct PowGeneral {
  T e;
  SPIRE_HD T operator()(T x) const { return cs::pow(x, e); }
};
struct Identity { template <class T> SPIRE_HD T operator()(T x) const { return x; } };
struct Square { template <class T> SPIRE_HD T operator()(T x) const { return x * x; } };
struct Cube { template <class T> SPIRE_HD T operator()(T x) const { return x * x * x; } };
struct Reciprocal { template <class T> SPIRE_HD T operator()(T x) const { return T(1) / x; } };
struct ReciprocalSquare { template <class T> SPIRE_HD T operator()(T x) const { return T(1) / (x * x); } };
struct Sqrt { template <class T> SPIRE_HD T operator()(T x) const { return cs::sqrt(x); } };
struct One { template <class T> SPIRE_HD T operator()(T) const { return T(1); } };

template <class T>
cudaError_t pow_scalar(const Loop<2>& L, PowForm form, const void* exponent) {
  switch (form) {
    case PowForm::General: return launch_map<T, T>(L, PowGeneral<T>{host_value<T>(exponent)});
    case PowForm::Identity: return launch_map<T, T>(L, Identity{});
    case PowForm::Square: return launch_map<T, T>(L, Square{});
    case PowForm::Cube: return launch_map<T, T>(L, Cube{});
    case PowForm::Reciprocal: return launch_map<T, T>(L, Reciprocal{});
    case PowForm::ReciprocalSquare: return launch_map<T, T>(L, ReciprocalSquare{});
    case PowForm::Sqrt: return launch_map<T, T>(L, Sqrt{});
    case PowForm::One: return launch_map<T, T>(L, One{});
  }
  return cudaErrorInvalidValue;
}

// --- atan2, maximum, minimum ----------------------------------------------------------------------
struct Atan2 { template <class T> SPIRE_HD T operator()(T y, T x) const { return cs::atan2(y, x); } };

// NaN in either input gives NaN (NumPy's maximum; fmax would drop it): a NaN a wins by a != a, a
// NaN b by every comparison with it failing.
template <bool kMax>
struct Extremum {
  template <class T> SPIRE_HD T operator()(T a, T b) const {
    bool take_a = kMax ? a > b : a < b;
    if constexpr (is_floating_v<T>) take_a = take_a || a != a;
    return take_a ? a : b;
  }
};

// --- where, clamp ---------------------------------------------------------------------------------
// A selection moves bits: one instantiation per element size. The condition is read as a byte.
struct alignas(16) Bits128 {
  uint64_t lo, hi;
};
struct Where {
  template <class W> SPIRE_HD W operator()(uint8_t c, W a, W b) const { return c ? a : b; }
};

template <class T>
struct Clamp {
  T lo, hi;
  SPIRE_HD T operator()(T x) const {
    T v = x < lo ? lo : x;
    return v > hi ? hi : v;
  }
};

}  // namespace

cudaError_t launch_pow(const Loop<3>& L) {
  return visit_elem(L.elem[0], [&]<class T>() -> cudaError_t {
    if constexpr (cs::is_same_v<T, bool>) return cudaErrorNotSupported;
    else return launch_map<T, T, T>(L, Pow{});
  });
}

cudaError_t launch_pow_scalar(const Loop<2>& L, PowForm form, const void* exponent, int64_t int_exponent) {
  return visit_elem(L.elem[0], [&]<class T>() -> cudaError_t {
    if constexpr (is_integer_v<T>) return launch_map<T, T>(L, PowInt{int_exponent});
    else if constexpr (cs::is_same_v<T, bool>) return cudaErrorNotSupported;
    else return pow_scalar<T>(L, form, exponent);
  });
}

cudaError_t launch_atan2(const Loop<3>& L) {
  return visit_elem(L.elem[0], [&]<class T>() -> cudaError_t {
    if constexpr (is_floating_v<T>) return launch_map<T, T, T>(L, Atan2{});
    else return cudaErrorNotSupported;
  });
}

cudaError_t launch_extremum(const Loop<3>& L, bool is_max) {
  return visit_elem(L.elem[0], [&]<class T>() -> cudaError_t {
    if constexpr (is_floating_v<T> || is_integer_v<T>) {
      if (is_max) return launch_map<T, T, T>(L, Extremum<true>{});
      return launch_map<T, T, T>(L, Extremum<false>{});
    } else {
      return cudaErrorNotSupported;
    }
  });
}

cudaError_t launch_where(const Loop<4>& L) {
  switch (L.elem[0]) {
    case Elem::Bool: return launch_map<uint8_t, uint8_t, uint8_t, uint8_t>(L, Where{});
    case Elem::Int32: case Elem::Float32: return launch_map<uint32_t, uint8_t, uint32_t, uint32_t>(L, Where{});
    case Elem::Int64: case Elem::Float64: case Elem::Complex64:
      return launch_map<uint64_t, uint8_t, uint64_t, uint64_t>(L, Where{});
    case Elem::Complex128: return launch_map<Bits128, uint8_t, Bits128, Bits128>(L, Where{});
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_clamp(const Loop<2>& L, const void* lo, const void* hi) {
  return visit_elem(L.elem[0], [&]<class T>() -> cudaError_t {
    if constexpr (is_floating_v<T> || is_integer_v<T>)
      return launch_map<T, T>(L, Clamp<T>{host_value<T>(lo), host_value<T>(hi)});
    else
      return cudaErrorNotSupported;
  });
}

}  // namespace spire::cuda
