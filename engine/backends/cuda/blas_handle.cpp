// cuBLAS handles per device and thread, and the row-major GEMM wrappers (see blas_handle.h).
#include "engine/backends/cuda/blas_handle.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <vector>

#include "engine/backends/cuda/handle_pool.h"
#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/matmul.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/backends/cuda/stream.h"
#include "engine/core/error.h"
#include "engine/core/matmul_precision.h"

namespace spire::cuda {
namespace {

// A new handle on the current device, configured for Spire.
cublasHandle_t create_handle() {
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  // Atomics off is cuBLAS's default; set explicitly because Spire's results must not depend on
  // the order in which atomics land.
  check_cublas(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_NOT_ALLOWED), "cublasSetAtomicsMode");
  // TF32 is chosen per call through the compute type (gemm below), never by the handle's mode.
  check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  return h;
}

const char* status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cuBLAS status";
  }
}

cublasComputeType_t compute_type(DType t) {
  switch (t) {
    case DType::Float32:
      return float32_matmul_precision() == MatmulPrecision::High ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                 : CUBLAS_COMPUTE_32F;
    case DType::Complex64: return CUBLAS_COMPUTE_32F;
    default: return CUBLAS_COMPUTE_64F;
  }
}

// alpha = 1 and beta = 0 or 1 in the scale type of `t` (the element type for these compute types).
struct Scale {
  alignas(16) unsigned char bytes[16] = {};
  Scale(DType t, double v) {
    if (t == DType::Float32 || t == DType::Complex64) {
      float f = float(v);  // complex64: real part; the imaginary part stays 0
      static_assert(sizeof(f) <= sizeof(bytes));
      std::memcpy(bytes, &f, sizeof f);
    } else {
      std::memcpy(bytes, &v, sizeof v);
    }
  }
};

// Batches go to cuBLAS in pieces of at most this many products: some cuBLAS kernels put the batch
// on a grid dimension limited to 65535 (PyTorch works around the same limit). Each product is
// independent, so the split changes no result.
constexpr int64_t kMaxBatch = 63 * 1024;

cublasOperation_t op_of(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw DeviceError(detail::cat("cuda: ", what, " failed: ", status_name(s)));
}

cublasHandle_t blas_handle() {
  cublasHandle_t h = HandlePool<cublasHandle_t, create_handle>::get();
  // Bound on every use, as PyTorch does: cheap, and a stream created at the address of a destroyed
  // one (whose work may still run) is never mistaken for it.
  check_cublas(cublasSetStream(h, current_stream()), "cublasSetStream");
  return h;
}

cudaDataType blas_type(DType t) {
  switch (t) {
    case DType::Float32: return CUDA_R_32F;
    case DType::Float64: return CUDA_R_64F;
    case DType::Complex64: return CUDA_C_32F;
    case DType::Complex128: return CUDA_C_64F;
    default: throw DTypeError(detail::cat("cuda: no cuBLAS type for ", name(t)));
  }
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, and a row-major matrix read
// column-major is its transpose: so cuBLAS gets B first, A second, n and m swapped, and each
// operand's own transpose flag.
void gemm(const GemmArgs& g, const char* op) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  SPIRE_CHECK(g.k > 0, ValueError, op, ": cuda gemm with an empty sum (the caller fills zeros)");
  cublasHandle_t h = blas_handle();
  cudaDataType t = blas_type(g.dtype);
  Scale alpha(g.dtype, 1.0), beta(g.dtype, g.accumulate ? 1.0 : 0.0);
  cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
  if (g.batch == 1)
    s = cublasGemmEx_64(h, op_of(g.tb), op_of(g.ta), g.n, g.m, g.k, alpha.bytes, g.b, t, g.ldb, g.a, t, g.lda,
                        beta.bytes, g.c, t, g.ldc, compute_type(g.dtype), CUBLAS_GEMM_DEFAULT);
  else
    for (int64_t b0 = 0; b0 < g.batch; b0 += kMaxBatch) {
      const int64_t nb = std::min(kMaxBatch, g.batch - b0), item = int64_t(itemsize(g.dtype));
      const char *a = static_cast<const char*>(g.a) + b0 * g.stride_a * item,
                 *b = static_cast<const char*>(g.b) + b0 * g.stride_b * item;
      char* c = static_cast<char*>(g.c) + b0 * g.stride_c * item;
      s = cublasGemmStridedBatchedEx_64(h, op_of(g.tb), op_of(g.ta), g.n, g.m, g.k, alpha.bytes, b, t, g.ldb,
                                        g.stride_b, a, t, g.lda, g.stride_a, beta.bytes, c, t, g.ldc, g.stride_c, nb,
                                        compute_type(g.dtype), CUBLAS_GEMM_DEFAULT);
      if (s != CUBLAS_STATUS_SUCCESS) break;
    }
  // The message is built only on failure: this is on every product's dispatch path.
  if (s != CUBLAS_STATUS_SUCCESS) check_cublas(s, detail::cat("cuBLAS GEMM for '", op, "'").c_str());
}

