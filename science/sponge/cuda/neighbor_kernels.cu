// The neighbour list's kernels: thin wrappers around the bodies of neighbor_kernels.cuh.
#include <cfloat>

#include "science/sponge/cuda/launch.cuh"
#include "science/sponge/cuda/neighbor_kernels.cuh"

namespace spire::sponge::cuda {
namespace {

constexpr int kBoundsThreads = 512;

// One block: each thread merges a strided share of the particles, then the block merges the
// threads' bounds in shared memory (min and max are exact, so any tree gives the same result).
__global__ void bounds_kernel(const double* x, int64_t n, Bounds* out) {
  __shared__ Bounds share[kBoundsThreads];
  Bounds b;
  for (int k = 0; k < 3; ++k) b.lo[k] = DBL_MAX, b.hi[k] = -DBL_MAX;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) merge_bounds(b, x, i);
  share[threadIdx.x] = b;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) {
      Bounds& mine = share[threadIdx.x];
      const Bounds& other = share[threadIdx.x + half];
      for (int k = 0; k < 3; ++k) {
        mine.lo[k] = other.lo[k] < mine.lo[k] ? other.lo[k] : mine.lo[k];
        mine.hi[k] = other.hi[k] > mine.hi[k] ? other.hi[k] : mine.hi[k];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = share[0];
}

}  // namespace

void launch_neighbor_moved(const MovedArgs& a, int64_t n, cudaStream_t stream) {
  launch_each(n, stream, "neighbour list: displacement check", [=] __device__(int64_t i) { neighbor_moved(a, i); });
}

void launch_neighbor_bounds(const double* x, int64_t n, Bounds* out, cudaStream_t stream) {
  bounds_kernel<<<1, kBoundsThreads, 0, stream>>>(x, n, out);
  SPIRE_CUDA_CHECK(cudaGetLastError(), "neighbour list: bounding box");
}

void launch_neighbor_bin(const NeighborArgs& a, cudaStream_t stream) {
  launch_each(a.n, stream, "neighbour list: binning", [=] __device__(int64_t i) { neighbor_bin(a, i); });
}

void launch_neighbor_cell_start(const NeighborArgs& a, cudaStream_t stream) {
  launch_each(a.grid.cells() + 1, stream, "neighbour list: cell starts",
              [=] __device__(int64_t c) { neighbor_cell_start(a, c); });
}

void launch_neighbor_gather(const NeighborArgs& a, cudaStream_t stream) {
  launch_each(a.n, stream, "neighbour list: gather", [=] __device__(int64_t p) { neighbor_gather(a, p); });
}

void launch_neighbor_rows(const NeighborArgs& a, bool fill, cudaStream_t stream) {
  if (fill)
    launch_each(a.n, stream, "neighbour list: fill", [=] __device__(int64_t p) { neighbor_row<true>(a, p); });
  else
    launch_each(a.n, stream, "neighbour list: count", [=] __device__(int64_t p) { neighbor_row<false>(a, p); });
}

}  // namespace spire::sponge::cuda
