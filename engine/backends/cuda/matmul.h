// Launchers of the matrix kernels' nvcc side that cuBLAS does not cover: products of integer and
// boolean matrices, and the strided copy the matrix kernels use to lay operands out for cuBLAS and
// cuSOLVER. Plain C++ signatures (see fill.h).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// out = in, elementwise over a Loop<2> (operand 0 the destination, 1 the source) of one dtype,
// any strides on either side: transposes, gathers of broadcast rows, scatters into views.
cudaError_t launch_layout_copy(const Loop<2>& loop);

// Batch axes of a product, size-1 axes dropped: batch r's matrices of A and B start at
// sum_d idx_d(r) * stride_{a,b}[d] elements (0 strides along broadcast axes).
struct MatmulBatch {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t stride_a[kMaxDims] = {};
  int64_t stride_b[kMaxDims] = {};
};

// C[r] = A[r] B[r] for integer and boolean element types (int32, int64: wrapping two's-complement
// sums, as the CPU's; bool: "any (a and b)", NumPy's boolean product). C is contiguous [nb, m, n];
// A's element (i, p) sits at a + i*sar + p*sac, B's (p, j) at b + p*sbr + j*sbc. k > 0.
struct IntMatmul {
  Elem elem = Elem::Int32;
  int64_t m = 0, n = 0, k = 0, nb = 0;
  const void* a = nullptr;
  int64_t sar = 0, sac = 0;
  const void* b = nullptr;
  int64_t sbr = 0, sbc = 0;
  void* c = nullptr;
  MatmulBatch batch;
};
cudaError_t launch_int_matmul(const IntMatmul& p);

}  // namespace spire::cuda
