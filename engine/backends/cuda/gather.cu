// The reading side of indexing: index_select, gather and one_hot. One thread per output element,
// each written once, so any launch geometry gives the same result. Elements are moved as words of
// their size (indexing.cuh), so these kernels serve every dtype.
#include "engine/backends/cuda/indexing.cuh"

namespace spire::cuda {
using namespace indexing;  // the helpers of indexing.cuh

namespace {

template <class W, class I>
__global__ void index_select_kernel(Loop<3> L, IndexComponents c) {
  W* y = static_cast<W*>(L.data[0]);
  const W* x = static_cast<const W*>(L.data[1]);
  const I* index = static_cast<const I*>(L.data[2]);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < L.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_at(L, i, off);
    int64_t src = off[1];
    for (int k = 0; k < c.k; ++k) src += wrap_index(index[off[2] + k * c.step], c.size[k]) * c.stride[k];
    y[off[0]] = x[src];
  }
}

template <class W, class I>
__global__ void gather_kernel(Loop<3> L, int64_t n, int64_t xs) {
  W* y = static_cast<W*>(L.data[0]);
  const W* x = static_cast<const W*>(L.data[1]);
  const I* index = static_cast<const I*>(L.data[2]);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < L.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_at(L, i, off);
    y[off[0]] = x[off[1] + wrap_index(index[off[2]], n) * xs];
  }
}

// Every element written (ones and zeros alike): no separate zero fill, one pass over y.
template <class T, class I>
__global__ void one_hot_kernel(Loop<2> L, int64_t classes) {
  T* y = static_cast<T*>(L.data[0]);
  const I* index = static_cast<const I*>(L.data[1]);
  const T one = convert<T>(1), zero = convert<T>(0);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < L.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets_at(L, i, off);
    y[off[0]] = wrap_index(index[off[1]], classes) == i % classes ? one : zero;
  }
}

}  // namespace

cudaError_t launch_index_select(const Loop<3>& L, Elem index, size_t itemsize, const IndexComponents& c) {
  if (L.numel <= 0) return cudaSuccess;
  return visit_word(itemsize, [&]<class W>() {
    return visit_index(index, [&]<class I>() {
      index_select_kernel<W, I><<<blocks_for(L.numel), kThreads, 0, current_stream()>>>(L, c);
      return cudaGetLastError();
    });
  });
}

cudaError_t launch_gather(const Loop<3>& L, Elem index, size_t itemsize, int64_t n, int64_t xs) {
  if (L.numel <= 0) return cudaSuccess;
  return visit_word(itemsize, [&]<class W>() {
    return visit_index(index, [&]<class I>() {
      gather_kernel<W, I><<<blocks_for(L.numel), kThreads, 0, current_stream()>>>(L, n, xs);
      return cudaGetLastError();
    });
  });
}

cudaError_t launch_one_hot(const Loop<2>& L, Elem index, int64_t classes) {
  if (L.numel <= 0 || classes <= 0) return cudaSuccess;
  return visit_elem(L.elem[0], [&]<class T>() {
    return visit_index(index, [&]<class I>() {
      one_hot_kernel<T, I><<<blocks_for(L.numel), kThreads, 0, current_stream()>>>(L, classes);
      return cudaGetLastError();
    });
  });
}

}  // namespace spire::cuda
