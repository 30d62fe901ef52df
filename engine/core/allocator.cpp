#include "engine/core/allocator.h"

#include <array>
#include <bit>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/transfer.h"

namespace spire {
namespace {

class CachingHostAllocator final : public Allocator {
 public:
  // Blocks up to 2^kMaxClass bytes are cached; larger ones go straight to the system, where
  // mmap already makes them cheap and caching them would pin a lot of memory.
  static constexpr int kMaxClass = 28;  // 256 MiB
  static constexpr size_t kMaxCachedBytes = size_t(2) << 30;

  void* allocate(size_t bytes) override {
    if (bytes == 0) bytes = 1;
    int c = size_class(bytes);
    std::lock_guard lock(mu_);
    if (c <= kMaxClass && !free_[c].empty()) {
      void* p = free_[c].back();
      free_[c].pop_back();
      stats_.cached -= size_t(1) << c;
      stats_.hits++;
      note_alloc(size_t(1) << c);
      return p;
    }
    stats_.misses++;
    size_t real = c <= kMaxClass ? size_t(1) << c : round_up(bytes);
    void* p = std::aligned_alloc(64, real);
    if (!p) {
      release_locked();
      p = std::aligned_alloc(64, real);
    }
    if (!p) throw std::bad_alloc();
    note_alloc(real);
    return p;
  }

  void deallocate(void* p, size_t bytes) override {
    if (bytes == 0) bytes = 1;
    int c = size_class(bytes);
    std::lock_guard lock(mu_);
    size_t real = c <= kMaxClass ? size_t(1) << c : round_up(bytes);
    stats_.allocated -= real;
    if (c <= kMaxClass && stats_.cached + real <= kMaxCachedBytes) {
      free_[c].push_back(p);
      stats_.cached += real;
    } else {
      std::free(p);
    }
  }

  AllocatorStats stats() const override {
    std::lock_guard lock(mu_);
    AllocatorStats s = stats_;
    s.reserved = s.allocated + s.cached;
    return s;
  }

  void reset_peak_stats(int) override {
    std::lock_guard lock(mu_);
    stats_.peak = stats_.allocated;
  }

  void empty_cache() override {
    std::lock_guard lock(mu_);
    release_locked();
  }

 private:
  static int size_class(size_t bytes) { return std::max(6, int(std::bit_width(bytes - 1))); }
  static size_t round_up(size_t b) { return (b + 63) / 64 * 64; }
  void note_alloc(size_t real) {
    stats_.allocated += real;
    stats_.peak = std::max(stats_.peak, stats_.allocated);
  }
  void release_locked() {
    for (auto& bin : free_) {
      for (void* p : bin) std::free(p);
      bin.clear();
    }
    stats_.cached = 0;
  }

  mutable std::mutex mu_;
  std::array<std::vector<void*>, kMaxClass + 1> free_;
  AllocatorStats stats_;
};

std::array<Allocator*, kNumDeviceKinds>& allocators() {
  static std::array<Allocator*, kNumDeviceKinds> table{&cpu_allocator(), nullptr};
  return table;
}

}  // namespace

Allocator& cpu_allocator() {
  static auto* a = new CachingHostAllocator();  // never destroyed: tensors may outlive statics
  return *a;
}

void register_allocator(DeviceKind kind, Allocator* a) { allocators()[int(kind)] = a; }

Allocator& allocator_for(Device d) {
  Allocator* a = allocators()[int(d.kind)];
  SPIRE_CHECK(a, DeviceError, "no allocator for device ", d.str(),
              ": this build has no backend for it (the CUDA backend needs SPIRE_CUDA and a GPU)");
  return *a;
}

namespace {
// Backend allocators serve their current device (the interface carries no index): make `device`
// current for the call, so memory lands where the tensor says it lives whatever device the caller
// had selected (a no-op on the CPU).
void* allocate_on(Device device, size_t bytes) {
  if (device.kind == DeviceKind::CPU) return cpu_allocator().allocate(bytes);
  DeviceGuard guard(device);
  return allocator_for(device).allocate(bytes);
}
}  // namespace

Storage::Storage(size_t bytes, Device device)
    : data_(allocate_on(device, bytes)), bytes_(bytes), device_(device) {}

Storage::Storage(void* data, size_t bytes, Device device, std::shared_ptr<void> owner, bool pinned)
    : data_(data), bytes_(bytes), device_(device), owner_(std::move(owner)), pinned_(pinned) {}

Storage::~Storage() {
  if (!owner_ && data_) allocator_for(device_).deallocate(data_, bytes_);
}

}  // namespace spire
