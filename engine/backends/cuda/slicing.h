// Launchers of the shape kernels (slicing, joining, the FFT's permuted copies): moving elements
// between strided views without looking at their values, so they go by element width, not dtype.
// Plain C++ signatures: included by nvcc and by the C++ side alike.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// dst[i] = src[i] over a Loop whose operand 0 is the destination view and operand 1 the source
// (any strides, negative ones included), for elements of `itemsize` bytes (1, 4, 8 or 16).
cudaError_t launch_copy(const Loop<2>& L, size_t itemsize);

// tril (lower) or triu of a batch of n x m matrices into the contiguous y: x's batch offsets come
// from `batch` (a loop over the batch axes whose operand 0 is x's base), sn / sm are x's strides
// along the last two axes; entries with j <= i + k (lower) or j >= i + k (upper) are kept, the
// others are zero.
cudaError_t launch_triangle(bool lower, const Loop<1>& batch, void* y, int64_t n, int64_t m, int64_t sn,
                            int64_t sm, int64_t k, size_t itemsize);

}  // namespace spire::cuda
