// The reading side of indexing on CUDA: index_select, gather, one_hot. Each operand becomes a view
// at the output's shape whose strides give its base address (0 along the indexed axes, which the
// kernel adds from the index values), so one Loop carries every stride and broadcast.
#include "engine/backends/cuda/indexing.h"
#include "engine/backends/cuda/loop.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

Tensor view(const Tensor& base, const Shape& shape, const Shape& strides) {
  return make_view(base, shape, strides, base.offset());
}

// out[pre, b, post] = x[pre, index_0[b], ..., index_{k-1}[b], post] for a packed index [k, B...].
void index_select_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& packed = in[1];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis"), k = packed.shape()[0], nb = packed.dim() - 1;
  int64_t post = x.dim() - axis - k;
  SPIRE_CHECK(k <= kMaxDims, ValueError, "index_select: CUDA takes at most ", kMaxDims,
              " index components, got ", k);
  Shape xs, is;  // strides at y's shape [pre, B, post]
  for (int64_t d = 0; d < axis; ++d) xs.push_back(x.strides()[d]), is.push_back(0);
  for (int64_t d = 0; d < nb; ++d) xs.push_back(0), is.push_back(packed.strides()[1 + d]);
  for (int64_t d = 0; d < post; ++d) xs.push_back(x.strides()[axis + k + d]), is.push_back(0);
  IndexComponents c;
  c.k = int(k);
  c.step = packed.strides()[0];
  for (int64_t j = 0; j < k; ++j) c.size[j] = x.shape()[axis + j], c.stride[j] = x.strides()[axis + j];
  DeviceGuard guard(y.device());
  Loop<3> L = make_loop<3>(y.shape(), {y, view(x, y.shape(), xs), view(packed, y.shape(), is)});
  check_launch(launch_index_select(L, elem(packed.dtype()), itemsize(x.dtype()), c), "index_select");
}
SPIRE_REGISTER_KERNEL("index_select", DeviceKind::CUDA, index_select_kernel);

// out[p, j, q] = x[p, index[p, j, q], q].
void gather_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& index = in[1];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis");
  Shape xs = x.strides();
  xs[axis] = 0;
  DeviceGuard guard(y.device());
  Loop<3> L = make_loop<3>(y.shape(), {y, view(x, y.shape(), xs), index});
  check_launch(launch_gather(L, elem(index.dtype()), itemsize(x.dtype()), x.shape()[axis], x.strides()[axis]),
               "gather");
}
SPIRE_REGISTER_KERNEL("gather", DeviceKind::CUDA, gather_kernel);

void one_hot_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& index = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  Shape is = index.strides();
  is.push_back(0);  // the class axis
  DeviceGuard guard(y.device());
  Loop<2> L = make_loop<2>(y.shape(), {y, view(index, y.shape(), is)});
  check_launch(launch_one_hot(L, elem(index.dtype()), a.get<int64_t>("num_classes")), "one_hot");
}
SPIRE_REGISTER_KERNEL("one_hot", DeviceKind::CUDA, one_hot_kernel);

}  // namespace
}  // namespace spire::cuda
