// Launchers of the factorisation kernels' nvcc side: the small steps around cuSOLVER and cuBLAS
// (identity right-hand sides, the Hermitian part, reading results back out, the checks that the
// CPU kernels make). Matrices are `nb` consecutive n x n blocks unless said otherwise.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// out[r] = I (n x n) for every r; with n = 1, a tensor of ones.
cudaError_t launch_identity(Elem e, void* out, int64_t nb, int64_t n);

// w[r] (column-major) = (a[r] + a[r]^H) / 2, a[r] contiguous row-major: the Hermitian part the
// cholesky op factors, computed as the CPU does ((a + a^H) * 0.5).
cudaError_t launch_hermitian_part(Elem e, const void* a, void* w, int64_t nb, int64_t n);

// out[r] (row-major) = the lower triangle of the column-major factor w[r], zeros above.
cudaError_t launch_lower_factor(Elem e, const void* w, void* out, int64_t nb, int64_t n);

// info[r] stays as potrf left it when nonzero; otherwise becomes 1 when a diagonal entry of the
// factor w[r] is not a finite positive real (NaN input passes potrf, the CPU rejects it).
cudaError_t launch_cholesky_check(Elem e, const void* w, int* info, int64_t nb, int64_t n);

// out[r] = det of the matrix whose LU factorisation (column-major, getrf's 1-based pivots ipiv[r],
// int64 from cuSOLVER or int32 from cuBLAS's batched getrf as `pivots64` says) is lu[r]: the
// product of U's diagonal in order, negated once per row interchange.
cudaError_t launch_det_from_lu(Elem e, const void* lu, const void* ipiv, bool pivots64, void* out, int64_t nb,
                               int64_t n);

// Batch axes of a strided operand (size-1 axes dropped): matrix r starts at sum_d idx_d(r) *
// strides[d] elements.
struct BatchLayout {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
};
// flag[r] = 1 if matrix r of a (element (i, j) at a + offset(r) + i*sr + j*sc) has an exact zero on
// its diagonal, else 0.
cudaError_t launch_zero_diagonal(Elem e, const void* a, BatchLayout layout, int64_t sr, int64_t sc, int* flag,
                                 int64_t nb, int64_t n);

}  // namespace spire::cuda
