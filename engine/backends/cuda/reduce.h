// Launchers of the reductions (sum, prod, amax, amin, argmax, argmin), compiled by nvcc. Plain C++:
// the C++ side (reduce.cpp) describes the input as kept and reduced dimensions, the nvcc side
// (reduce.cu) plans the passes and runs them.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// Device memory for intermediate results, valid until the operation's last launch has run (the
// C++ side hands out tensors from the stream-ordered allocator and frees them after launching).
using ScratchFn = std::function<void*(size_t bytes)>;

enum class ReduceOp : uint8_t { Sum, Prod, Max, Min, ArgMax, ArgMin };

// A reduction of a strided input into a contiguous output. Both dimension lists are innermost
// first. Output element o is row-major over the kept dimensions (the output's own order);
// reduced element r is row-major over the reduced dimensions, and that is the index an
// arg-reduction reports (it reduces one axis, so r is the position along it). Size-1 dimensions
// are left out; n_out and n_red are given explicitly so that empty inputs are described too.
struct ReduceGeometry {
  int64_t n_out = 1, n_red = 1;
  int nk = 0;
  int64_t ksize[kMaxDims] = {}, kstride[kMaxDims] = {};
  int nr = 0;
  int64_t rsize[kMaxDims] = {}, rstride[kMaxDims] = {};
};

// The geometry of reducing a strided input (ndim sizes and strides, in elements) over `axes`
// (sorted, distinct). Kept dimensions keep their order; reduced ones are taken in memory order
// (largest stride first), so the innermost is the densest; size-1 dimensions are dropped and
// neighbours that walk memory as one are merged. False if more than kMaxDims kept or reduced
// dimensions remain.
bool reduce_geometry(int ndim, const int64_t* shape, const int64_t* strides, int naxes, const int64_t* axes,
                     ReduceGeometry& g);

// out[o] = fold over r of in[o, r], on the current stream. `in` points at element [0, ..., 0];
// `out` has the input's element type, or int64 for ArgMax/ArgMin. Sum and Prod take every type
// but bool; Max, Min, ArgMax and ArgMin every type but complex (cudaErrorInvalidValue otherwise).
cudaError_t launch_reduce(ReduceOp op, Elem elem, const ReduceGeometry& g, const void* in, void* out,
                          const ScratchFn& scratch);

}  // namespace spire::cuda
