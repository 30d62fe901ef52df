#include <sstream>

#include "engine/core/attrs.h"
#include "engine/core/scalar.h"

namespace spire {

std::string Scalar::str() const {
  std::ostringstream s;
  switch (kind_) {
    case DType::Bool: s << (i_ ? "True" : "False"); break;
    case DType::Int64: s << i_; break;
    case DType::Complex128: s << z_.real() << (z_.imag() < 0 ? "-" : "+") << std::abs(z_.imag()) << "j"; break;
    default: s << z_.real();
  }
  return s.str();
}

std::string Attrs::str() const {
  std::ostringstream s;
  for (auto& [k, v] : items_) {
    s << (s.tellp() ? ", " : "") << k << "=";
    std::visit([&](const auto& x) {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, std::vector<int64_t>> || std::is_same_v<X, std::vector<double>>) {
        s << "[";
        for (size_t i = 0; i < x.size(); ++i) s << (i ? ", " : "") << x[i];
        s << "]";
      } else if constexpr (std::is_same_v<X, DType>) s << name(x);
      else if constexpr (std::is_same_v<X, Scalar>) s << x.str();
      else s << x;
    }, v);
  }
  return s.str();
}

}  // namespace spire
