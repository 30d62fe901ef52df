// Device-side helpers shared by the indexing launchers (gather.cu, scatter.cu, indexing.cu) and
// the permutation draw (random.cu): index wrapping, element-size dispatch for kernels that only
// move bits, and a stable CUB radix sort whose workspaces come from Temporaries.
#pragma once
#include <cub/device/device_radix_sort.cuh>

#include "engine/backends/cuda/device_types.cuh"
#include "engine/backends/cuda/indexing.h"

// In a namespace of their own: other backend files have helpers with the same natural names.
namespace spire::cuda::indexing {

// An index already checked to lie in [-n, n), as a position in [0, n).
template <class I>
SPIRE_HD inline int64_t wrap_index(I v, int64_t n) {
  int64_t i = int64_t(v);
  return i < 0 ? i + n : i;
}

namespace detail {
template <class Idx, int N>
SPIRE_HD inline void offsets_with(const Loop<N>& L, Idx r, int64_t (&off)[N]) {
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = L.ndim - 1; d > 0; --d) {
    Idx size = Idx(L.sizes[d]);
    Idx q = r / size;
    int64_t idx = int64_t(r - q * size);
    r = q;
    for (int k = 0; k < N; ++k) off[k] += idx * L.strides[k][d];
  }
  for (int k = 0; k < N; ++k) off[k] += int64_t(r) * L.strides[k][0];  // r < sizes[0]: no division
}
}  // namespace detail

// loop_offsets (kernel_abi.h) for these kernels, which are mostly index arithmetic: 32-bit
// divisions when the loop's positions fit (a 64-bit division costs several times as many
// instructions, enough to make a gather compute-bound), none for the outermost dimension.
template <int N>
SPIRE_HD inline void offsets_at(const Loop<N>& L, int64_t i, int64_t (&off)[N]) {
  if (L.numel <= int64_t(UINT32_MAX)) detail::offsets_with<uint32_t>(L, uint32_t(i), off);
  else detail::offsets_with<uint64_t>(L, uint64_t(i), off);
}

// Elements that are only moved, never computed with, are copied as unsigned words of their size:
// one instantiation per size instead of per dtype, and bit-exact for every dtype (NaN payloads,
// negative zeros).
struct alignas(16) Word16 {
  uint64_t lo, hi;
};

// Calls f.template operator()<W>() with the unsigned word of `itemsize` bytes.
template <class F>
cudaError_t visit_word(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    case 8: return f.template operator()<uint64_t>();
    case 16: return f.template operator()<Word16>();
    default: return cudaErrorInvalidValue;
  }
}

// Calls f.template operator()<I>() with the type of an index tensor (int32 or int64; infer
// refuses the others).
template <class F>
cudaError_t visit_index(Elem e, F&& f) {
  if (e == Elem::Int32) return f.template operator()<int32_t>();
  return f.template operator()<int64_t>();
}

// Enough bits to hold every key below `bound` (at least 1), so the radix sort skips the passes over
// bits that are zero in every key.
inline int key_bits(uint64_t bound) {
  int b = 1;
  while (b < 64 && (uint64_t(1) << b) < bound) ++b;
  return b;
}

// Sorts (keys, values) by key, stably (equal keys keep their input order): the order the
// deterministic scatter-adds and the permutation rely on. keys_out/values_out receive the result.
template <class K, class V>
cudaError_t stable_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, int64_t n,
                              int end_bit, Temporaries& temps) {
  if (n <= 0) return cudaSuccess;
  size_t bytes = 0;
  cudaError_t err = cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, values_in, values_out,
                                                    n, 0, end_bit, current_stream());
  if (err != cudaSuccess) return err;
  void* work = temps.get(bytes);
  return cub::DeviceRadixSort::SortPairs(work, bytes, keys_in, keys_out, values_in, values_out, n, 0, end_bit,
                                         current_stream());
}

// 0, 1, ..., n - 1.
template <class V>
__global__ void iota_kernel(V* p, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = V(i);
}

}  // namespace spire::cuda::indexing
