// What the CUDA backend tells the engine when libspire_cuda is loaded: how many devices there are
// (zero, with the reason, when there is no GPU or no driver), how to select and synchronise one,
// and how to copy between host and device memory.
#include <mutex>
#include <string>

#include "engine/backends/cuda/runtime.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

// The device count cannot change during a process; asking once also keeps the "no driver" error
// from resurfacing on every query.
struct Probe {
  int count = 0;
  std::string reason;
};

const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    cudaError_t err = cudaGetDeviceCount(&r.count);
    if (err != cudaSuccess) {
      cudaGetLastError();
      r.count = 0;
      // The runtime's own strings mislead in the common cases ("insufficient" for "absent").
      std::string name = cudaGetErrorName(err);
      if (err == cudaErrorInsufficientDriver)
        r.reason = "no NVIDIA driver, or one older than this CUDA runtime (" + name + ")";
      else if (err == cudaErrorNoDevice)
        r.reason = "no CUDA-capable GPU detected (" + name + ")";
      else
        r.reason = name + ": " + cudaGetErrorString(err);
    }
    return r;
  }();
  return p;
}

int current_device() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return d;
}

void set_device(int d) { SPIRE_CUDA_CHECK(cudaSetDevice(d), "cudaSetDevice"); }

std::string device_name(int d) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  return prop.name;
}

// Pageable host memory: cudaMemcpy returns once the host side may be reused; the device side is
// ordered before later work on the default stream, which is where Spire's kernels run for now.
void host_to_device(const void* src, Device, void* dst, Device to, size_t bytes) {
  if (!bytes) return;
  ScopedDevice on(to.index);
  SPIRE_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "copy cpu -> cuda");
}

void device_to_host(const void* src, Device from, void* dst, Device, size_t bytes) {
  if (!bytes) return;
  ScopedDevice on(from.index);
  SPIRE_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "copy cuda -> cpu");
}

void device_to_device(const void* src, Device from, void* dst, Device to, size_t bytes) {
  if (!bytes) return;
  if (from.index == to.index) {
    ScopedDevice on(to.index);
    SPIRE_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "copy cuda -> cuda");
  } else {
    SPIRE_CUDA_CHECK(cudaMemcpyPeer(dst, to.index, src, from.index, bytes), "copy between GPUs");
  }
}

const bool registered = [] {
  BackendHooks h;
  h.name = "cuda";
  h.device_count = [] { return probe().count; };
  h.unavailable_reason = [] { return probe().reason; };
  h.current_device = current_device;
  h.set_device = set_device;
  h.synchronize = [](int d) {
    ScopedDevice on(d);
    SPIRE_CUDA_CHECK(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  };
  h.device_name = device_name;
  register_backend(DeviceKind::CUDA, std::move(h));
  register_copy(DeviceKind::CPU, DeviceKind::CUDA, host_to_device);
  register_copy(DeviceKind::CUDA, DeviceKind::CPU, device_to_host);
  register_copy(DeviceKind::CUDA, DeviceKind::CUDA, device_to_device);
  return true;
}();

}  // namespace
}  // namespace spire::cuda
