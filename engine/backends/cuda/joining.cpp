// CUDA kernels of concat and constant pad (engine/ops/joining.cpp; the circular and reflect modes
// are index_select gathers built by the wrapper, so "pad" itself is only ever constant).
#include "engine/backends/cuda/joining.h"
#include "engine/backends/cuda/slicing_views.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

// Each input is copied into its slab of the output: one strided copy per input.
void concat_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  int64_t axis = a.get<int64_t>("axis");
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  int64_t at = 0;
  for (const Tensor& x : in) {
    if (x.numel() > 0) {
      Tensor slab = make_view(y, x.shape(), y.strides(), y.offset() + at * y.strides()[axis]);
      copy_view(x, slab, "concat");
    }
    at += x.shape()[axis];
  }
}
SPIRE_REGISTER_KERNEL("concat", DeviceKind::CUDA, concat_kernel);

// The pad's axes, with every unpadded axis folded into the axis outside it where the input's
// strides allow (so most pads have one or two axes, and any rank fits in kMaxDims).
PadGeometry pad_geometry(const Tensor& x, const Tensor& y, const std::vector<int64_t>& pads) {
  struct Axis {
    int64_t out, lo, in, stride;
  };
  std::vector<Axis> axes;
  for (int64_t d = 0; d < y.dim(); ++d) {
    Axis ax{y.shape()[d], pads[2 * d], x.shape()[d], x.strides()[d]};
    if (ax.out == 1 && ax.in == 1) continue;  // position 0, always interior
    bool unpadded = ax.lo == 0 && ax.in == ax.out;
    if (unpadded && !axes.empty() && axes.back().stride == ax.in * ax.stride) {
      Axis& b = axes.back();
      b.out *= ax.out;
      b.lo *= ax.out;
      b.in *= ax.in;
      b.stride = ax.stride;
      continue;
    }
    axes.push_back(ax);
  }
  if (axes.empty()) axes.push_back({1, 0, 1, 1});
  SPIRE_CHECK(int64_t(axes.size()) <= kMaxDims, ValueError, "pad: an input of shape ", shape_str(x.shape()),
              " padded to ", shape_str(y.shape()), " has ", axes.size(),
              " axes that cannot be merged; CUDA kernels take at most ", kMaxDims);
  PadGeometry g;
  g.ndim = int(axes.size());
  for (int d = 0; d < g.ndim; ++d) {
    g.out[d] = axes[d].out;
    g.lo[d] = axes[d].lo;
    g.in[d] = axes[d].in;
    g.stride[d] = axes[d].stride;
  }
  return g;
}

void pad_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  PadGeometry g = pad_geometry(x, y, a.get<std::vector<int64_t>>("pads"));
  // An empty input is never read (every position is border); its pointer only has to be valid.
  const void* px = x.numel() > 0 ? x.raw_data() : y.raw_data();
  Scalar v = a.get<Scalar>("value");
  visit_dtype(y.dtype(), [&]<class T>() {
    T value = v.to<T>();
    check_launch(launch_pad(g, px, y.raw_data(), y.numel(), &value, sizeof(T)), "pad");
  });
}
SPIRE_REGISTER_KERNEL("pad", DeviceKind::CUDA, pad_kernel);

}  // namespace
}  // namespace spire::cuda
