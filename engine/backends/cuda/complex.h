// Launchers for complex parts (complex.cu).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

enum class ComplexPart : uint8_t { Real, Imag };

// out (float32/float64) = the part of a complex64/complex128 input L.elem[1].
cudaError_t launch_complex_part(ComplexPart part, const Loop<2>& L);
// out = conj(in), complex64 or complex128.
cudaError_t launch_conj(const Loop<2>& L);
// out (complex) = re + i im, parts float32 or float64 (L.elem[1]).
cudaError_t launch_make_complex(const Loop<3>& L);

}  // namespace spire::cuda
