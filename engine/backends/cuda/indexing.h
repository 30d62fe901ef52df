// Launchers of the indexing ops (index_select, gather, one_hot, nonzero, index_add, scatter_add),
// compiled by nvcc, with plain C++ signatures. Operands arrive as Loops built on the C++ side:
// a loop's operand may be a view made only to carry offsets (stride 0 along an indexed axis, so
// that the loop's offsets give the base address and the kernel adds index * stride itself).
//
// Index values have been checked against their axes by the ops' infer (engine/ops/indexing.cpp),
// so kernels only wrap negative indices; they never see an out-of-range one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// Device memory for a launcher's temporaries (sort keys, CUB workspaces), taken from Spire's
// allocator for the current device and returned when this object goes out of scope: the allocator
// frees in stream order, so the memory stays valid for the kernels queued before that. Defined on
// the C++ side (indexing.cpp), callable from the launchers.
class Temporaries {
 public:
  Temporaries() = default;
  ~Temporaries();
  Temporaries(const Temporaries&) = delete;
  Temporaries& operator=(const Temporaries&) = delete;
  // At least `bytes` bytes, aligned for any element type (device allocations are 256-byte aligned).
  void* get(size_t bytes);

 private:
  std::vector<std::pair<void*, size_t>> blocks_;
};

// Up to kMaxDims index components (consecutive indexed axes) of a packed index [k, B...].
struct IndexComponents {
  int k = 1;
  int64_t step = 0;             // the packed index's stride between components
  int64_t size[kMaxDims] = {};  // sizes of the indexed axes (for wrapping negative indices)
  int64_t stride[kMaxDims] = {};  // strides of the indexed axes in the indexed tensor
};

// y = x for the scatter-adds: x strided, y contiguous, elements of `itemsize` bytes (bit-exact).
cudaError_t launch_copy_input(const Loop<2>& L, size_t itemsize);

// index_select: L = {y, x base (stride 0 on the indexed axes), component 0 of the index};
// y[o0] = x[o1 + sum_c wrap(index[o2 + c step]) * stride_c].
cudaError_t launch_index_select(const Loop<3>& L, Elem index, size_t itemsize, const IndexComponents& c);

// gather: L = {y, x base (stride 0 on `axis`), index}; y[o0] = x[o1 + wrap(index[o2], n) * xs].
cudaError_t launch_gather(const Loop<3>& L, Elem index, size_t itemsize, int64_t n, int64_t xs);

// one_hot: L = {y, index viewed at y's shape (stride 0 on the class axis)}; y[e] = (wrap(index) ==
// e % classes) in y's dtype.
cudaError_t launch_one_hot(const Loop<2>& L, Elem index, int64_t classes);

// nonzero: L = {x} over x's shape (dims = x's rank, sizes = x's shape). Writes `count` rows of
// `dims` coordinates to y in row-major order of x. `count` is the number of nonzeros (infer's).
cudaError_t launch_nonzero(const Loop<1>& L, int dims, const int64_t* sizes, int64_t count, int64_t* y,
                           Temporaries& temps);

// index_add, y already holding x (contiguous). cols = {y base, src base} over the non-indexed
// axes (pre + post); rows = {component 0 of the index, src's offsets} over the index's shape B.
// y[col_y + sum_c wrap(index_c[b]) * stride_c] += src[col_src + src_b] for every b, in order of b.
cudaError_t launch_index_add(const Loop<2>& cols, const Loop<2>& rows, Elem index, Elem t,
                             const IndexComponents& c, int64_t y_numel, Temporaries& temps);

// scatter_add, y already holding x (contiguous). L = {y base (stride 0 on `axis`), index, src}
// over the index's shape; `cols` the same three with `axis` of size 1 (one position per column);
// J, is, ss: the index's size along axis and the strides of index and src there; n, ys: y's size
// and stride along axis. y[o0 + wrap(index[o1], n) * ys] += src[o2], in order along `axis`.
cudaError_t launch_scatter_add(const Loop<3>& L, const Loop<3>& cols, Elem index, Elem t, int64_t J,
                               int64_t is, int64_t ss, int64_t n, int64_t ys, int64_t y_numel,
                               Temporaries& temps);

}  // namespace spire::cuda
