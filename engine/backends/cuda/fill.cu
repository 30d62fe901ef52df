#include <cstring>

#include "engine/backends/cuda/fill.h"

namespace spire::cuda {
namespace {

// complex128 is the widest element: 16 bytes.
struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

template <class W>
__global__ void fill_kernel(W* p, int64_t n, W v) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = v;
}

template <class W>
cudaError_t launch(void* p, int64_t n, const void* value) {
  W v;
  std::memcpy(&v, value, sizeof(W));
  constexpr int kThreads = 256;
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 8192) blocks = 8192;  // grid-stride loop covers the rest
  fill_kernel<W><<<unsigned(blocks), kThreads>>>(static_cast<W*>(p), n, v);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fill(void* p, int64_t n, const void* value, size_t itemsize) {
  if (n <= 0) return cudaSuccess;
  switch (itemsize) {
    case 1: return launch<uint8_t>(p, n, value);
    case 2: return launch<uint16_t>(p, n, value);
    case 4: return launch<uint32_t>(p, n, value);
    case 8: return launch<uint64_t>(p, n, value);
    case 16: return launch<Bytes16>(p, n, value);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace spire::cuda
