// Host memory. A caching allocator keeps freed blocks in power-of-two size classes so hot loops
// (an optimizer step, an MD step) reuse memory instead of paging through malloc and the kernel.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "engine/core/device.h"

namespace spire {

struct AllocatorStats {
  size_t allocated = 0;   // bytes handed out and not yet returned
  size_t cached = 0;      // bytes held in the cache for reuse
  size_t reserved = 0;    // bytes taken from the system: allocated + cached (+ rounding)
  size_t peak = 0;        // highest `allocated` since start or the last reset_peak_stats
  size_t hits = 0, misses = 0;  // allocations served from the cache / that had to grow it
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* p, size_t bytes) = 0;
  virtual AllocatorStats stats() const = 0;
  virtual void empty_cache() = 0;
  // Per device, for allocators that serve several (CUDA); the default is the allocator's total.
  virtual AllocatorStats device_stats(int /*index*/) const { return stats(); }
  virtual void reset_peak_stats(int /*index*/) {}
};

// The caching allocator for CPU memory; 64-byte aligned for AVX-512 loads.
Allocator& cpu_allocator();

// Backends other than CPU register their allocator here (the CUDA backend does so at load time).
void register_allocator(DeviceKind kind, Allocator* a);
Allocator& allocator_for(Device d);

// A block of memory, shared by every tensor that views it. Storage either owns its bytes
// (returned to the allocator on destruction) or borrows them from someone else (a NumPy array,
// a DLPack capsule), keeping that owner alive through `owner`.
class Storage {
 public:
  Storage(size_t bytes, Device device);
  // `pinned`: host memory page-locked by a backend (pin_memory), so copies from it can be async.
  Storage(void* data, size_t bytes, Device device, std::shared_ptr<void> owner, bool pinned = false);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return bytes_; }
  Device device() const { return device_; }
  bool pinned() const { return pinned_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  Device device_;
  std::shared_ptr<void> owner_;  // set when borrowed
  bool pinned_ = false;
};

}  // namespace spire
