#include "engine/nn/layers/common.h"

#include <charconv>

#include "engine/core/error.h"

namespace spire::nn {

std::string py_float(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";
  // Python writes exponents with at least two digits: 1e-05.
  auto e = s.find('e');
  if (e != std::string::npos) {
    size_t d = e + 1 + (s[e + 1] == '-' || s[e + 1] == '+' ? 1 : 0);
    if (s.size() - d == 1) s.insert(d, "0");
  }
  return s;
}

std::string py_tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

void check_layer_dtype(DType dtype, const char* layer) {
  SPIRE_CHECK(dtype == DType::Float32 || dtype == DType::Float64, DTypeError, layer,
              ": dtype must be float32 or float64, got ", name(dtype));
}

}  // namespace spire::nn
