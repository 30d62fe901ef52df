// The cuFFT plan cache. Plans are made with cufftMakePlanMany64 (basic or strided layout)
// with automatic work-area allocation off: each execution takes its work area from Spire's
// stream-ordered allocator, so memory is shared with tensors, shows in the memory statistics, and is
// returned in stream order after the transform. One mutex guards the cache and each execution's
// (set stream, set work area, execute) sequence, since a plan's stream and work area are state of
// the plan, shared by every thread that uses it.
#include "engine/backends/cuda/plan_cache.h"

#include <cufft.h>

#include <list>
#include <map>
#include <mutex>

#include "engine/backends/cuda/runtime.h"
#include "engine/backends/cuda/stream.h"
#include "engine/core/error.h"
#include "engine/core/tensor.h"

namespace spire::cuda {
namespace {

const char* cufft_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "an unknown cuFFT status";
  }
}

std::string describe(const FftPlanKey& k) {
  const char* type = k.type == FftType::C2C ? (k.double_precision ? "Z2Z" : "C2C")
                     : k.type == FftType::R2C ? (k.double_precision ? "D2Z" : "R2C")
                                              : (k.double_precision ? "Z2D" : "C2R");
  return detail::cat(type, " transform of lengths ", shape_str(k.lengths), " x ", k.batch,
                     k.dist ? detail::cat(" (stride ", k.stride, ", distance ", k.dist, ")") : std::string(),
                     " on cuda:", k.device);
}

void check_cufft(cufftResult r, const char* call, const FftPlanKey& k) {
  if (r != CUFFT_SUCCESS)
    throw DeviceError(detail::cat("cuda: cuFFT ", call, " failed for a ", describe(k), ": ", cufft_name(r), " (",
                                  int(r), ")"));
}

