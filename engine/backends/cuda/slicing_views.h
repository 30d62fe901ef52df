// The C++ side's element moves between views of CUDA tensors, shared by the slicing, joining, pooling
// and FFT kernels: a strided copy (dst may be any view of an output, src any view of an input),
// a contiguous copy of a view, a zero fill and permuted views. All on the current stream, never
// synchronising.
#pragma once
#include <cuda_runtime_api.h>

#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/slicing.h"
#include "engine/backends/cuda/stream.h"
#include "engine/core/error.h"
#include "engine/core/tensor.h"

namespace spire::cuda {

// dst = src elementwise; same shape and dtype, any strides on both sides (dst must not overlap src).
inline void copy_view(const Tensor& src, const Tensor& dst, const std::string& op) {
  if (dst.numel() == 0) return;
  Loop<2> L = make_loop<2>(dst.shape(), {dst, src});
  check_launch(launch_copy(L, dst.itemsize()), op);
}

// t itself when it is one dense block, otherwise a contiguous copy of it.
inline Tensor contiguous_copy(const Tensor& t, const std::string& op) {
  if (t.is_contiguous()) return t;
  Tensor c = empty(t.shape(), t.dtype(), t.device());
  copy_view(t, c, op);
  return c;
}

// Zero bits over a contiguous tensor (0, 0.0, false and 0+0i alike).
inline void zero_fill(const Tensor& t, const std::string& op) {
  if (t.numel() == 0) return;
  SPIRE_CUDA_CHECK(cudaMemsetAsync(t.raw_data(), 0, t.nbytes(), current_stream()), ("memset in '" + op + "'").c_str());
}

// t's axes reordered: axis i of the result is axis perm[i] of t (a view, no copy).
inline Tensor permuted_view(const Tensor& t, const std::vector<int64_t>& perm) {
  Shape shape, strides;
  for (int64_t p : perm) {
    shape.push_back(t.shape()[p]);
    strides.push_back(t.strides()[p]);
  }
  return make_view(t, shape, strides, t.offset());
}

}  // namespace spire::cuda
