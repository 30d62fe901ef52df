// The nvcc side's view of element types: the device type behind each Elem (complex numbers are
// cuda::std::complex, layout-compatible with std::complex on the host) and a visitor over them.
// Included only by .cu files.
#pragma once
#include <cuda/std/complex>
#include <cuda/std/type_traits>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

using c64 = ::cuda::std::complex<float>;
using c128 = ::cuda::std::complex<double>;

template <class T> inline constexpr bool is_complex_v = false;
template <> inline constexpr bool is_complex_v<c64> = true;
template <> inline constexpr bool is_complex_v<c128> = true;

template <class T> struct real_of { using type = T; };
template <> struct real_of<c64> { using type = float; };
template <> struct real_of<c128> { using type = double; };
template <class T> using real_t = typename real_of<T>::type;

// Calls f.template operator()<T>() with the device type behind e.
template <class F>
decltype(auto) visit_elem(Elem e, F&& f) {
  switch (e) {
    case Elem::Bool: return f.template operator()<bool>();
    case Elem::Int32: return f.template operator()<int32_t>();
    case Elem::Int64: return f.template operator()<int64_t>();
    case Elem::Float32: return f.template operator()<float>();
    case Elem::Float64: return f.template operator()<double>();
    case Elem::Complex64: return f.template operator()<c64>();
    case Elem::Complex128: return f.template operator()<c128>();
  }
  return f.template operator()<float>();
}

// One value converted as NumPy's astype does (complex to real keeps the real part; to bool is != 0).
template <class O, class I>
SPIRE_HD O convert(I v) {
  if constexpr (is_complex_v<I> && !is_complex_v<O>) {
    if constexpr (::cuda::std::is_same_v<O, bool>) return v.real() != 0 || v.imag() != 0;
    else return O(v.real());
  } else if constexpr (is_complex_v<O>) {
    if constexpr (is_complex_v<I>) return O(typename O::value_type(v.real()), typename O::value_type(v.imag()));
    else return O(typename O::value_type(v), 0);
  } else if constexpr (::cuda::std::is_same_v<O, bool>) {
    return v != I(0);
  } else {
    return O(v);
  }
}

}  // namespace spire::cuda
