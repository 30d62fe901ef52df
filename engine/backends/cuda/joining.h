// Launcher of constant padding (plain C++ signature, included by nvcc and the C++ side).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// The geometry of a pad: along axis d the contiguous output has out[d] positions, of which
// [lo[d], lo[d] + in[d]) hold the input (strides in elements `stride[d]`, base `x`).
struct PadGeometry {
  int ndim = 0;
  int64_t out[kMaxDims] = {}, lo[kMaxDims] = {}, in[kMaxDims] = {}, stride[kMaxDims] = {};
};

// y[i] = the input element at i's position when it lies in the interior, the `itemsize`-byte value
// at `value` (host memory) otherwise. One thread per output element: every element written once.
cudaError_t launch_pad(const PadGeometry& g, const void* x, void* y, int64_t numel, const void* value,
                       size_t itemsize);

}  // namespace spire::cuda
