#include "engine/backends/cpu/loops.h"

#include <cstring>

namespace spire::cpu {

Tensor broadcast_view(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  return make_view(t, shape, broadcast_strides(t, shape), t.offset());
}

namespace {
// One element converted as NumPy's astype does (complex to real keeps the real part; to bool is
// "nonzero", so 1j is true).
template <class O, class I>
O convert(I v) {
  if constexpr (is_complex_v<I> && std::is_same_v<O, bool>) return v != I(0);
  else if constexpr (is_complex_v<I> && !is_complex_v<O>) return O(v.real());
  else if constexpr (is_complex_v<O> && !is_complex_v<I>) return O(typename O::value_type(v));
  else if constexpr (std::is_same_v<O, bool>) return v != I(0);
  else return static_cast<O>(v);
}
}  // namespace

void copy_into(const Tensor& src, Tensor& dst) {
  SPIRE_CHECK(src.shape() == dst.shape(), ShapeError, "copy: shapes ", shape_str(src.shape()), " and ",
              shape_str(dst.shape()), " differ");
  if (src.dtype() == dst.dtype() && src.is_contiguous() && dst.is_contiguous()) {
    std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
    return;
  }
  visit_dtype(dst.dtype(), [&]<class O>() {
    visit_dtype(src.dtype(), [&]<class I>() {
      map<O, I>(dst, [](I v) { return convert<O>(v); }, src);
    });
  });
}

}  // namespace spire::cpu
