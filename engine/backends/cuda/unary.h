// Launcher for the unary math ops (unary.cu).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

enum class UnaryOp : uint8_t {
  Exp, Expm1, Log, Log1p, Reciprocal, Square, Sqrt, Rsqrt,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh,
  Sigmoid, Softplus, Erf,
  Abs, Sign, Angle, Floor, Ceil, Round,
};

// out = op(in) for the input's element type L.elem[1] (the output's is what the op's infer gave:
// the input's, or its real type for abs and angle). A dtype the op does not take returns
// cudaErrorNotSupported (infer refuses those first).
cudaError_t launch_unary(UnaryOp op, const Loop<2>& L);

}  // namespace spire::cuda