void gemm_pointers(const GemmArgs& g, const void* const* a_ptrs, const void* const* b_ptrs, void* const* c_ptrs,
                   const char* op) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  SPIRE_CHECK(g.k > 0, ValueError, op, ": cuda gemm with an empty sum (the caller fills zeros)");
  cublasHandle_t h = blas_handle();
  cudaDataType t = blas_type(g.dtype);
  Scale alpha(g.dtype, 1.0), beta(g.dtype, g.accumulate ? 1.0 : 0.0);
  cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
  for (int64_t b0 = 0; b0 < g.batch && s == CUBLAS_STATUS_SUCCESS; b0 += kMaxBatch)
    s = cublasGemmBatchedEx_64(h, op_of(g.tb), op_of(g.ta), g.n, g.m, g.k, alpha.bytes, b_ptrs + b0, t, g.ldb,
                               a_ptrs + b0, t, g.lda, beta.bytes, c_ptrs + b0, t, g.ldc,
                               std::min(kMaxBatch, g.batch - b0), compute_type(g.dtype), CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) check_cublas(s, detail::cat("cuBLAS batched GEMM for '", op, "'").c_str());
}

// --- factorisation steps -----------------------------------------------------------------------

namespace {

void check_step(cublasStatus_t s, const char* step, const char* op) {
  if (s != CUBLAS_STATUS_SUCCESS) check_cublas(s, detail::cat("cuBLAS ", step, " for '", op, "'").c_str());
}

// The four typed variants of one cuBLAS routine, chosen by dtype; f(tag) receives a null pointer of
// the element type (float, double, cuComplex, cuDoubleComplex) to pick the overload.
template <class F>
cublasStatus_t by_type(DType t, F&& f) {
  switch (t) {
    case DType::Float32: return f(static_cast<float*>(nullptr));
    case DType::Float64: return f(static_cast<double*>(nullptr));
    case DType::Complex64: return f(static_cast<cuComplex*>(nullptr));
    case DType::Complex128: return f(static_cast<cuDoubleComplex*>(nullptr));
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}

cublasStatus_t getrf_b(cublasHandle_t h, int n, float* const* a, int* p, int* info, int nb) {
  return cublasSgetrfBatched(h, n, a, n, p, info, nb);
}
cublasStatus_t getrf_b(cublasHandle_t h, int n, double* const* a, int* p, int* info, int nb) {
  return cublasDgetrfBatched(h, n, a, n, p, info, nb);
}
cublasStatus_t getrf_b(cublasHandle_t h, int n, cuComplex* const* a, int* p, int* info, int nb) {
  return cublasCgetrfBatched(h, n, a, n, p, info, nb);
}
cublasStatus_t getrf_b(cublasHandle_t h, int n, cuDoubleComplex* const* a, int* p, int* info, int nb) {
  return cublasZgetrfBatched(h, n, a, n, p, info, nb);
}

cublasStatus_t getrs_b(cublasHandle_t h, int n, int k, float* const* a, const int* p, float* const* b, int* info,
                       int nb) {
  return cublasSgetrsBatched(h, CUBLAS_OP_N, n, k, a, n, p, b, n, info, nb);
}
cublasStatus_t getrs_b(cublasHandle_t h, int n, int k, double* const* a, const int* p, double* const* b, int* info,
                       int nb) {
  return cublasDgetrsBatched(h, CUBLAS_OP_N, n, k, a, n, p, b, n, info, nb);
}
cublasStatus_t getrs_b(cublasHandle_t h, int n, int k, cuComplex* const* a, const int* p, cuComplex* const* b,
                       int* info, int nb) {
  return cublasCgetrsBatched(h, CUBLAS_OP_N, n, k, a, n, p, b, n, info, nb);
}
cublasStatus_t getrs_b(cublasHandle_t h, int n, int k, cuDoubleComplex* const* a, const int* p,
                       cuDoubleComplex* const* b, int* info, int nb) {
  return cublasZgetrsBatched(h, CUBLAS_OP_N, n, k, a, n, p, b, n, info, nb);
}

// Right side, non-unit diagonal, alpha = 1.
#define SPIRE_TRSM(T, fn)                                                                                   \
  cublasStatus_t trsm_1(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t o, int64_t m, int64_t n,    \
                        const T* a, int64_t lda, T* b, int64_t ldb) {                                       \
    const T one = unit<T>();                                                                                \
    return fn##trsm_64(h, CUBLAS_SIDE_RIGHT, u, o, CUBLAS_DIAG_NON_UNIT, m, n, &one, a, lda, b, ldb);       \
  }                                                                                                         \
  cublasStatus_t trsm_b(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t o, int64_t m, int64_t n,    \
                        const T* const* a, int64_t lda, T* const* b, int64_t ldb, int64_t nb) {             \
    const T one = unit<T>();                                                                                \
    return fn##trsmBatched_64(h, CUBLAS_SIDE_RIGHT, u, o, CUBLAS_DIAG_NON_UNIT, m, n, &one, a, lda, b, ldb, \
                              nb);                                                                          \
  }
template <class T> T unit() { return T(1); }
template <> cuComplex unit<cuComplex>() { return cuComplex{1.0f, 0.0f}; }
template <> cuDoubleComplex unit<cuDoubleComplex>() { return cuDoubleComplex{1.0, 0.0}; }
SPIRE_TRSM(float, cublasS)
SPIRE_TRSM(double, cublasD)
SPIRE_TRSM(cuComplex, cublasC)
SPIRE_TRSM(cuDoubleComplex, cublasZ)
#undef SPIRE_TRSM

}  // namespace

