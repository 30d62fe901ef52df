// Launchers for comparisons, logic and float classification (compare.cu): bool outputs.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

enum class CompareOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor };
enum class PredicateOp : uint8_t { LogicalNot, IsNan, IsFinite };

// out (bool) = a op b for inputs of one element type L.elem[1] (ordered comparisons: no complex).
cudaError_t launch_compare(CompareOp op, const Loop<3>& L);
// out (bool) = op(x) for any input element type L.elem[1].
cudaError_t launch_predicate(PredicateOp op, const Loop<2>& L);

}  // namespace spire::cuda
