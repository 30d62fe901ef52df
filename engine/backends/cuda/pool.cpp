// CUDA kernels of max_pool, avg_pool, avg_pool_backward and max_unpool (engine/ops/pool.cpp). The
// windows come from the same pool::windows the CPU uses, as three axes, and their per-axis tables
// (a few integers per output position) go to the device once and stay cached: a copy from pageable
// host memory may wait for the stream, which a training loop calling the same pooling every step
// should not pay each time.
#include <algorithm>
#include <list>
#include <map>
#include <mutex>
#include <tuple>

#include "engine/backends/cuda/pool.h"
#include "engine/backends/cuda/slicing_views.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/pool_internal.h"

namespace spire::cuda {
namespace {
using Ints = std::vector<int64_t>;

int64_t spatial_of(const Attrs& a) {
  return int64_t((a.has("output_size") ? a.get<Ints>("output_size") : a.get<Ints>("kernel")).size());
}
Shape trailing(const Shape& s, int64_t D) { return Shape(s.end() - D, s.end()); }

// The windows' tables on the device; `table` holds the memory the pointers in `w` point into.
struct DeviceWindows {
  PoolWindows w;
  Tensor table;
};

// Window tables on the device, by content, device and stream, least recently used evicted first.
// An entry is only used on the stream its copy was queued on, so stream order alone makes the
// copy visible to the kernels that read it; its memory returns to the allocator (in the order of
// the stream it was allocated on) when evicted.
class TableCache {
 public:
  static TableCache& get() {
    static TableCache* cache = new TableCache;  // never destroyed: no device frees after exit
    return *cache;
  }

