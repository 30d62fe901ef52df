// Conversions between element types and strided copies. Values convert as the CPU's copy_into
// does, including its corner cases: complex to real keeps the real part, complex to bool is "nonzero",
// and floating point to integer truncates, with x86's result for NaN and out-of-range values.
#include <cuda/std/limits>

#include "engine/backends/cuda/cast.h"
#include "engine/backends/cuda/elementwise.cuh"

namespace spire::cuda {
namespace {

template <class T>
inline constexpr bool is_int_v = ::cuda::std::is_same_v<T, int32_t> || ::cuda::std::is_same_v<T, int64_t>;
template <class T>
inline constexpr bool is_float_v = ::cuda::std::is_same_v<T, float> || ::cuda::std::is_same_v<T, double>;

// Truncation toward zero. x86's conversion instruction (what the CPU kernel's static_cast compiles
// to) gives the "integer indefinite" value, the type's minimum, for NaN and values whose truncation
// does not fit; the GPU's saturates instead and gives 0 for NaN, so those are mapped explicitly.
template <class O, class F>
SPIRE_HD O float_to_int(F v) {
  double d = double(v);
  bool fits;
  if constexpr (::cuda::std::is_same_v<O, int32_t>) fits = d > -2147483649.0 && d < 2147483648.0;
  else fits = d >= -9223372036854775808.0 && d < 9223372036854775808.0;  // -2^63 - 1 rounds to -2^63
  return fits ? O(v) : ::cuda::std::numeric_limits<O>::min();
}

// One value as the CPU's copy_into converts it. Bools arrive as bytes (uint8_t), read as != 0.
template <class O, class I>
SPIRE_HD O cast_value(I v) {
  if constexpr (::cuda::std::is_same_v<I, uint8_t>) {
    return cast_value<O>(int32_t(v != 0));
  } else if constexpr (is_complex_v<I> && ::cuda::std::is_same_v<O, bool>) {
    return v.real() != 0 || v.imag() != 0;  // NumPy's rule, as the CPU's: 1j is true
  } else if constexpr (is_complex_v<I> && !is_complex_v<O>) {
    return cast_value<O>(v.real());  // the imaginary part is dropped, as NumPy's astype does
  } else if constexpr (is_complex_v<O>) {
    using R = typename O::value_type;
    if constexpr (is_complex_v<I>) return O(R(v.real()), R(v.imag()));
    else return O(R(v), R(0));
  } else if constexpr (::cuda::std::is_same_v<O, bool>) {
    return v != I(0);
  } else if constexpr (is_int_v<O> && is_float_v<I>) {
    return float_to_int<O>(v);
  } else {
    return O(v);  // integer narrowing wraps, as GCC defines it
  }
}

template <class O, class I>
struct Cast {
  SPIRE_HD O operator()(I v) const { return cast_value<O>(v); }
};

// Same type: the bits move unchanged, one instantiation per element size.
struct alignas(16) Bits128 {
  uint64_t lo, hi;
};
struct Same {
  template <class W> SPIRE_HD W operator()(W v) const { return v; }
};

size_t itemsize(Elem e) {
  switch (e) {
    case Elem::Bool: return 1;
    case Elem::Int32: case Elem::Float32: return 4;
    case Elem::Int64: case Elem::Float64: case Elem::Complex64: return 8;
    case Elem::Complex128: return 16;
  }
  return 0;
}

// The device type an input of type T is read as: bools as bytes (any nonzero byte is true).
template <class T> struct Loaded { using type = T; };
template <> struct Loaded<bool> { using type = uint8_t; };

cudaError_t copy_bits(const Loop<2>& L) {
  size_t n = itemsize(L.elem[0]);
  // One dense row each: the copy engine's memcpy is the fastest there is.
  if (L.contiguous) return cudaMemcpyAsync(L.data[0], L.data[1], size_t(L.numel) * n, cudaMemcpyDeviceToDevice,
                                           current_stream());
  switch (n) {
    case 1: return launch_map<uint8_t, uint8_t>(L, Same{});
    case 4: return launch_map<uint32_t, uint32_t>(L, Same{});
    case 8: return launch_map<uint64_t, uint64_t>(L, Same{});
    case 16: return launch_map<Bits128, Bits128>(L, Same{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_cast(const Loop<2>& L) {
  if (L.numel <= 0) return cudaSuccess;
  if (L.elem[0] == L.elem[1]) return copy_bits(L);
  return visit_elem(L.elem[0], [&]<class O>() {
    return visit_elem(L.elem[1], [&]<class I>() {
      using In = typename Loaded<I>::type;
      return launch_map<O, In>(L, Cast<O, In>{});
    });
  });
}

}  // namespace spire::cuda