void getrf_batched(DType t, int64_t n, void* const* a, int* pivots, int* info, int64_t batch, const char* op) {
  SPIRE_CHECK(n <= INT_MAX, ValueError, op, ": matrix order ", n, " beyond cuBLAS's batched getrf");
  cublasHandle_t h = blas_handle();
  for (int64_t b0 = 0; b0 < batch; b0 += kMaxBatch) {
    const int nb = int(std::min(kMaxBatch, batch - b0));
    check_step(by_type(t, [&]<class T>(T*) {
                 return getrf_b(h, int(n), reinterpret_cast<T* const*>(a + b0), pivots + b0 * n, info + b0, nb);
               }),
               "batched getrf", op);
  }
}

void getrs_batched(DType t, int64_t n, int64_t nrhs, void* const* a, const int* pivots, void* const* b,
                   int64_t batch, const char* op) {
  SPIRE_CHECK(n <= INT_MAX && nrhs <= INT_MAX, ValueError, op, ": sizes beyond cuBLAS's batched getrs");
  cublasHandle_t h = blas_handle();
  for (int64_t b0 = 0; b0 < batch; b0 += kMaxBatch) {
    const int nb = int(std::min(kMaxBatch, batch - b0));
    int arg_info = 0;  // host: reports an invalid argument only
    check_step(by_type(t, [&]<class T>(T*) {
                 return getrs_b(h, int(n), int(nrhs), reinterpret_cast<T* const*>(a + b0), pivots + b0 * n,
                                reinterpret_cast<T* const*>(b + b0), &arg_info, nb);
               }),
               "batched getrs", op);
    SPIRE_CHECK(arg_info == 0, DeviceError, "cuda: cuBLAS batched getrs for '", op, "' rejected argument ",
                -arg_info);
  }
}

void trsm(DType t, cublasFillMode_t uplo, cublasOperation_t trans, int64_t m, int64_t n, const void* a,
          int64_t lda, void* b, int64_t ldb, const char* op) {
  cublasHandle_t h = blas_handle();
  check_step(by_type(t, [&]<class T>(T*) {
               return trsm_1(h, uplo, trans, m, n, static_cast<const T*>(a), lda, static_cast<T*>(b), ldb);
             }),
             "trsm", op);
}

void trsm_batched(DType t, cublasFillMode_t uplo, cublasOperation_t trans, int64_t m, int64_t n,
                  const void* const* a, int64_t lda, void* const* b, int64_t ldb, int64_t batch, const char* op) {
  cublasHandle_t h = blas_handle();
  for (int64_t b0 = 0; b0 < batch; b0 += kMaxBatch) {
    const int64_t nb = std::min(kMaxBatch, batch - b0);
    check_step(by_type(t, [&]<class T>(T*) {
                 return trsm_b(h, uplo, trans, m, n, reinterpret_cast<const T* const*>(a + b0), lda,
                               reinterpret_cast<T* const*>(b + b0), ldb, nb);
               }),
               "batched trsm", op);
  }
}

Tensor dense(const Tensor& t, const char* op) {
  if (t.is_contiguous()) return t;
  Tensor c = empty(t.shape(), t.dtype(), t.device());
  copy_layout(t, c, op);
  return c;
}

Tensor address_table(const std::vector<uintptr_t>& addresses, Device device, const char* op) {
  static_assert(sizeof(uintptr_t) == sizeof(int64_t));
  Tensor table = empty({int64_t(addresses.size())}, DType::Int64, device);
  if (addresses.empty()) return table;
  // From pageable memory, cudaMemcpyAsync stages the source before returning: the caller's vector
  // may go at once.
  cudaError_t err = cudaMemcpyAsync(table.raw_data(), addresses.data(), addresses.size() * sizeof(uintptr_t),
                                    cudaMemcpyHostToDevice, current_stream());
  if (err != cudaSuccess) throw_cuda_error(err, detail::cat(op, ": copying matrix addresses").c_str());
  return table;
}

void copy_layout(const Tensor& src, const Tensor& dst, const char* op) {
  SPIRE_CHECK(src.shape() == dst.shape() && src.dtype() == dst.dtype(), ValueError, op,
              ": cuda layout copy between ", shape_str(src.shape()), " and ", shape_str(dst.shape()));
  if (dst.numel() == 0) return;
  check_launch(launch_layout_copy(make_loop<2>(dst.shape(), {dst, src})), op);
}

}  // namespace spire::cuda
