// cuBLAS for the backend's matrix kernels: one handle per device and thread (cuBLAS handles are not
// meant to be shared between threads), bound to current_stream() on every use, and row-major GEMM
// entry points that hide cuBLAS's column-major convention.
//
// Determinism: cuBLAS gives the same bits on every run for the same shapes, device architecture
// and SM count as long as one handle's work stays on one stream (the workspace is then reused in
// order) and atomics are off (the default, which the handles set explicitly). Spire queues all of
// an op's work on current_stream(), so CUBLAS_WORKSPACE_CONFIG is not needed.
#pragma once
#include <cublas_v2.h>

#include <cstdint>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::cuda {

// The current device's handle for this thread, bound to current_stream().
cublasHandle_t blas_handle();

// Throws DeviceError naming `what` unless s is CUBLAS_STATUS_SUCCESS.
void check_cublas(cublasStatus_t s, const char* what);

// cuBLAS's data type for an inexact dtype (float32, float64, complex64, complex128).
cudaDataType blas_type(DType t);

// Row-major batched GEMM on current_stream(), for the four inexact dtypes:
//   C[i] = op(A[i]) op(B[i]) (+ C[i] when `accumulate`),  i < batch,
// where X[i] starts `stride_x * i` elements after x (0: one matrix shared by the batch), op(A) is
// m x k, op(B) is k x n and C is m x n with row stride ldc. A is stored row-major with row stride
// lda, or, when `ta`, A's transpose is (so op(A) = stored^T); likewise B. Transposes are plain,
// never conjugating. float32 products use TF32 only under set_float32_matmul_precision("high").
// `op` names the Spire op in errors.
struct GemmArgs {
  DType dtype;
  bool ta = false, tb = false;
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 0, stride_a = 0;
  const void* b = nullptr;
  int64_t ldb = 0, stride_b = 0;
  void* c = nullptr;
  int64_t ldc = 0, stride_c = 0;
  int64_t batch = 1;
  bool accumulate = false;
};
void gemm(const GemmArgs& g, const char* op);

// The same over arbitrary per-matrix addresses: a_ptrs, b_ptrs, c_ptrs are device arrays of
// `batch` pointers (g.a, g.b, g.c and the strides are ignored).
void gemm_pointers(const GemmArgs& g, const void* const* a_ptrs, const void* const* b_ptrs,
                   void* const* c_ptrs, const char* op);

// Factorisation steps for the linalg kernels, dispatched on an inexact dtype, column-major as cuBLAS
// takes them (square matrices have lda = n), on current_stream(); failures throw DeviceError
// naming `op`. The batched forms take device arrays of `batch` matrix addresses and suit small
// matrices (cuBLAS runs one thread block per matrix).
//   getrf_batched: LU with partial pivoting, 1-based pivots [batch, n], info[r] > 0 on a zero pivot.
//   getrs_batched: B[r] = A[r]^-1 B[r] (n x nrhs) from getrf_batched's factors.
//   trsm, trsm_batched: B = B op(A)^-1 (from the right, non-unit diagonal) for B m x n (ldb) and
//     the triangle `uplo` of the n x n matrix A (lda).
void getrf_batched(DType t, int64_t n, void* const* a, int* pivots, int* info, int64_t batch, const char* op);
void getrs_batched(DType t, int64_t n, int64_t nrhs, void* const* a, const int* pivots, void* const* b,
                   int64_t batch, const char* op);
void trsm(DType t, cublasFillMode_t uplo, cublasOperation_t trans, int64_t m, int64_t n, const void* a,
          int64_t lda, void* b, int64_t ldb, const char* op);
void trsm_batched(DType t, cublasFillMode_t uplo, cublasOperation_t trans, int64_t m, int64_t n,
                  const void* const* a, int64_t lda, void* const* b, int64_t ldb, int64_t batch, const char* op);

// Layouts for the libraries, on current_stream(): `dense(t)` is t when contiguous, else a
// contiguous copy on t's device; copy_layout writes src into dst (same shape and dtype, any strides
// on either side: how the kernels turn row-major operands into column-major ones and back).
Tensor dense(const Tensor& t, const char* op);
void copy_layout(const Tensor& src, const Tensor& dst, const char* op);

// A device array (int64 tensor) holding `addresses`, for the batched library calls that take one
// pointer per matrix; copied on current_stream().
Tensor address_table(const std::vector<uintptr_t>& addresses, Device device, const char* op);

}  // namespace spire::cuda
