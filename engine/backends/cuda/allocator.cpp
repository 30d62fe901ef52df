// Device memory straight from cudaMalloc/cudaFree. Allocation lands on the current device (the
// Allocator interface carries no device index; to_device sets it with a DeviceGuard). A caching,
// stream-ordered allocator replaces this later; the interface stays.
#include <algorithm>
#include <mutex>

#include "engine/backends/cuda/runtime.h"
#include "engine/core/allocator.h"

namespace spire::cuda {
namespace {

class CudaAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes) override {
    if (bytes == 0) bytes = 1;  // a distinct, freeable pointer even for empty tensors
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess) {
      int dev = -1;
      cudaGetDevice(&dev);
      size_t held = stats().allocated;
      throw_cuda_error(err, detail::cat("allocating ", bytes, " bytes on cuda:", dev, " (", held,
                                        " bytes already held by Spire)").c_str());
    }
    std::lock_guard lock(mu_);
    stats_.allocated += bytes;
    stats_.peak = std::max(stats_.peak, stats_.allocated);
    stats_.misses++;
    return p;
  }

  void deallocate(void* p, size_t bytes) override {
    if (bytes == 0) bytes = 1;
    // At process exit the runtime may be torn down before the last tensors; nothing to free then.
    cudaError_t err = cudaFree(p);
    if (err == cudaErrorCudartUnloading) cudaGetLastError();
    std::lock_guard lock(mu_);
    stats_.allocated -= bytes;
  }

  AllocatorStats stats() const override {
    std::lock_guard lock(mu_);
    return stats_;
  }

  void empty_cache() override {}

 private:
  mutable std::mutex mu_;
  AllocatorStats stats_;
};

// Registered when libspire_cuda is loaded. Never destroyed: tensors may outlive static objects.
const bool registered = [] {
  register_allocator(DeviceKind::CUDA, new CudaAllocator());
  return true;
}();

}  // namespace
}  // namespace spire::cuda
