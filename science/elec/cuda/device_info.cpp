// GPU memory bandwidth and synchronisation for the benchmarks (device_info.h).
#include "science/elec/cuda/device_info.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "engine/backends/cuda/runtime.h"
#include "engine/core/error.h"

namespace spire::elec::cuda {

namespace {

void check_device(int device) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw ConfigError(detail::cat("cuda:", device, ": the CUDA runtime found no usable device (",
                                  cudaGetErrorString(err), ")"));
  }
  SPIRE_CHECK(device >= 0 && device < count, ConfigError, "cuda:", device, ": this machine has ", count,
              " CUDA device(s)");
}

// 2 x bytes / seconds of the best of `repeats` device-to-device copies of `bytes`.
double copy_bandwidth(size_t bytes, int repeats) {
  void* a = nullptr;
  void* b = nullptr;
  SPIRE_CUDA_CHECK(cudaMalloc(&a, bytes), "cudaMalloc (bandwidth probe)");
  const cudaError_t err = cudaMalloc(&b, bytes);
  if (err != cudaSuccess) {
    cudaFree(a);
    spire::cuda::throw_cuda_error(err, "cudaMalloc (bandwidth probe)");
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaMemset(a, 1, bytes);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);  // warm-up
  float best = 0;
  for (int r = 0; r < repeats; ++r) {
    cudaEventRecord(start);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (r == 0 || ms < best) best = ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  SPIRE_CUDA_CHECK(cudaGetLastError(), "bandwidth probe");
  return best > 0 ? 2.0 * double(bytes) / (1e-3 * double(best)) : 0.0;
}

}  // namespace

DeviceMemoryInfo device_memory_info(int device, bool measure) {
  check_device(device);
  spire::cuda::ScopedDevice scope(device);
  cudaDeviceProp prop{};
  SPIRE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  int clock_khz = 0, bus_bits = 0;
  SPIRE_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device),
                   "cudaDeviceGetAttribute (memory clock)");
  SPIRE_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device),
                   "cudaDeviceGetAttribute (bus width)");
  DeviceMemoryInfo info;
  info.name = prop.name;
  info.memory_clock_hz = 1e3 * double(clock_khz);
  info.bus_width_bits = bus_bits;
  info.total_bytes = prop.totalGlobalMem;
  info.peak_bandwidth = 2.0 * info.memory_clock_hz * double(bus_bits) / 8.0;
  if (measure) {
    size_t free_bytes = 0, total = 0;
    SPIRE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    const size_t bytes = std::min<size_t>(size_t(1) << 30, free_bytes / 4);
    info.measured_bandwidth = copy_bandwidth(bytes, 10);
  }
  return info;
}

void synchronize_device(int device) {
  check_device(device);
  spire::cuda::ScopedDevice scope(device);
  SPIRE_CUDA_CHECK(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

}  // namespace spire::elec::cuda
