// Integer and boolean matrix products (cuBLAS has none) and the layout copy of the matrix kernels.
#include <cuda/std/type_traits>

#include "engine/backends/cuda/device_types.cuh"
#include "engine/backends/cuda/elementwise.cuh"
#include "engine/backends/cuda/matmul.h"

namespace spire::cuda {
namespace {

struct Identity {
  template <class T>
  __device__ T operator()(T v) const { return v; }
};

template <class T>
__device__ T product_entry(const IntMatmul& p, const T* A, const T* B, int64_t i, int64_t j) {
  const T* a = A + i * p.sar;
  const T* b = B + j * p.sbc;
  if constexpr (::cuda::std::is_same_v<T, bool>) {
    bool acc = false;
    for (int64_t q = 0; q < p.k && !acc; ++q) acc = a[q * p.sac] && b[q * p.sbr];
    return acc;
  } else {
    // Unsigned arithmetic: wraps as the CPU's two's-complement sums do, without signed overflow's
    // undefined behaviour. Integer sums are exact modulo 2^bits, so the order does not matter.
    using U = ::cuda::std::make_unsigned_t<T>;
    U acc = 0;
    for (int64_t q = 0; q < p.k; ++q) acc += U(a[q * p.sac]) * U(b[q * p.sbr]);
    return T(acc);
  }
}

// One thread per output entry (r, i, j), consecutive threads along j.
template <class T>
__global__ void int_matmul_kernel(IntMatmul p) {
  const int64_t total = p.nb * p.m * p.n, step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += step) {
    int64_t j = e % p.n, i = (e / p.n) % p.m, r = e / (p.m * p.n);
    int64_t oa = 0, ob = 0;
    for (int d = p.batch.ndim - 1; d >= 0; --d) {
      int64_t idx = r % p.batch.sizes[d];
      r /= p.batch.sizes[d];
      oa += idx * p.batch.stride_a[d];
      ob += idx * p.batch.stride_b[d];
    }
    static_cast<T*>(p.c)[e] = product_entry<T>(p, static_cast<const T*>(p.a) + oa, static_cast<const T*>(p.b) + ob, i, j);
  }
}

}  // namespace

cudaError_t launch_layout_copy(const Loop<2>& loop) {
  return visit_elem(loop.elem[0], [&]<class T>() { return launch_map<T, T>(loop, Identity{}); });
}

cudaError_t launch_int_matmul(const IntMatmul& p) {
  const int64_t total = p.nb * p.m * p.n;
  if (total <= 0) return cudaSuccess;
  unsigned blocks = blocks_for(total);
  switch (p.elem) {
    case Elem::Bool: int_matmul_kernel<bool><<<blocks, kThreads, 0, current_stream()>>>(p); break;
    case Elem::Int32: int_matmul_kernel<int32_t><<<blocks, kThreads, 0, current_stream()>>>(p); break;
    case Elem::Int64: int_matmul_kernel<int64_t><<<blocks, kThreads, 0, current_stream()>>>(p); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace spire::cuda
