// Launchers compiled by nvcc. Plain C++ signatures so the engine's headers never go through nvcc
// (faster builds, and no C++20 library features for the device compiler to trip on).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace spire::cuda {

// Writes the `itemsize`-byte pattern at `value` (host memory) to n consecutive elements at p
// (device memory, aligned to itemsize) on the current device's default stream.
cudaError_t launch_fill(void* p, int64_t n, const void* value, size_t itemsize);

}  // namespace spire::cuda
