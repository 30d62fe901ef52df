// Constant padding in one pass: each output element decides from its own position whether it is
// border (the fill value) or interior (one strided read). By element width, as the copies are.
#include <cstring>

#include "engine/backends/cuda/joining.h"

namespace spire::cuda {
namespace {

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

template <class W>
__global__ void pad_kernel(PadGeometry g, const W* x, W* y, int64_t numel, W value) {
  int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < numel; i += step) {
    int64_t rest = i, off = 0;
    bool inside = true;
    for (int d = g.ndim - 1; d >= 0; --d) {
      int64_t c = rest % g.out[d] - g.lo[d];
      rest /= g.out[d];
      inside = inside && c >= 0 && c < g.in[d];
      off += c * g.stride[d];
    }
    y[i] = inside ? x[off] : value;
  }
}

template <class W>
cudaError_t launch(const PadGeometry& g, const void* x, void* y, int64_t numel, const void* value) {
  W v;
  std::memcpy(&v, value, sizeof(W));
  pad_kernel<W><<<blocks_for(numel), kThreads, 0, current_stream()>>>(g, static_cast<const W*>(x),
                                                                      static_cast<W*>(y), numel, v);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_pad(const PadGeometry& g, const void* x, void* y, int64_t numel, const void* value,
                       size_t itemsize) {
  if (numel <= 0) return cudaSuccess;
  switch (itemsize) {
    case 1: return launch<uint8_t>(g, x, y, numel, value);
    case 2: return launch<uint16_t>(g, x, y, numel, value);
    case 4: return launch<uint32_t>(g, x, y, numel, value);
    case 8: return launch<uint64_t>(g, x, y, numel, value);
    case 16: return launch<Bytes16>(g, x, y, numel, value);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace spire::cuda
