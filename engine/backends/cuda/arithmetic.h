// Launchers for add, sub, mul, div and neg (arithmetic.cu). Plain C++ signatures: the engine's
// headers never go through nvcc.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

enum class ArithOp : uint8_t { Add, Sub, Mul, Div };

// out = a op b; all three operands of the output's element type (every Elem).
cudaError_t launch_arithmetic(ArithOp op, const Loop<3>& L);
// out = -x (every Elem).
cudaError_t launch_neg(const Loop<2>& L);

}  // namespace spire::cuda
