// The adding side of indexing on CUDA: index_add and scatter_add (y = x, then the sources added in
// ascending order per destination; scatter.cu explains how that stays deterministic without
// atomics). Operands become views whose strides give base addresses, as in gather.cpp.
#include "engine/backends/cuda/indexing.h"
#include "engine/backends/cuda/loop.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

Tensor view(const Tensor& base, const Shape& shape, const Shape& strides) {
  return make_view(base, shape, strides, base.offset());
}

// Axes [begin, end) of v followed by axes [begin2, end2).
Shape pick(const Shape& v, int64_t begin, int64_t end, int64_t begin2 = 0, int64_t end2 = 0) {
  Shape s(v.begin() + begin, v.begin() + end);
  s.insert(s.end(), v.begin() + begin2, v.begin() + end2);
  return s;
}

// y (contiguous, x's shape) = x.
void copy_input(const Tensor& x, Tensor& y, const char* op) {
  check_launch(launch_copy_input(make_loop<2>(y, {x}), itemsize(x.dtype())), op);
}

// y = x; y[pre, index_0[b], ..., index_{k-1}[b], post] += src[pre, b, post] for a packed index [k, B...].
void index_add_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& packed = in[1];
  const Tensor& src = in[2];
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  copy_input(x, y, "index_add");
  if (src.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis"), k = packed.shape()[0], nb = packed.dim() - 1, nd = x.dim();
  SPIRE_CHECK(k <= kMaxDims, ValueError, "index_add: CUDA takes at most ", kMaxDims, " index components, got ", k);
  // Columns: the axes that are not indexed (before and after), in y and in src.
  Shape cshape = pick(y.shape(), 0, axis, axis + k, nd);
  Tensor ycols = view(y, cshape, pick(y.strides(), 0, axis, axis + k, nd));
  Tensor scols = view(src, cshape, pick(src.strides(), 0, axis, axis + nb, src.dim()));
  // Rows: the index positions b, read from component 0 (the others are `step` further on).
  Shape bshape = pick(packed.shape(), 1, packed.dim());
  Tensor index0 = view(packed, bshape, pick(packed.strides(), 1, packed.dim()));
  Tensor srows = view(src, bshape, pick(src.strides(), axis, axis + nb));
  IndexComponents c;
  c.k = int(k);
  c.step = packed.strides()[0];
  for (int64_t j = 0; j < k; ++j) c.size[j] = y.shape()[axis + j], c.stride[j] = y.strides()[axis + j];
  Temporaries temps;
  check_launch(launch_index_add(make_loop<2>(cshape, {ycols, scols}), make_loop<2>(bshape, {index0, srows}),
                                elem(packed.dtype()), elem(y.dtype()), c, y.numel(), temps),
               "index_add");
}
SPIRE_REGISTER_KERNEL("index_add", DeviceKind::CUDA, index_add_kernel);

// y = x; y[p, index[p, j, q], q] += src[p, j, q].
void scatter_add_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& index = in[1];
  const Tensor& src = in[2];
  Tensor& y = out[0];
  DeviceGuard guard(y.device());
  copy_input(x, y, "scatter_add");
  if (index.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis");
  Shape ybase = y.strides();
  ybase[axis] = 0;
  const Shape& shape = index.shape();
  Loop<3> L = make_loop<3>(shape, {view(y, shape, ybase), index, src});
  Shape cshape = shape;
  cshape[axis] = 1;  // one position per column; the kernel walks the axis itself
  Loop<3> cols = make_loop<3>(cshape, {view(y, cshape, ybase), view(index, cshape, index.strides()),
                                       view(src, cshape, src.strides())});
  Temporaries temps;
  check_launch(launch_scatter_add(L, cols, elem(index.dtype()), elem(y.dtype()), shape[axis], index.strides()[axis],
                                  src.strides()[axis], y.shape()[axis], y.strides()[axis], y.numel(), temps),
               "scatter_add");
}
SPIRE_REGISTER_KERNEL("scatter_add", DeviceKind::CUDA, scatter_add_kernel);

}  // namespace
}  // namespace spire::cuda
