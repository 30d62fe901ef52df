// Device memory: CUDA's own stream-ordered pool (cudaMallocAsync / cudaFreeAsync on each device's
// default memory pool) with its release threshold at the maximum, so memory freed by tensors stays
// reserved by the pool and the next allocation of that size costs no driver call into the OS. A
// block is allocated on the current stream and freed on the same stream, so the pool may hand it
// out again to later work on that stream at once, and to other streams only once the free has
// happened in stream order (the pool's default reuse policy follows those dependencies).
//
// Statistics per device: `allocated` is what tensors hold (requested bytes), `reserved` what the
// pool holds from the device, `cached` the difference; an allocation is a miss when it made the
// pool's reservation grow. Out of memory: wait for the device, return the pool's unused memory to
// the driver and try once more; then a DeviceError that says what was asked and what is held.
//
// Devices without memory pools (cudaDevAttrMemoryPoolsSupported = 0: old drivers, some
// virtualised GPUs) fall back to cudaMalloc/cudaFree with nothing cached.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/backends/cuda/pinned.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/backends/cuda/stream.h"
#include "engine/core/allocator.h"

namespace spire::cuda {
namespace {

std::string format_bytes(size_t b) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  if (u == 0) return detail::cat(b, " bytes");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

// Non-throwing device switch for destructors' paths.
struct QuietDevice {
  int previous = -1, target;
  explicit QuietDevice(int d) : target(d) {
    if (cudaGetDevice(&previous) != cudaSuccess) {
      cudaGetLastError();
      previous = -1;
    }
    if (previous != d) cudaSetDevice(d);
  }
  ~QuietDevice() {
    if (previous >= 0 && previous != target) cudaSetDevice(previous);
  }
};

class CudaAllocator final : public Allocator {
 public:
  void* allocate(size_t bytes) override {
    if (bytes == 0) bytes = 1;  // a distinct, freeable pointer even for empty tensors
    int dev = 0;
    if (cudaError_t err = cudaGetDevice(&dev); err != cudaSuccess)
      throw_cuda_error(err, detail::cat("allocating ", format_bytes(bytes), " on a cuda device").c_str());
    SPIRE_CHECK(dev >= 0 && dev < kMaxDevices, DeviceError, "cuda: device index ", dev, " is outside the ",
                kMaxDevices, " devices Spire keeps state for");
    cudaStream_t stream = current_stream();
    std::lock_guard lock(mu_);
    DeviceState& d = device_locked(dev);
    size_t before = reserved_locked(d);
    void* p = nullptr;
    cudaError_t err = raw_alloc(d, &p, bytes, stream);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      // Frees queued on streams only return memory to the pool once the device reaches them, and
      // the pool's reserved-but-unused chunks may be the wrong shape for this request: wait, give
      // them back to the driver, and try once more.
      if (cudaDeviceSynchronize() != cudaSuccess) cudaGetLastError();
      if (d.pool) cudaMemPoolTrimTo(d.pool, 0);
      before = reserved_locked(d);
      err = raw_alloc(d, &p, bytes, stream);
    }
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw DeviceError(out_of_memory_message(dev, d, bytes));
    }
    if (err != cudaSuccess)
      throw_cuda_error(err, detail::cat("allocating ", format_bytes(bytes), " on cuda:", dev).c_str());
    live_[p] = Block{dev, stream, bytes};
    AllocatorStats& s = d.stats;
    s.allocated += bytes;
    s.peak = std::max(s.peak, s.allocated);
    if (!d.pool || reserved_locked(d) > before) s.misses++;
    else s.hits++;
    return p;
  }

  // Runs from Storage's destructor: never throws. At process exit the runtime may already be
  // unloaded; the memory goes with the process then.
  void deallocate(void* p, size_t) override {
    std::lock_guard lock(mu_);
    auto it = live_.find(p);
    if (it == live_.end()) return;  // not ours: nothing sensible to do
    Block b = it->second;
    live_.erase(it);
    DeviceState& d = devices_[size_t(b.device)];
    d.stats.allocated -= b.bytes;
    QuietDevice on(b.device);
    cudaError_t err = d.pool ? cudaFreeAsync(p, b.stream) : cudaFree(p);
    if (err != cudaSuccess) cudaGetLastError();
  }

  AllocatorStats stats() const override {
    AllocatorStats total;
    for (int i = 0; i < kMaxDevices; ++i) {
      AllocatorStats s = device_stats(i);  // zeros for a device never used
      total.allocated += s.allocated;
      total.cached += s.cached;
      total.reserved += s.reserved;
      total.peak += s.peak;
      total.hits += s.hits;
      total.misses += s.misses;
    }
    return total;
  }