cufftType cufft_type(const FftPlanKey& k) {
  switch (k.type) {
    case FftType::C2C: return k.double_precision ? CUFFT_Z2Z : CUFFT_C2C;
    case FftType::R2C: return k.double_precision ? CUFFT_D2Z : CUFFT_R2C;
    case FftType::C2R: return k.double_precision ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

struct Plan {
  cufftHandle handle = 0;
  size_t work_bytes = 0;
};

void destroy(int device, const Plan& p) {
  // Destroying frees the plan's device memory, so its device must be current; failures here have
  // no one to report to (eviction, clearing), and the handle is gone either way.
  int previous = -1;
  cudaGetDevice(&previous);
  if (previous != device) cudaSetDevice(device);
  cufftDestroy(p.handle);
  if (previous >= 0 && previous != device) cudaSetDevice(previous);
}

class PlanCache {
 public:
  // Never destroyed: plans must not be destroyed after the CUDA runtime has shut down at exit.
  static PlanCache& get() {
    static PlanCache* cache = new PlanCache;
    return *cache;
  }

  void execute(const FftPlanKey& key, void* in, void* out, bool inverse) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Plan& p = find_or_make(key);
    check_cufft(cufftSetStream(p.handle, current_stream()), "cufftSetStream", key);
    Tensor work;
    if (p.work_bytes > 0) {
      work = empty({int64_t((p.work_bytes + 7) / 8)}, DType::Int64, Device{DeviceKind::CUDA, key.device});
      check_cufft(cufftSetWorkArea(p.handle, work.raw_data()), "cufftSetWorkArea", key);
    }
    switch (cufft_type(key)) {
      case CUFFT_C2C:
        check_cufft(cufftExecC2C(p.handle, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out),
                                 inverse ? CUFFT_INVERSE : CUFFT_FORWARD),
                    "cufftExecC2C", key);
        break;
      case CUFFT_Z2Z:
        check_cufft(cufftExecZ2Z(p.handle, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out),
                                 inverse ? CUFFT_INVERSE : CUFFT_FORWARD),
                    "cufftExecZ2Z", key);
        break;
      case CUFFT_R2C:
        check_cufft(cufftExecR2C(p.handle, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)),
                    "cufftExecR2C", key);
        break;
      case CUFFT_D2Z:
        check_cufft(cufftExecD2Z(p.handle, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out)),
                    "cufftExecD2Z", key);
        break;
      case CUFFT_C2R:
        check_cufft(cufftExecC2R(p.handle, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)),
                    "cufftExecC2R", key);
        break;
      case CUFFT_Z2D:
        check_cufft(cufftExecZ2D(p.handle, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out)),
                    "cufftExecZ2D", key);
        break;
      default: break;
    }
    // `work` is released here, after the transform was queued: the allocator frees in stream order.
  }

  size_t capacity() {
    std::lock_guard<std::mutex> lock(mutex_);
    return capacity_;
  }
  void set_capacity(size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = n;
    trim(capacity_);
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lru_.size();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    trim(0);
  }

 private:
  using Entry = std::pair<FftPlanKey, Plan>;

  const Plan& find_or_make(const FftPlanKey& key) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);  // most recently used first
      return it->second->second;
    }
    Plan p = make(key);
    if (capacity_ == 0) trim(0);
    else trim(capacity_ - 1);
    lru_.emplace_front(key, p);
    index_[key] = lru_.begin();
    // With a capacity of 0 the plan still serves this call; the next one evicts it.
    return lru_.front().second;
  }

  Plan make(const FftPlanKey& key) {
    SPIRE_CHECK(!key.lengths.empty() && key.lengths.size() <= 3, ValueError, "cuda fft: ", key.lengths.size(),
                " axes in one cuFFT plan (1 to 3)");
    SPIRE_CHECK(key.dist == 0 || key.type == FftType::C2C, ValueError, "cuda fft: strided layouts are for C2C only");
    std::vector<long long> n(key.lengths.begin(), key.lengths.end());
    Plan p;
    cufftResult r = try_make(key, n, p);
    if (r == CUFFT_ALLOC_FAILED && !lru_.empty()) {
      trim(0);  // the cached plans' device memory may be what is missing: drop them and retry once
      r = try_make(key, n, p);
    }
    check_cufft(r, "cufftMakePlanMany64", key);
    return p;
  }

  static cufftResult try_make(const FftPlanKey& key, std::vector<long long>& n, Plan& p) {
    cufftHandle h = 0;
    cufftResult r = cufftCreate(&h);
    if (r != CUFFT_SUCCESS) return r;
    r = cufftSetAutoAllocation(h, 0);
    size_t work = 0;
    // Null embeddings: the basic layout (unit stride, each block right after the previous one).
    // Embeddings equal to the lengths: the same row-major blocks, at the key's stride and distance.
    bool basic = key.dist == 0;
    long long* embed = basic ? nullptr : n.data();
    long long stride = basic ? 1 : key.stride, dist = basic ? 0 : key.dist;
    if (r == CUFFT_SUCCESS)
      r = cufftMakePlanMany64(h, int(n.size()), n.data(), embed, stride, dist, embed, stride, dist, cufft_type(key),
                              (long long)key.batch, &work);
    if (r != CUFFT_SUCCESS) {
      cufftDestroy(h);
      return r;
    }
    p.handle = h;
    p.work_bytes = work;
    return CUFFT_SUCCESS;
  }

  // Evicts least recently used plans until at most n remain.
  void trim(size_t n) {
    while (lru_.size() > n) {
      Entry& e = lru_.back();
      destroy(e.first.device, e.second);
      index_.erase(e.first);
      lru_.pop_back();
    }
  }

  std::mutex mutex_;
  size_t capacity_ = 1024;
  std::list<Entry> lru_;
  std::map<FftPlanKey, std::list<Entry>::iterator> index_;
};

}  // namespace

void fft_execute(const FftPlanKey& key, void* in, void* out, bool inverse) {
  PlanCache::get().execute(key, in, out, inverse);
}
size_t fft_plan_cache_capacity() { return PlanCache::get().capacity(); }
void set_fft_plan_cache_capacity(size_t plans) { PlanCache::get().set_capacity(plans); }
size_t fft_plan_cache_size() { return PlanCache::get().size(); }
void clear_fft_plan_cache() { PlanCache::get().clear(); }

}  // namespace spire::cuda
