// cuSOLVER for the factorisation kernels: one dense handle per device and thread, bound to
// current_stream() on every use, in deterministic mode (the same bits on every run).
#pragma once
#include <cusolverDn.h>

#include <cstdint>

#include "engine/core/dtype.h"

namespace spire::cuda {

// The current device's handle for this thread, bound to current_stream().
cusolverDnHandle_t solver_handle();
// Default options for the 64-bit (cusolverDnX*) API, created once per process.
cusolverDnParams_t solver_params();

// Throws DeviceError naming `what` unless s is CUSOLVER_STATUS_SUCCESS.
void check_cusolver(cusolverStatus_t s, const char* what);

// Cholesky factorisations (lower) of `batch` column-major n x n matrices at the device addresses
// in `a`, in place; info[r] > 0 when matrix r is not positive definite. For small matrices.
void potrf_batched(DType t, int64_t n, void* const* a, int* info, int64_t batch, const char* op);

}  // namespace spire::cuda
