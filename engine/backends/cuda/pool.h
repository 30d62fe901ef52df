// Launchers of the pooling kernels (plain C++ signatures, included by nvcc and the C++ side).
// The windows are engine/ops/pool_internal.h's, as three axes (missing outer ones of size 1), with
// their per-axis tables copied to the device.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// Along axis a (0 outermost): output o reads count[a][o] input positions first[a][o],
// first[a][o] + step[a], ... and average pooling divides by the product of divisor[a][o] (or by
// divisor_override when it is not 0). For avg_pool_backward, the outputs whose window holds input
// position i are inv_outs[a][inv_start[a][i] .. inv_start[a][i + 1]), in increasing order.
struct PoolWindows {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, step[3] = {1, 1, 1};
  const int64_t* first[3] = {};
  const int64_t* count[3] = {};
  const int64_t* divisor[3] = {};
  const int64_t* inv_start[3] = {};
  const int64_t* inv_outs[3] = {};
  int64_t divisor_override = 0;
};

// x contiguous [planes, in plane]; y and idx contiguous [planes, out plane]. Real types only
// (int32, int64, float32, float64); others give cudaErrorInvalidValue.
cudaError_t launch_max_pool(Elem e, const void* x, void* y, int64_t* idx, int64_t planes, const PoolWindows& w);
// Floating types only.
cudaError_t launch_avg_pool(Elem e, const void* x, void* y, int64_t planes, const PoolWindows& w);
// g contiguous [planes, out plane] -> x contiguous [planes, in plane]; floating types only.
cudaError_t launch_avg_pool_backward(Elem e, const void* g, void* x, int64_t planes, const PoolWindows& w);

// y = 0 with y[p, idx[p, j]] = x[p, j], the last j winning where indices repeat. `winner` is
// scratch of planes * out_plane int64s. Indices were checked to lie in [0, out_plane).
cudaError_t launch_max_unpool(const void* x, const int64_t* idx, void* y, int64_t* winner, int64_t planes,
                              int64_t in_plane, int64_t out_plane, size_t itemsize);

}  // namespace spire::cuda
