#include "engine/core/dtype.h"

#include "engine/core/error.h"

namespace spire {

size_t itemsize(DType t) {
  static constexpr size_t sizes[] = {1, 4, 8, 4, 8, 8, 16};
  return sizes[static_cast<int>(t)];
}

const char* name(DType t) {
  static constexpr const char* names[] = {"bool",    "int32",     "int64",     "float32",
                                          "float64", "complex64", "complex128"};
  return names[static_cast<int>(t)];
}

DType dtype_from_name(const std::string& s) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (s == name(DType(i))) return DType(i);
  if (s == "float" || s == "f4") return DType::Float32;
  if (s == "double" || s == "f8") return DType::Float64;
  if (s == "int" || s == "i4") return DType::Int32;
  if (s == "long" || s == "i8") return DType::Int64;
  if (s == "c8") return DType::Complex64;
  if (s == "c16") return DType::Complex128;
  throw DTypeError("unknown dtype '" + s +
                   "'; allowed: bool, int32, int64, float32, float64, complex64, complex128");
}

DType real_dtype(DType t) {
  if (t == DType::Complex64) return DType::Float32;
  if (t == DType::Complex128) return DType::Float64;
  return t;
}

DType complex_dtype(DType t) {
  if (t == DType::Float64 || t == DType::Complex128) return DType::Complex128;
  return DType::Complex64;
}

// Promotion follows NumPy for these types, with one deliberate difference shared with PyTorch and
// JAX: int32 with float32 stays float32 (NumPy would widen to float64), so integer data never
// silently doubles the memory of a float32 model.
DType promote(DType a, DType b) {
  if (a == b) return a;
  auto rank = [](DType t) { return static_cast<int>(t); };
  if (is_complex(a) || is_complex(b)) {
    bool wide = a == DType::Complex128 || b == DType::Complex128 || a == DType::Float64 ||
                b == DType::Float64;
    return wide ? DType::Complex128 : DType::Complex64;
  }
  if (is_floating(a) || is_floating(b)) {
    if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
    return DType::Float32;
  }
  return rank(a) > rank(b) ? a : b;  // bool < int32 < int64
}

DType to_inexact(DType t) { return is_inexact(t) ? t : DType::Float32; }

}  // namespace spire
