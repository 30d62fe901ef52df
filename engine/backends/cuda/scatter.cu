// The adding side of indexing: index_add and scatter_add, deterministic without atomics.
//
// The CPU adds each destination's contributions to x one at a time in ascending source order
// (engine/backends/cpu/indexing.cpp). Both paths here do exactly that, so results match the CPU
// bit for bit and never depend on the launch geometry:
//  - column path: one thread per column (a position of the non-indexed axes) walks the sources in
//    order. No two columns share a destination, so nothing races. Used when columns are many
//    enough to fill the GPU or each column is short.
//  - sort path: the destinations are sorted stably (CUB radix sort keeps equal keys in source
//    order); the first thread of each run of equal destinations adds the run in order. Used when
//    few long columns would leave the GPU idle (a 1-d scatter-add, an embedding gradient).
#include "engine/backends/cuda/indexing.cuh"

namespace spire::cuda {
using namespace indexing;  // the helpers of indexing.cuh

namespace {

// Column path when there are at least this many columns (a GPU's worth of threads), or when each
// column has at most kShortColumn sources (sorting would cost more than the walk).
constexpr int64_t kManyColumns = 1 << 15;
constexpr int64_t kShortColumn = 32;

inline bool column_path(int64_t columns, int64_t per_column) {
  return columns >= kManyColumns || per_column <= kShortColumn;
}

template <class W>
__global__ void copy_kernel(Loop<2> L) {
  W* y = static_cast<W*>(L.data[0]);
  const W* x = static_cast<const W*>(L.data[1]);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < L.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets_at(L, i, off);
    y[off[0]] = x[off[1]];
  }
}

// --- index_add ---

// For every index position b: the destination offset within a column (from the k index
// components) and the source offset of b within src.
template <class I>
__global__ void index_add_rows_kernel(Loop<2> rows, IndexComponents c, uint64_t* dest, int64_t* src_off) {
  const I* index = static_cast<const I*>(rows.data[0]);
  for (int64_t b = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; b < rows.numel; b += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets_at(rows, b, off);
    int64_t d = 0;
    for (int k = 0; k < c.k; ++k) d += wrap_index(index[off[0] + k * c.step], c.size[k]) * c.stride[k];
    dest[b] = uint64_t(d);
    src_off[b] = off[1];
  }
}

template <class T>
__global__ void index_add_columns_kernel(Loop<2> cols, int64_t B, const uint64_t* dest, const int64_t* src_off) {
  T* y = static_cast<T*>(cols.data[0]);
  const T* src = static_cast<const T*>(cols.data[1]);
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols.numel; c += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[2];
    offsets_at(cols, c, off);
    for (int64_t b = 0; b < B; ++b) {
      T& d = y[off[0] + int64_t(dest[b])];
      d = T(d + src[off[1] + src_off[b]]);
    }
  }
}

// Thread (s, c) for s a sorted position and c a column (c fastest, so neighbouring threads touch
// neighbouring columns); only the first position of each run of equal destinations works.
template <class T>
__global__ void index_add_sorted_kernel(Loop<2> cols, int64_t B, const uint64_t* dest, const int64_t* order,
                                        const int64_t* src_off) {
  T* y = static_cast<T*>(cols.data[0]);
  const T* src = static_cast<const T*>(cols.data[1]);
  int64_t C = cols.numel, total = B * C;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t s = t / C, c = t % C;
    uint64_t d = dest[s];
    if (s > 0 && dest[s - 1] == d) continue;
    int64_t off[2];
    offsets_at(cols, c, off);
    T acc = y[off[0] + int64_t(d)];
    for (int64_t r = s; r < B && dest[r] == d; ++r) acc = T(acc + src[off[1] + src_off[order[r]]]);
    y[off[0] + int64_t(d)] = acc;
  }
}

// --- scatter_add ---

template <class T, class I>
__global__ void scatter_add_columns_kernel(Loop<3> cols, int64_t J, int64_t is, int64_t ss, int64_t n, int64_t ys) {
  T* y = static_cast<T*>(cols.data[0]);
  const I* index = static_cast<const I*>(cols.data[1]);
  const T* src = static_cast<const T*>(cols.data[2]);
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols.numel; c += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_at(cols, c, off);
    for (int64_t j = 0; j < J; ++j) {
      T& d = y[off[0] + wrap_index(index[off[1] + j * is], n) * ys];
      d = T(d + src[off[2] + j * ss]);
    }
  }
}

// Destination (an offset in y) of every source position e, row-major over the index's shape.
template <class I>
__global__ void scatter_add_keys_kernel(Loop<3> L, int64_t n, int64_t ys, uint64_t* keys) {
  const I* index = static_cast<const I*>(L.data[1]);
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < L.numel; e += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    offsets_at(L, e, off);
    keys[e] = uint64_t(off[0] + wrap_index(index[off[1]], n) * ys);
  }
}

