// Launchers of the small kernels around cuFFT (plain C++ signatures, included by nvcc and the C++
// side): normalisation, the half spectrum's edge bins, real <-> complex moves, and the DCTs' even
// extensions and twiddles. `dbl` picks float64 (else float32) as the real type.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// p[i] *= R(s) for the n real numbers at p (R(s) rounded once, as the CPU does).
cudaError_t launch_fft_scale(void* p, int64_t n, double s, bool dbl);

// The input of a C2R, which overwrites it: dst = s * src over a Loop of half spectra (operand 0 the
// contiguous destination, operand 1 the source view, the last axis the m bins), with the imaginary
// part of bin 0, and of bin m - 1 when `nyquist`, set to zero: what the half spectrum of a real
// signal has there. dst may be src itself. Scaling here saves the output a pass of its own.
cudaError_t launch_c2r_prepare(const Loop<2>& L, int64_t m, bool nyquist, double s, bool dbl);

// out = complex(in, 0) (operand 0 complex, operand 1 real) and out = real(in) (operand 0 real,
// operand 1 complex), over any strides.
cudaError_t launch_real_to_complex(const Loop<2>& L, bool dbl);
cudaError_t launch_real_part(const Loop<2>& L, bool dbl);

// The DCTs (FFTW's unnormalised REDFT00 / 10 / 01, types 1 / 2 / 3) of length n along one axis, as
// one FFT of an even extension. `rows` walks the other axes: operand 0 is y's base, operand 1 x's;
// x_stride / y_stride are the strides along the transformed axis.
//   extend: type 1: buf real [rows, 2(n - 1)], x mirrored without repeating its ends (for an R2C);
//           type 2: buf real [rows, 2n], x followed by x reversed (for an R2C);
//           type 3: buf complex [rows, n + 1], x_k e^{i pi k / 2n} and a zero Nyquist bin (for a C2R).
//   finish: type 1: y_k = Re Z_k of the R2C's [rows, n] bins;
//           type 2: y_k = Re(e^{-i pi k / 2n} Z_k) of the R2C's [rows, n + 1] bins;
//           type 3: y_k = the C2R's real [rows, 2n] output at k < n.
cudaError_t launch_dct_extend(int type, bool dbl, const Loop<2>& rows, int64_t n, int64_t x_stride, void* buf);
cudaError_t launch_dct_finish(int type, bool dbl, const Loop<2>& rows, int64_t n, int64_t y_stride, const void* buf);

}  // namespace spire::cuda
