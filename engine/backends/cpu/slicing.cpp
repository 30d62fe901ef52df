// CPU kernels of the slicing family: the scatter-into-zeros reverses of the slicing views, flip,
// tril and triu.
#include <algorithm>

#include "engine/backends/cpu/index_loops.h"
#include "engine/core/op.h"
#include "engine/ops/shape_views.h"

namespace spire::cpu {
namespace {

// Zeros, then the gradient copied into the same view of the output that the forward op took.
void slice_backward_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  int64_t step = a.get<int64_t>("step"), axis = a.get<int64_t>("axis");
  int64_t len = a.get<int64_t>("length"), start = a.get<int64_t>("start");
  // A unit step covers one box: only its complement needs zeros.
  if (step == 1 || step == -1) {
    Shape lo(y.dim(), 0), hi = y.shape();
    lo[axis] = step == 1 ? start : start - len + 1;
    hi[axis] = lo[axis] + len;
    fill_outside(y, lo, hi, Scalar(0.0));
  } else {
    zero_fill(y);
  }
  Tensor v = ::spire::detail::slice_view(y, a);
  copy_into(in[0], v);
}
SPIRE_REGISTER_KERNEL("slice_backward", DeviceKind::CPU, slice_backward_kernel);

SPIRE_REGISTER_KERNEL("diagonal_backward", DeviceKind::CPU,
                      [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
                        zero_fill(out[0]);
                        Tensor v = ::spire::detail::diagonal_view(out[0], a);
                        copy_into(in[0], v);
                      });

// Reads the input through a view with negated strides along the flipped axes.
SPIRE_REGISTER_KERNEL("flip", DeviceKind::CPU,
                      [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
                        const Tensor& x = in[0];
                        Shape strides = x.strides();
                        int64_t offset = x.offset();
                        for (int64_t ax : a.get<std::vector<int64_t>>("axes")) {
                          if (x.shape()[ax] > 0) offset += (x.shape()[ax] - 1) * strides[ax];
                          strides[ax] = -strides[ax];
                        }
                        copy_into(make_view(x, x.shape(), strides, offset), out[0]);
                      });

// tril keeps entries with j <= i + k, triu those with j >= i + k, over the last two axes.
template <bool Lower>
void triangle(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  int64_t k = a.get<int64_t>("k");
  int64_t nd = x.dim(), n = x.shape()[nd - 2], m = x.shape()[nd - 1];
  if (y.numel() == 0) return;
  AxisGroup batch(x, 0, nd - 2);
  int64_t sn = x.strides()[nd - 2], sm = x.strides()[nd - 1];
  int64_t rows = batch.size * n;
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = y.data<T>();
    parallel_for(rows, rows * m, [&](int64_t r) {
      int64_t i = r % n;
      const T* src = px + batch[r / n] + i * sn;
      T* dst = py + r * m;
      int64_t cut = std::clamp(Lower ? i + k + 1 : i + k, int64_t(0), m);
      int64_t keep0 = Lower ? 0 : cut, keep1 = Lower ? cut : m;
      for (int64_t j = 0; j < keep0; ++j) dst[j] = T(0);
      for (int64_t j = keep0; j < keep1; ++j) dst[j] = src[j * sm];
      for (int64_t j = keep1; j < m; ++j) dst[j] = T(0);
    });
  });
}
SPIRE_REGISTER_KERNEL("tril", DeviceKind::CPU, triangle<true>);
SPIRE_REGISTER_KERNEL("triu", DeviceKind::CPU, triangle<false>);

}  // namespace
}  // namespace spire::cpu