  Tensor find_or_upload(const std::vector<int64_t>& host, Device device, const char* op) {
    Key key{device.index, reinterpret_cast<uintptr_t>(current_stream()), host};
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
    Tensor t = empty({int64_t(host.size())}, DType::Int64, device);
    // From pageable memory: the call returns once `host` has been read, so it may go out of scope.
    SPIRE_CUDA_CHECK(cudaMemcpyAsync(t.raw_data(), host.data(), host.size() * sizeof(int64_t),
                                     cudaMemcpyHostToDevice, current_stream()),
                     (std::string("copying the pooling windows of '") + op + "'").c_str());
    while (lru_.size() >= kCapacity) {
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
    lru_.emplace_front(key, t);
    index_[key] = lru_.begin();
    return t;
  }

 private:
  using Key = std::tuple<int, uintptr_t, std::vector<int64_t>>;
  static constexpr size_t kCapacity = 256;
  std::mutex mutex_;
  std::list<std::pair<Key, Tensor>> lru_;
  std::map<Key, std::list<std::pair<Key, Tensor>>::iterator> index_;
};

Tensor device_table(const std::vector<int64_t>& host, Device device, const char* op) {
  return TableCache::get().find_or_upload(host, device, op);
}

DeviceWindows upload(const pool::Windows& w3, bool inverse, Device device, const char* op) {
  // Offsets into one host buffer first (its reallocations would move pointers), pointers last.
  std::vector<int64_t> host;
  int64_t at[3][5] = {};
  for (int a = 0; a < 3; ++a) {
    const pool::AxisWindows& ax = w3.axes[size_t(a)];
    at[a][0] = int64_t(host.size());
    host.insert(host.end(), ax.first.begin(), ax.first.end());
    at[a][1] = int64_t(host.size());
    host.insert(host.end(), ax.count.begin(), ax.count.end());
    at[a][2] = int64_t(host.size());
    host.insert(host.end(), ax.divisor.begin(), ax.divisor.end());
    if (inverse) {
      // For each input position, the outputs whose window holds it, increasing (as the CPU's Inverse).
      std::vector<Ints> lists(size_t(ax.in));
      for (int64_t o = 0; o < ax.out; ++o)
        for (int64_t j = 0; j < ax.count[size_t(o)]; ++j) lists[size_t(ax.first[size_t(o)] + j * ax.step)].push_back(o);
      at[a][3] = int64_t(host.size());
      int64_t start = 0;
      host.push_back(0);
      for (auto& l : lists) host.push_back(start += int64_t(l.size()));
      at[a][4] = int64_t(host.size());
      for (auto& l : lists) host.insert(host.end(), l.begin(), l.end());
    }
  }
  host.push_back(0);  // never empty
  DeviceWindows d;
  d.table = device_table(host, device, op);
  const int64_t* base = static_cast<const int64_t*>(d.table.raw_data());
  for (int a = 0; a < 3; ++a) {
    const pool::AxisWindows& ax = w3.axes[size_t(a)];
    d.w.in[a] = ax.in;
    d.w.out[a] = ax.out;
    d.w.step[a] = ax.step;
    d.w.first[a] = base + at[a][0];
    d.w.count[a] = base + at[a][1];
    d.w.divisor[a] = base + at[a][2];
    if (inverse) {
      d.w.inv_start[a] = base + at[a][3];
      d.w.inv_outs[a] = base + at[a][4];
    }
  }
  d.w.divisor_override = w3.divisor_override;
  return d;
}

void check_dtype(const char* op, DType t, bool integers) {
  SPIRE_CHECK(is_floating(t) || (integers && (t == DType::Int32 || t == DType::Int64)), DTypeError, op,
              ": the CUDA kernel takes ", integers ? "int32, int64, float32 or float64" : "float32 or float64",
              ", got ", name(t));
}

void max_pool_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor &y = out[0], &idx = out[1];
  if (y.numel() == 0) return;
  check_dtype("max_pool", in[0].dtype(), true);
  DeviceGuard guard(y.device());
  Tensor x = contiguous_copy(in[0], "max_pool");
  pool::Windows w = pool::windows("max_pool", a, trailing(x.shape(), spatial_of(a))).as_3d();
  DeviceWindows d = upload(w, false, y.device(), "max_pool");
  int64_t planes = y.numel() / w.out_plane();
  check_launch(launch_max_pool(elem(x.dtype()), x.raw_data(), y.raw_data(), static_cast<int64_t*>(idx.raw_data()),
                               planes, d.w),
               "max_pool");
}
SPIRE_REGISTER_KERNEL("max_pool", DeviceKind::CUDA, max_pool_kernel);

void avg_pool_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  check_dtype("avg_pool", in[0].dtype(), false);
  DeviceGuard guard(y.device());
  Tensor x = contiguous_copy(in[0], "avg_pool");
  pool::Windows w = pool::windows("avg_pool", a, trailing(x.shape(), spatial_of(a))).as_3d();
  DeviceWindows d = upload(w, false, y.device(), "avg_pool");
  int64_t planes = y.numel() / w.out_plane();
  check_launch(launch_avg_pool(elem(x.dtype()), x.raw_data(), y.raw_data(), planes, d.w), "avg_pool");
}
SPIRE_REGISTER_KERNEL("avg_pool", DeviceKind::CUDA, avg_pool_kernel);

void avg_pool_backward_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  check_dtype("avg_pool_backward", in[0].dtype(), false);
  DeviceGuard guard(x.device());
  Tensor g = contiguous_copy(in[0], "avg_pool_backward");
  pool::Windows w = pool::windows("avg_pool_backward", a, a.get<Ints>("input_size")).as_3d();
  DeviceWindows d = upload(w, true, x.device(), "avg_pool_backward");
  int64_t planes = x.numel() / w.in_plane();
  check_launch(launch_avg_pool_backward(elem(x.dtype()), g.raw_data(), x.raw_data(), planes, d.w),
               "avg_pool_backward");
}
SPIRE_REGISTER_KERNEL("avg_pool_backward", DeviceKind::CUDA, avg_pool_backward_kernel);

// Infer has checked every index on the host, so the kernel never writes out of bounds.
void max_unpool_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  Tensor x = contiguous_copy(in[0], "max_unpool"), idx = contiguous_copy(in[1], "max_unpool");
  int64_t out_plane = numel_of(a.get<Ints>("output_size"));
  int64_t planes = y.numel() / out_plane, in_plane = x.numel() / planes;
  Tensor winner = empty(y.shape(), DType::Int64, y.device());
  const void* px = x.numel() > 0 ? x.raw_data() : y.raw_data();
  const int64_t* pi = x.numel() > 0 ? static_cast<const int64_t*>(idx.raw_data()) : nullptr;
  check_launch(launch_max_unpool(px, pi, y.raw_data(), static_cast<int64_t*>(winner.raw_data()), planes, in_plane,
                                 out_plane, y.itemsize()),
               "max_unpool");
}
SPIRE_REGISTER_KERNEL("max_unpool", DeviceKind::CUDA, max_unpool_kernel);

}  // namespace
}  // namespace spire::cuda
