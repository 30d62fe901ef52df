// A number given to an op as an attribute (fill values, clamp bounds, exponents), kept in its widest
// form and narrowed once to the tensor's type.
#pragma once
#include <complex>
#include <cstdint>
#include <string>

#include "engine/core/dtype.h"

namespace spire {

class Scalar {
 public:
  Scalar() = default;
  Scalar(bool v) : kind_(DType::Bool), z_(v ? 1.0 : 0.0), i_(v) {}
  Scalar(int v) : kind_(DType::Int64), z_(double(v)), i_(v) {}
  Scalar(int64_t v) : kind_(DType::Int64), z_(double(v)), i_(v) {}
  Scalar(double v) : kind_(DType::Float64), z_(v), i_(int64_t(v)) {}
  Scalar(float v) : Scalar(double(v)) {}
  Scalar(std::complex<double> v) : kind_(DType::Complex128), z_(v), i_(int64_t(v.real())) {}

  DType kind() const { return kind_; }  // Bool, Int64, Float64 or Complex128
  double to_double() const { return z_.real(); }
  int64_t to_int() const { return i_; }
  std::complex<double> to_complex() const { return z_; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, std::complex<float>>) return std::complex<float>(z_);
    else if constexpr (std::is_same_v<T, std::complex<double>>) return z_;
    else if constexpr (std::is_same_v<T, bool>) return z_ != 0.0;
    else if constexpr (std::is_integral_v<T>) return T(i_);
    else return T(z_.real());
  }
  std::string str() const;

 private:
  DType kind_ = DType::Float64;
  std::complex<double> z_{0.0};
  int64_t i_ = 0;
};

}  // namespace spire
