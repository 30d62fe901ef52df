// Launcher of resample_axis (engine/ops/interpolate.cpp), compiled by nvcc.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// y[p, o, q] = sum over k in row o of weights[k] x[p, cols[k], q], for contiguous x [P, n, Q] and
// y [P, m, Q] (float32 or float64: `elem`, also the type of `weights`). row_ptr (m + 1 entries),
// cols and weights are device arrays holding the matrix in CSR form. On the current stream.
cudaError_t launch_resample_axis(Elem elem, const void* x, void* y, int64_t P, int64_t n, int64_t m, int64_t Q,
                                 const int64_t* row_ptr, const int64_t* cols, const void* weights);

}  // namespace spire::cuda
