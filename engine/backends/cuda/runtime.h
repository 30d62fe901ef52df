// Error handling shared by the CUDA backend's files: every runtime call is checked and a failure
// becomes a spire::DeviceError naming what was being done.
#pragma once
#include <cuda_runtime_api.h>

#include "engine/core/error.h"

namespace spire::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what) {
  cudaGetLastError();  // reset the last-error slot so later calls are not blamed for this one
  throw DeviceError(detail::cat("cuda: ", what, " failed: ", cudaGetErrorName(err), " (",
                                cudaGetErrorString(err), ")"));
}

#define SPIRE_CUDA_CHECK(call, what)                                  \
  do {                                                                \
    cudaError_t spire_cuda_err_ = (call);                             \
    if (spire_cuda_err_ != cudaSuccess) ::spire::cuda::throw_cuda_error(spire_cuda_err_, what); \
  } while (0)

// Makes device d current for a scope and restores the previous one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int d) {
    SPIRE_CUDA_CHECK(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != d) SPIRE_CUDA_CHECK(cudaSetDevice(d), "cudaSetDevice");
  }
  ~ScopedDevice() {
    int now = -1;
    if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace spire::cuda