// After the stable sort, positions with one destination form a run in ascending e, which for one
// destination (one column) is ascending order along the axis: the CPU's order.
template <class T>
__global__ void scatter_add_sorted_kernel(Loop<3> L, const uint64_t* keys, const int64_t* order) {
  T* y = static_cast<T*>(L.data[0]);
  const T* src = static_cast<const T*>(L.data[2]);
  int64_t M = L.numel;
  for (int64_t s = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; s < M; s += int64_t(gridDim.x) * blockDim.x) {
    uint64_t d = keys[s];
    if (s > 0 && keys[s - 1] == d) continue;
    T acc = y[d];
    for (int64_t r = s; r < M && keys[r] == d; ++r) {
      int64_t off[3];
      offsets_at(L, order[r], off);
      acc = T(acc + src[off[2]]);
    }
    y[d] = acc;
  }
}

}  // namespace

cudaError_t launch_copy_input(const Loop<2>& L, size_t itemsize) {
  if (L.numel <= 0) return cudaSuccess;
  return visit_word(itemsize, [&]<class W>() {
    copy_kernel<W><<<blocks_for(L.numel, 4), kThreads, 0, current_stream()>>>(L);
    return cudaGetLastError();
  });
}

cudaError_t launch_index_add(const Loop<2>& cols, const Loop<2>& rows, Elem index, Elem t, const IndexComponents& c,
                             int64_t y_numel, Temporaries& temps) {
  int64_t B = rows.numel, C = cols.numel;
  if (B <= 0 || C <= 0) return cudaSuccess;
  cudaStream_t stream = current_stream();
  auto* dest = static_cast<uint64_t*>(temps.get(size_t(B) * sizeof(uint64_t)));
  auto* src_off = static_cast<int64_t*>(temps.get(size_t(B) * sizeof(int64_t)));
  cudaError_t err = visit_index(index, [&]<class I>() {
    index_add_rows_kernel<I><<<blocks_for(B), kThreads, 0, stream>>>(rows, c, dest, src_off);
    return cudaGetLastError();
  });
  if (err != cudaSuccess) return err;
  if (column_path(C, B)) {
    return visit_elem(t, [&]<class T>() {
      index_add_columns_kernel<T><<<blocks_for(C), kThreads, 0, stream>>>(cols, B, dest, src_off);
      return cudaGetLastError();
    });
  }
  auto* order_in = static_cast<int64_t*>(temps.get(size_t(B) * sizeof(int64_t)));
  auto* order = static_cast<int64_t*>(temps.get(size_t(B) * sizeof(int64_t)));
  auto* sorted = static_cast<uint64_t*>(temps.get(size_t(B) * sizeof(uint64_t)));
  iota_kernel<<<blocks_for(B), kThreads, 0, stream>>>(order_in, B);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  err = stable_sort_pairs(dest, sorted, order_in, order, B, key_bits(uint64_t(y_numel)), temps);
  if (err != cudaSuccess) return err;
  return visit_elem(t, [&]<class T>() {
    index_add_sorted_kernel<T><<<blocks_for(B * C), kThreads, 0, stream>>>(cols, B, sorted, order, src_off);
    return cudaGetLastError();
  });
}

cudaError_t launch_scatter_add(const Loop<3>& L, const Loop<3>& cols, Elem index, Elem t, int64_t J, int64_t is,
                               int64_t ss, int64_t n, int64_t ys, int64_t y_numel, Temporaries& temps) {
  int64_t M = L.numel;
  if (M <= 0) return cudaSuccess;
  cudaStream_t stream = current_stream();
  if (column_path(cols.numel, J)) {
    return visit_elem(t, [&]<class T>() {
      return visit_index(index, [&]<class I>() {
        scatter_add_columns_kernel<T, I><<<blocks_for(cols.numel), kThreads, 0, stream>>>(cols, J, is, ss, n, ys);
        return cudaGetLastError();
      });
    });
  }
  auto* keys = static_cast<uint64_t*>(temps.get(size_t(M) * sizeof(uint64_t)));
  auto* sorted = static_cast<uint64_t*>(temps.get(size_t(M) * sizeof(uint64_t)));
  auto* order_in = static_cast<int64_t*>(temps.get(size_t(M) * sizeof(int64_t)));
  auto* order = static_cast<int64_t*>(temps.get(size_t(M) * sizeof(int64_t)));
  cudaError_t err = visit_index(index, [&]<class I>() {
    scatter_add_keys_kernel<I><<<blocks_for(M), kThreads, 0, stream>>>(L, n, ys, keys);
    return cudaGetLastError();
  });
  if (err != cudaSuccess) return err;
  iota_kernel<<<blocks_for(M), kThreads, 0, stream>>>(order_in, M);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  err = stable_sort_pairs(keys, sorted, order_in, order, M, key_bits(uint64_t(y_numel)), temps);
  if (err != cudaSuccess) return err;
  return visit_elem(t, [&]<class T>() {
    scatter_add_sorted_kernel<T><<<blocks_for(M), kThreads, 0, stream>>>(L, sorted, order);
    return cudaGetLastError();
  });
}

}  // namespace spire::cuda
