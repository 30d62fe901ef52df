// Launchers for relu and relu_backward (relu.cu).
#pragma once
#include <cuda_runtime_api.h>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// out = x <= 0 ? 0 : x (integers and reals; NaN passes through).
cudaError_t launch_relu(const Loop<2>& L);
// out = x <= 0 ? 0 : g. Operands: out, g, x, all of one type (integers and reals).
cudaError_t launch_relu_backward(const Loop<3>& L);

}  // namespace spire::cuda
