// CPU kernels of concat and constant pad: each input is copied into its view of the output, so
// any input strides are handled by copy_into (vectorised rows, OpenMP for large tensors).
#include "engine/backends/cpu/index_loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

void concat_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  int64_t axis = a.get<int64_t>("axis");
  Tensor& y = out[0];
  int64_t at = 0;
  for (const Tensor& x : in) {
    if (x.numel() > 0) {
      Tensor slab = make_view(y, x.shape(), y.strides(), y.offset() + at * y.strides()[axis]);
      copy_into(x, slab);
    }
    at += x.shape()[axis];
  }
}
SPIRE_REGISTER_KERNEL("concat", DeviceKind::CPU, concat_kernel);

// The border is filled, the interior copied: each output element is written once.
void pad_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  auto& p = a.get<std::vector<int64_t>>("pads");
  Tensor& y = out[0];
  Shape lo(y.dim()), hi(y.dim());
  int64_t offset = y.offset();
  for (int64_t d = 0; d < y.dim(); ++d) {
    lo[d] = p[2 * d];
    hi[d] = p[2 * d] + in[0].shape()[d];
    offset += p[2 * d] * y.strides()[d];
  }
  fill_outside(y, lo, hi, a.get<Scalar>("value"));
  if (in[0].numel() == 0) return;
  Tensor interior = make_view(y, in[0].shape(), y.strides(), offset);
  copy_into(in[0], interior);
}
SPIRE_REGISTER_KERNEL("pad", DeviceKind::CPU, pad_kernel);

}  // namespace
}  // namespace spire::cpu
