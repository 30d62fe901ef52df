// Element types and NumPy-style type promotion (the table is in docs/dtypes.md).
#pragma once
#include <complex>
#include <cstdint>
#include <string>

namespace spire {

enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64, Complex64, Complex128 };
constexpr int kNumDTypes = 7;

using c64 = std::complex<float>;
using c128 = std::complex<double>;

size_t itemsize(DType t);
const char* name(DType t);
DType dtype_from_name(const std::string& s);  // "float32", "f4", "complex64", ...

inline bool is_floating(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
inline bool is_integral(DType t) { return t == DType::Int32 || t == DType::Int64; }
inline bool is_inexact(DType t) { return is_floating(t) || is_complex(t); }
// The real type under a complex one (complex64 -> float32); identity otherwise.
DType real_dtype(DType t);
// The complex type over a real one (float32 -> complex64, float64 -> complex128).
DType complex_dtype(DType t);
// Result type of a binary op between tensors of types a and b.
DType promote(DType a, DType b);
// Result type of an op that needs floating point (sqrt of an int tensor gives float32, as in NumPy's
// float32-default frameworks).
DType to_inexact(DType t);

template <class T> inline constexpr bool is_complex_v = false;
template <> inline constexpr bool is_complex_v<c64> = true;
template <> inline constexpr bool is_complex_v<c128> = true;

template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::Float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::Float64; };
template <> struct dtype_of<c64> { static constexpr DType value = DType::Complex64; };
template <> struct dtype_of<c128> { static constexpr DType value = DType::Complex128; };

// Calls f.template operator()<T>() with the C++ type behind t.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f.template operator()<bool>();
    case DType::Int32: return f.template operator()<int32_t>();
    case DType::Int64: return f.template operator()<int64_t>();
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    case DType::Complex64: return f.template operator()<c64>();
    case DType::Complex128: return f.template operator()<c128>();
  }
  return f.template operator()<float>();
}

}  // namespace spire
