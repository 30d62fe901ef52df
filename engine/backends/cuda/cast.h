// Launcher for element-type conversion and strided copies (cast.cu): the "cast" and "copy" kernels.
#pragma once
#include <cuda_runtime_api.h>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// out = in converted from L.elem[1] to L.elem[0] as the CPU's copy_into converts (any pair of
// Elems; the same Elem copies bits). In and out may have any strides.
cudaError_t launch_cast(const Loop<2>& L);

}  // namespace spire::cuda
