// Library handles (cuBLAS, cuSOLVER) per device and thread. Creating a handle costs milliseconds and
// destroying one at process exit races CUDA's own teardown, so a thread's handles go back to a
// pool when it ends, for the next thread to reuse, and are never destroyed (PyTorch does the same).
#pragma once
#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "engine/backends/cuda/runtime.h"

namespace spire::cuda {

// Handle is the library's handle type; Create() makes and configures a new one on the current
// device. One HandlePool per library, as a function-local static.
template <class Handle, Handle (*Create)()>
class HandlePool {
 public:
  // The current device's handle for the calling thread.
  static Handle get() {
    int device = 0;
    SPIRE_CUDA_CHECK(cudaGetDevice(&device), "cudaGetDevice");
    std::vector<Handle>& mine = thread_handles().handle;
    if (mine.size() <= size_t(device)) mine.resize(size_t(device) + 1, nullptr);
    if (!mine[size_t(device)]) mine[size_t(device)] = acquire(device);
    return mine[size_t(device)];
  }

 private:
  struct Free {
    std::mutex mutex;
    std::vector<std::vector<Handle>> by_device;
  };
  // Never freed: threads ending during static destruction still return their handles here.
  static Free& free_handles() {
    static Free* f = new Free;
    return *f;
  }

  struct ThreadHandles {
    std::vector<Handle> handle;  // by device; null until first use
    ~ThreadHandles() {
      // A handle's workspace may still be in use by work this thread queued; the next owner may use
      // another stream, so that work must be done first. Threads end rarely; errors (the runtime
      // already unloaded at process exit) are ignored.
      int previous = -1;
      cudaGetDevice(&previous);
      for (size_t d = 0; d < handle.size(); ++d)
        if (handle[d] && cudaSetDevice(int(d)) == cudaSuccess) cudaDeviceSynchronize();
      if (previous >= 0) cudaSetDevice(previous);
      cudaGetLastError();
      Free& f = free_handles();
      std::lock_guard<std::mutex> lock(f.mutex);
      for (size_t d = 0; d < handle.size(); ++d) {
        if (!handle[d]) continue;
        if (f.by_device.size() <= d) f.by_device.resize(d + 1);
        f.by_device[d].push_back(handle[d]);
      }
    }
  };
  static ThreadHandles& thread_handles() {
    thread_local ThreadHandles t;
    return t;
  }

  static Handle acquire(int device) {
    Free& f = free_handles();
    {
      std::lock_guard<std::mutex> lock(f.mutex);
      if (size_t(device) < f.by_device.size() && !f.by_device[size_t(device)].empty()) {
        Handle h = f.by_device[size_t(device)].back();
        f.by_device[size_t(device)].pop_back();
        return h;
      }
    }
    return Create();
  }
};

}  // namespace spire::cuda
