// Launchers for pow, pow_scalar, atan2, maximum, minimum, where and clamp (binary.cu). Numbers
// that parameterise a kernel (an exponent, clamp bounds) are passed as host values of the
// element type, as launch_fill takes its value.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// out = a^b, operands of one type: integers by squaring, floating and complex by pow.
cudaError_t launch_pow(const Loop<3>& L);

// x^p for a number p. The common exponents have exact forms (as the CPU kernel and NumPy):
// the caller picks the form from p; `exponent` (a host value of the element type) is read only by
// General. Integer element types always compute by squaring with `int_exponent`.
enum class PowForm : uint8_t { General, Identity, Square, Cube, Reciprocal, ReciprocalSquare, Sqrt, One };
cudaError_t launch_pow_scalar(const Loop<2>& L, PowForm form, const void* exponent, int64_t int_exponent);

// out = atan2(y, x) (float32/float64).
cudaError_t launch_atan2(const Loop<3>& L);

// Elementwise maximum or minimum of integers or reals; NaN in either input gives NaN.
cudaError_t launch_extremum(const Loop<3>& L, bool is_max);

// out = cond ? a : b. Operands: out, cond (bool), a, b (the output's type).
cudaError_t launch_where(const Loop<4>& L);

// min(max(x, lo), hi) with NaN passing through; lo and hi are host values of the element type
// (integers or reals).
cudaError_t launch_clamp(const Loop<2>& L, const void* lo, const void* hi);

}  // namespace spire::cuda