  AllocatorStats device_stats(int index) const override {
    std::lock_guard lock(mu_);
    if (index < 0 || index >= kMaxDevices || !devices_[size_t(index)].ready) return {};
    const DeviceState& d = devices_[size_t(index)];
    AllocatorStats s = d.stats;
    s.reserved = d.pool ? reserved_locked(d) : s.allocated;
    s.cached = s.reserved > s.allocated ? s.reserved - s.allocated : 0;
    return s;
  }

  void reset_peak_stats(int index) override {
    std::lock_guard lock(mu_);
    if (index < 0 || index >= kMaxDevices || !devices_[size_t(index)].ready) return;
    DeviceState& d = devices_[size_t(index)];
    d.stats.peak = d.stats.allocated;
    if (d.pool) {
      uint64_t zero = 0;  // CUDA resets a high-water mark when it is set to 0
      cudaMemPoolSetAttribute(d.pool, cudaMemPoolAttrReservedMemHigh, &zero);
      cudaMemPoolSetAttribute(d.pool, cudaMemPoolAttrUsedMemHigh, &zero);
    }
  }

  // Waits for each device (so queued frees have happened) and returns the pools' unused memory,
  // and the cached page-locked host blocks, to the system.
  void empty_cache() override {
    {
      std::lock_guard lock(mu_);
      for (int i = 0; i < kMaxDevices; ++i) {
        DeviceState& d = devices_[size_t(i)];
        if (!d.ready || !d.pool) continue;
        ScopedDevice on(i);
        SPIRE_CUDA_CHECK(cudaDeviceSynchronize(), "empty_cache: cudaDeviceSynchronize");
        SPIRE_CUDA_CHECK(cudaMemPoolTrimTo(d.pool, 0), "empty_cache: cudaMemPoolTrimTo");
      }
    }
    pinned_empty_cache();
  }

 private:
  struct Block {
    int device;
    cudaStream_t stream;  // the stream it was allocated on, and so is freed on
    size_t bytes;
  };
  struct DeviceState {
    bool ready = false;
    cudaMemPool_t pool = nullptr;  // null: no memory pools on this device
    AllocatorStats stats;
  };

  // The device's state, set up on first use: its default pool keeps everything it is given back.
  DeviceState& device_locked(int dev) {
    DeviceState& d = devices_[size_t(dev)];
    if (d.ready) return d;
    int pools = 0;
    SPIRE_CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev),
                     "cudaDeviceGetAttribute(MemoryPoolsSupported)");
    if (pools) {
      SPIRE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&d.pool, dev), "cudaDeviceGetDefaultMemPool");
      uint64_t keep_all = std::numeric_limits<uint64_t>::max();
      SPIRE_CUDA_CHECK(cudaMemPoolSetAttribute(d.pool, cudaMemPoolAttrReleaseThreshold, &keep_all),
                       "setting the memory pool's release threshold");
    }
    d.ready = true;
    return d;
  }

  static cudaError_t raw_alloc(const DeviceState& d, void** p, size_t bytes, cudaStream_t s) {
    return d.pool ? cudaMallocFromPoolAsync(p, bytes, d.pool, s) : cudaMalloc(p, bytes);
  }

  static size_t reserved_locked(const DeviceState& d) {
    uint64_t v = 0;
    if (d.pool && cudaMemPoolGetAttribute(d.pool, cudaMemPoolAttrReservedMemCurrent, &v) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return size_t(v);
  }

  std::string out_of_memory_message(int dev, const DeviceState& d, size_t bytes) const {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
    size_t reserved = d.pool ? reserved_locked(d) : d.stats.allocated;
    size_t cached = reserved > d.stats.allocated ? reserved - d.stats.allocated : 0;
    return detail::cat("cuda: out of memory on cuda:", dev, ": tried to allocate ", format_bytes(bytes),
                       "; Spire holds ", format_bytes(d.stats.allocated), " in tensors and ",
                       format_bytes(cached), " cached (released and retried once); the device has ",
                       format_bytes(total_b), " in total, ", format_bytes(free_b),
                       " free (other processes and CUDA's own context take the rest)");
  }

  mutable std::mutex mu_;
  std::array<DeviceState, kMaxDevices> devices_{};
  std::unordered_map<void*, Block> live_;
};

// Registered when libspire_cuda is loaded. Never destroyed: tensors may outlive static objects.
const bool registered = [] {
  register_allocator(DeviceKind::CUDA, new CudaAllocator());
  return true;
}();

}  // namespace
}  // namespace spire::cuda
