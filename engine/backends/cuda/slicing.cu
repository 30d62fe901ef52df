// Element moves between strided views. They never look at values, so each runs on an unsigned type
// of the element's width: five instantiations serve all seven dtypes (a complex128 is 16 bytes).
#include "engine/backends/cuda/elementwise.cuh"
#include "engine/backends/cuda/slicing.h"

namespace spire::cuda {
namespace {

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

struct Same {
  template <class W>
  __device__ W operator()(W v) const { return v; }
};

// Calls f.template operator()<W>() with the unsigned type of `itemsize` bytes.
template <class F>
cudaError_t by_width(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    case 8: return f.template operator()<uint64_t>();
    case 16: return f.template operator()<Bytes16>();
    default: return cudaErrorInvalidValue;
  }
}

template <class W, bool Lower>
__global__ void triangle_kernel(Loop<1> batch, W* y, int64_t total, int64_t n, int64_t m, int64_t sn,
                                int64_t sm, int64_t k) {
  const W* x = static_cast<const W*>(batch.data[0]);
  int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += step) {
    int64_t j = t % m, rest = t / m;
    int64_t i = rest % n, b = rest / n;
    bool keep = Lower ? j <= i + k : j >= i + k;
    if (keep) {
      int64_t off[1];
      loop_offsets(batch, b, off);
      y[t] = x[off[0] + i * sn + j * sm];
    } else {
      y[t] = W{};  // all-zero bits: 0, 0.0, false and 0+0i alike
    }
  }
}

}  // namespace

cudaError_t launch_copy(const Loop<2>& L, size_t itemsize) {
  return by_width(itemsize, [&]<class W>() { return launch_map<W, W>(L, Same{}); });
}

cudaError_t launch_triangle(bool lower, const Loop<1>& batch, void* y, int64_t n, int64_t m, int64_t sn,
                            int64_t sm, int64_t k, size_t itemsize) {
  int64_t total = batch.numel * n * m;
  if (total <= 0) return cudaSuccess;
  return by_width(itemsize, [&]<class W>() {
    if (lower)
      triangle_kernel<W, true><<<blocks_for(total), kThreads, 0, current_stream()>>>(batch, static_cast<W*>(y), total,
                                                                                     n, m, sn, sm, k);
    else
      triangle_kernel<W, false><<<blocks_for(total), kThreads, 0, current_stream()>>>(batch, static_cast<W*>(y),
                                                                                      total, n, m, sn, sm, k);
    return cudaGetLastError();
  });
}

}  // namespace spire::cuda
