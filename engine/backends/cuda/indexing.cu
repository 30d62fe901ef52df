// nonzero: the coordinates of x's nonzero elements in row-major order. The count (the output's
// size) was found by the op's infer, so no synchronisation here: flag every element, take an
// exclusive prefix sum of the flags (each nonzero's row in the output), and let every nonzero
// write its own row. Integer sums are exact, so the result does not depend on the scan's order.
#include <cub/device/device_scan.cuh>

#include "engine/backends/cuda/indexing.cuh"

namespace spire::cuda {
using namespace indexing;  // the helpers of indexing.cuh

namespace {

struct Coords {
  int dims = 0;
  int64_t sizes[kMaxDims] = {};
};

template <class T>
__global__ void flag_kernel(Loop<1> L, int64_t* flags) {
  const T* x = static_cast<const T*>(L.data[0]);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < L.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[1];
    offsets_at(L, i, off);
    flags[i] = x[off[0]] != T(0) ? 1 : 0;
  }
}

// `count` rows were allocated; the guard only matters if x changed since infer counted (it cannot
// within one op call, but an out-of-bounds write would be far worse than a short result).
__global__ void write_coords_kernel(int64_t n, int64_t count, Coords c, const int64_t* flags, const int64_t* rows,
                                    int64_t* y) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    if (!flags[i] || rows[i] >= count) continue;
    int64_t* out = y + rows[i] * c.dims;
    int64_t r = i;
    for (int d = c.dims - 1; d >= 0; --d) {
      out[d] = r % c.sizes[d];
      r /= c.sizes[d];
    }
  }
}

}  // namespace

cudaError_t launch_nonzero(const Loop<1>& L, int dims, const int64_t* sizes, int64_t count, int64_t* y,
                           Temporaries& temps) {
  int64_t n = L.numel;
  if (n <= 0 || count <= 0 || dims <= 0) return cudaSuccess;
  if (dims > kMaxDims) return cudaErrorInvalidValue;  // the C++ side refuses these first
  Coords c;
  c.dims = dims;
  for (int d = 0; d < dims; ++d) c.sizes[d] = sizes[d];
  cudaStream_t stream = current_stream();
  auto* flags = static_cast<int64_t*>(temps.get(size_t(n) * sizeof(int64_t)));
  auto* rows = static_cast<int64_t*>(temps.get(size_t(n) * sizeof(int64_t)));
  cudaError_t err = visit_elem(L.elem[0], [&]<class T>() {
    flag_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(L, flags);
    return cudaGetLastError();
  });
  if (err != cudaSuccess) return err;
  size_t bytes = 0;
  if ((err = cub::DeviceScan::ExclusiveSum(nullptr, bytes, flags, rows, n, stream)) != cudaSuccess) return err;
  void* work = temps.get(bytes);
  if ((err = cub::DeviceScan::ExclusiveSum(work, bytes, flags, rows, n, stream)) != cudaSuccess) return err;
  write_coords_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, count, c, flags, rows, y);
  return cudaGetLastError();
}

}  // namespace spire::cuda
