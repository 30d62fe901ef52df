// cuSOLVER handles per device and thread (handle_pool.h).
#include "engine/backends/cuda/solver_handle.h"

#include <algorithm>
#include <climits>
#include <mutex>
#include <vector>

#include "engine/backends/cuda/handle_pool.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/backends/cuda/stream.h"
#include "engine/core/error.h"

namespace spire::cuda {
namespace {

// A new handle on the current device, configured for Spire.
cusolverDnHandle_t create_handle() {
  cusolverDnHandle_t h = nullptr;
  check_cusolver(cusolverDnCreate(&h), "cusolverDnCreate");
  // The default already; explicit because Spire promises the same bits on every run.
  check_cusolver(cusolverDnSetDeterministicMode(h, CUSOLVER_DETERMINISTIC_RESULTS),
                 "cusolverDnSetDeterministicMode");
  return h;
}

const char* status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "unknown cuSOLVER status";
  }
}

}  // namespace

void check_cusolver(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw DeviceError(detail::cat("cuda: ", what, " failed: ", status_name(s), " (", int(s), ")"));
}

cusolverDnHandle_t solver_handle() {
  cusolverDnHandle_t h = HandlePool<cusolverDnHandle_t, create_handle>::get();
  // Bound on every use (see blas_handle.cpp).
  check_cusolver(cusolverDnSetStream(h, current_stream()), "cusolverDnSetStream");
  return h;
}

cusolverDnParams_t solver_params() {
  // Default options (no algorithm overrides); immutable after creation, so one object serves
  // every thread and device.
  static cusolverDnParams_t params = [] {
    cusolverDnParams_t p = nullptr;
    check_cusolver(cusolverDnCreateParams(&p), "cusolverDnCreateParams");
    return p;
  }();
  return params;
}

void potrf_batched(DType t, int64_t n, void* const* a, int* info, int64_t batch, const char* op) {
  SPIRE_CHECK(n <= INT_MAX, ValueError, op, ": matrix order ", n, " beyond cuSOLVER's batched potrf");
  // Pieces of at most this many matrices, as the batched cuBLAS calls (blas_handle.cpp).
  constexpr int64_t kMaxBatch = 63 * 1024;
  const cublasFillMode_t lower = CUBLAS_FILL_MODE_LOWER;
  cusolverDnHandle_t h = solver_handle();
  for (int64_t b0 = 0; b0 < batch; b0 += kMaxBatch) {
    const int nb = int(std::min(kMaxBatch, batch - b0)), m = int(n);
    void* const* p = a + b0;
    int* i = info + b0;
    cusolverStatus_t s;
    switch (t) {
      case DType::Float32: s = cusolverDnSpotrfBatched(h, lower, m, (float**)p, m, i, nb); break;
      case DType::Float64: s = cusolverDnDpotrfBatched(h, lower, m, (double**)p, m, i, nb); break;
      case DType::Complex64: s = cusolverDnCpotrfBatched(h, lower, m, (cuComplex**)p, m, i, nb); break;
      case DType::Complex128: s = cusolverDnZpotrfBatched(h, lower, m, (cuDoubleComplex**)p, m, i, nb); break;
      default: s = CUSOLVER_STATUS_NOT_SUPPORTED;
    }
    if (s != CUSOLVER_STATUS_SUCCESS) check_cusolver(s, detail::cat("cuSOLVER batched potrf for '", op, "'").c_str());
  }
}

}  // namespace spire::cuda
