#include "engine/backends/cuda/pinned.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "engine/backends/cuda/event.h"
#include "engine/backends/cuda/runtime.h"

namespace spire::cuda {
namespace {

struct Use {
  int device;
  cudaEvent_t event;
};

struct Block {
  size_t size = 0;         // the size class's bytes
  bool live = false;       // handed out
  std::vector<Use> uses;   // async copies that may still touch it
};

class PinnedPool {
 public:
  void* allocate(size_t bytes) {
    if (bytes == 0) bytes = 1;
    size_t size = size_t(1) << std::max(9, int(std::bit_width(bytes - 1)));  // >= 512 bytes
    std::lock_guard lock(mu_);
    reclaim_locked();
    auto& bin = free_[size];
    if (!bin.empty()) {
      void* p = bin.back();
      bin.pop_back();
      blocks_[key(p)].live = true;
      cached_ -= size;
      allocated_ += size;
      return p;
    }
    void* p = nullptr;
    // Portable: page-locked for every device's context, so any GPU can copy from it.
    cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release_cached_locked();
      err = cudaHostAlloc(&p, size, cudaHostAllocPortable);
    }
    if (err != cudaSuccess)
      throw_cuda_error(err, detail::cat("page-locking ", size, " bytes of host memory (pin_memory)").c_str());
    blocks_[key(p)] = Block{size, true, {}};
    allocated_ += size;
    return p;
  }

  void deallocate(void* p) noexcept {
    std::lock_guard lock(mu_);
    auto it = blocks_.find(key(p));
    if (it == blocks_.end() || !it->second.live) return;
    it->second.live = false;
    allocated_ -= it->second.size;
    cached_ += it->second.size;
    if (it->second.uses.empty()) free_[it->second.size].push_back(p);
    else pending_.push_back(p);  // reused only once its copies are done (reclaim_locked)
    reclaim_locked();
  }

  bool contains(const void* p) const {
    std::lock_guard lock(mu_);
    return find_locked(p) != nullptr;
  }

  void record_use(const void* p, int device, cudaStream_t s) {
    std::lock_guard lock(mu_);
    Block* b = find_locked(p);
    if (!b) return;
    cudaEvent_t e = event_create(device, false);
    try {
      event_record(device, e, s);
    } catch (...) {
      event_destroy(device, e);
      throw;
    }
    b->uses.push_back({device, e});
  }

  void empty_cache() {
    std::lock_guard lock(mu_);
    reclaim_locked();
    release_cached_locked();
  }

  PinnedStats stats() const {
    std::lock_guard lock(mu_);
    return {allocated_, cached_};
  }

 private:
  static uintptr_t key(const void* p) { return reinterpret_cast<uintptr_t>(p); }

  // The live block whose bytes contain p (a tensor may view the middle of its storage).
  Block* find_locked(const void* p) const {
    auto it = blocks_.upper_bound(key(p));
    if (it == blocks_.begin()) return nullptr;
    --it;
    Block& b = const_cast<Block&>(it->second);
    return b.live && key(p) < it->first + b.size ? &b : nullptr;
  }

  // Drops finished uses; moves pending blocks whose uses are all finished to the cache.
  void reclaim_locked() noexcept {
    for (size_t i = 0; i < pending_.size();) {
      Block& b = blocks_[key(pending_[i])];
      std::erase_if(b.uses, [](const Use& u) {
        int previous = -1;
        cudaGetDevice(&previous);
        if (previous != u.device) cudaSetDevice(u.device);
        cudaError_t err = cudaEventQuery(u.event);
        if (previous >= 0 && previous != u.device) cudaSetDevice(previous);
        if (err == cudaErrorNotReady) {
          cudaGetLastError();
          return false;
        }
        // Done, or failed (a sticky device error): either way nothing will touch the block again.
        if (err != cudaSuccess) cudaGetLastError();
        event_destroy(u.device, u.event);
        return true;
      });
      if (b.uses.empty()) {
        free_[b.size].push_back(pending_[i]);
        pending_[i] = pending_.back();
        pending_.pop_back();
      } else {
        ++i;
      }
    }
  }

  // Frees every cached block (pending ones stay until their copies are done).
  void release_cached_locked() noexcept {
    for (auto& [size, bin] : free_) {
      for (void* p : bin) {
        if (cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
        blocks_.erase(key(p));
        cached_ -= size;
      }
      bin.clear();
    }
  }

  mutable std::mutex mu_;
  std::map<uintptr_t, Block> blocks_;          // every block from cudaHostAlloc, by address
  std::map<size_t, std::vector<void*>> free_;  // cached blocks ready for reuse, by size
  std::vector<void*> pending_;                 // freed blocks with copies possibly in flight
  size_t allocated_ = 0, cached_ = 0;
};

PinnedPool& pool() {
  static auto* p = new PinnedPool();  // never destroyed: pinned tensors may outlive statics
  return *p;
}

}  // namespace

void* pinned_alloc(size_t bytes) { return pool().allocate(bytes); }
void pinned_free(void* p) noexcept { pool().deallocate(p); }
bool is_pinned_ptr(const void* p) { return pool().contains(p); }
void record_pinned_use(const void* p, int device, cudaStream_t s) { pool().record_use(p, device, s); }
void pinned_empty_cache() { pool().empty_cache(); }
PinnedStats pinned_stats() { return pool().stats(); }

}  // namespace spire::cuda
