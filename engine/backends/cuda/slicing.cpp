// CUDA kernels of the slicing family: the reverses of the slicing views (zeros, then the gradient
// copied into the same view of the output that the forward op took), flip, tril and triu. Same
// semantics as engine/backends/cpu/slicing.cpp; each output element is written by one thread.
#include "engine/backends/cuda/slicing_views.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/shape_views.h"

namespace spire::cuda {
namespace {

void slice_backward_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  // A memset runs at full bandwidth, so zeroing all of y costs less than a second kernel that
  // skips the slice (the CPU fills only the complement of a unit-step slice).
  zero_fill(y, "slice_backward");
  copy_view(in[0], ::spire::detail::slice_view(y, a), "slice_backward");
}
SPIRE_REGISTER_KERNEL("slice_backward", DeviceKind::CUDA, slice_backward_kernel);

void diagonal_backward_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  zero_fill(y, "diagonal_backward");
  copy_view(in[0], ::spire::detail::diagonal_view(y, a), "diagonal_backward");
}
SPIRE_REGISTER_KERNEL("diagonal_backward", DeviceKind::CUDA, diagonal_backward_kernel);

// Reads the input through a view with negated strides along the flipped axes (as the CPU does).
void flip_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  DeviceGuard guard(out[0].device());
  Shape strides = x.strides();
  int64_t offset = x.offset();
  for (int64_t ax : a.get<std::vector<int64_t>>("axes")) {
    if (x.shape()[ax] > 0) offset += (x.shape()[ax] - 1) * strides[ax];
    strides[ax] = -strides[ax];
  }
  copy_view(make_view(x, x.shape(), strides, offset), out[0], "flip");
}
SPIRE_REGISTER_KERNEL("flip", DeviceKind::CUDA, flip_kernel);

// tril keeps entries with j <= i + k, triu those with j >= i + k, over the last two axes.
template <bool Lower>
void triangle(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  int64_t nd = x.dim(), n = x.shape()[nd - 2], m = x.shape()[nd - 1];
  // x's batch axes as a loop of their own (merged where they can be), whose base is x's data.
  Shape bshape(x.shape().begin(), x.shape().end() - 2), bstrides(x.strides().begin(), x.strides().end() - 2);
  Tensor batch_view = make_view(x, bshape, bstrides, x.offset());
  Loop<1> batch = make_loop<1>(bshape, {batch_view});
  check_launch(launch_triangle(Lower, batch, y.raw_data(), n, m, x.strides()[nd - 2], x.strides()[nd - 1],
                               a.get<int64_t>("k"), y.itemsize()),
               Lower ? "tril" : "triu");
}
SPIRE_REGISTER_KERNEL("tril", DeviceKind::CUDA, triangle<true>);
SPIRE_REGISTER_KERNEL("triu", DeviceKind::CUDA, triangle<false>);

}  // namespace
}  // namespace spire::cuda
