// Pooling kernels: one thread per output element for max_pool and avg_pool, one per input element
// for avg_pool_backward (a gather over the windows holding it, so no two threads write one
// element and no floating-point atomics are needed). Every loop visits its terms in the CPU
// kernel's order (engine/backends/cpu/pool.cpp), so sums and ties come out the same.
#include <cuda/std/limits>

#include "engine/backends/cuda/device_types.cuh"
#include "engine/backends/cuda/pool.h"

namespace spire::cuda {
namespace {

struct alignas(16) Bytes16 {
  uint64_t lo, hi;
};

// Output position t of [planes, out0, out1, out2] as (plane, o0, o1, o2).
__device__ inline void split(int64_t t, const int64_t (&n)[3], int64_t& plane, int64_t& o0, int64_t& o1,
                             int64_t& o2) {
  o2 = t % n[2];
  t /= n[2];
  o1 = t % n[1];
  t /= n[1];
  o0 = t % n[0];
  plane = t / n[0];
}

template <class T>
__device__ inline bool greater_or_nan(T v, T best) {
  if constexpr (::cuda::std::is_floating_point_v<T>) return v > best || isnan(v);
  else return v > best;
}

__device__ inline int64_t divisor_of(const PoolWindows& w, int64_t o0, int64_t o1, int64_t o2) {
  if (w.divisor_override) return w.divisor_override;
  return w.divisor[0][o0] * w.divisor[1][o1] * w.divisor[2][o2];
}

// PyTorch's rule: start at -inf (the lowest value for integers) with the window's first element as
// the index; a larger value or a NaN takes over, so ties keep the first maximum in window order.
template <class T>
__global__ void max_pool_kernel(const T* x, T* y, int64_t* idx, int64_t total, PoolWindows w) {
  const T lowest = ::cuda::std::is_floating_point_v<T> ? -::cuda::std::numeric_limits<T>::infinity()
                                                       : ::cuda::std::numeric_limits<T>::lowest();
  int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += stride) {
    int64_t plane, o0, o1, o2;
    split(t, w.out, plane, o0, o1, o2);
    const T* xp = x + plane * in_plane;
    int64_t best_i = (w.first[0][o0] * w.in[1] + w.first[1][o1]) * w.in[2] + w.first[2][o2];
    T best = lowest;
    for (int64_t j0 = 0, i0 = w.first[0][o0]; j0 < w.count[0][o0]; ++j0, i0 += w.step[0])
      for (int64_t j1 = 0, i1 = w.first[1][o1]; j1 < w.count[1][o1]; ++j1, i1 += w.step[1]) {
        int64_t row = (i0 * w.in[1] + i1) * w.in[2];
        for (int64_t j2 = 0, i2 = w.first[2][o2]; j2 < w.count[2][o2]; ++j2, i2 += w.step[2]) {
          T v = xp[row + i2];
          if (greater_or_nan(v, best)) {
            best = v;
            best_i = row + i2;
          }
        }
      }
    y[t] = best;
    idx[t] = best_i;
  }
}

// The window is walked with unit steps, as the CPU's avg_pool does (average pooling has no dilation).
template <class T>
__global__ void avg_pool_kernel(const T* x, T* y, int64_t total, PoolWindows w) {
  int64_t in_plane = w.in[0] * w.in[1] * w.in[2];
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += stride) {
    int64_t plane, o0, o1, o2;
    split(t, w.out, plane, o0, o1, o2);
    const T* xp = x + plane * in_plane;
    T sum = 0;
    for (int64_t i0 = w.first[0][o0]; i0 < w.first[0][o0] + w.count[0][o0]; ++i0)
      for (int64_t i1 = w.first[1][o1]; i1 < w.first[1][o1] + w.count[1][o1]; ++i1) {
        const T* row = xp + (i0 * w.in[1] + i1) * w.in[2] + w.first[2][o2];
        for (int64_t j2 = 0; j2 < w.count[2][o2]; ++j2) sum += row[j2];
      }
    y[t] = sum / T(divisor_of(w, o0, o1, o2));
  }
}

// x[i] = sum over the outputs o whose window holds i, in increasing (o0, o1, o2), of g[o] / divisor(o):
// the terms and the order of the CPU kernel, whichever of its two paths it takes.
template <class T>
__global__ void avg_pool_backward_kernel(const T* g, T* x, int64_t total, PoolWindows w) {
  int64_t out_plane = w.out[0] * w.out[1] * w.out[2];
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += stride) {
    int64_t plane, i0, i1, i2;
    split(t, w.in, plane, i0, i1, i2);
    const T* gp = g + plane * out_plane;
    T sum = 0;
    for (int64_t p0 = w.inv_start[0][i0]; p0 < w.inv_start[0][i0 + 1]; ++p0)
      for (int64_t p1 = w.inv_start[1][i1]; p1 < w.inv_start[1][i1 + 1]; ++p1) {
        int64_t o0 = w.inv_outs[0][p0], o1 = w.inv_outs[1][p1];
        const T* row = gp + (o0 * w.out[1] + o1) * w.out[2];
        for (int64_t p2 = w.inv_start[2][i2]; p2 < w.inv_start[2][i2 + 1]; ++p2) {
          int64_t o2 = w.inv_outs[2][p2];
          sum += row[o2] / T(divisor_of(w, o0, o1, o2));
        }
      }
    x[t] = sum;
  }
}

// The last writer of each output position, by the largest source index: integer atomics, whose
// result does not depend on their order.
__global__ void unpool_winners_kernel(const int64_t* idx, int64_t* winner, int64_t total, int64_t in_plane,
                                      int64_t out_plane) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < total; j += stride) {
    int64_t p = j / in_plane;
    atomicMax(reinterpret_cast<long long*>(winner + p * out_plane + idx[j]), (long long)j);
  }
}

template <class W>
__global__ void unpool_gather_kernel(const W* x, const int64_t* winner, W* y, int64_t total) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t o = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; o < total; o += stride) {
    int64_t j = winner[o];
    y[o] = j >= 0 ? x[j] : W{};
  }
}

template <class F>
cudaError_t real_types(Elem e, F&& f) {
  switch (e) {
    case Elem::Int32: return f.template operator()<int32_t>();
    case Elem::Int64: return f.template operator()<int64_t>();
    case Elem::Float32: return f.template operator()<float>();
    case Elem::Float64: return f.template operator()<double>();
    default: return cudaErrorInvalidValue;
  }
}

template <class F>
cudaError_t floating_types(Elem e, F&& f) {
  switch (e) {
    case Elem::Float32: return f.template operator()<float>();
    case Elem::Float64: return f.template operator()<double>();
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_max_pool(Elem e, const void* x, void* y, int64_t* idx, int64_t planes, const PoolWindows& w) {
  int64_t total = planes * w.out[0] * w.out[1] * w.out[2];
  if (total <= 0) return cudaSuccess;
  return real_types(e, [&]<class T>() {
    max_pool_kernel<T><<<blocks_for(total), kThreads, 0, current_stream()>>>(static_cast<const T*>(x),
                                                                             static_cast<T*>(y), idx, total, w);
    return cudaGetLastError();
  });
}

cudaError_t launch_avg_pool(Elem e, const void* x, void* y, int64_t planes, const PoolWindows& w) {
  int64_t total = planes * w.out[0] * w.out[1] * w.out[2];
  if (total <= 0) return cudaSuccess;
  return floating_types(e, [&]<class T>() {
    avg_pool_kernel<T><<<blocks_for(total), kThreads, 0, current_stream()>>>(static_cast<const T*>(x),
                                                                             static_cast<T*>(y), total, w);
    return cudaGetLastError();
  });
}

cudaError_t launch_avg_pool_backward(Elem e, const void* g, void* x, int64_t planes, const PoolWindows& w) {
  int64_t total = planes * w.in[0] * w.in[1] * w.in[2];
  if (total <= 0) return cudaSuccess;
  return floating_types(e, [&]<class T>() {
    avg_pool_backward_kernel<T><<<blocks_for(total), kThreads, 0, current_stream()>>>(
        static_cast<const T*>(g), static_cast<T*>(x), total, w);
    return cudaGetLastError();
  });
}

cudaError_t launch_max_unpool(const void* x, const int64_t* idx, void* y, int64_t* winner, int64_t planes,
                              int64_t in_plane, int64_t out_plane, size_t itemsize) {
  int64_t outs = planes * out_plane, ins = planes * in_plane;
  if (outs <= 0) return cudaSuccess;
  // All bytes 0xff: every winner starts at -1 (no source).
  cudaError_t err = cudaMemsetAsync(winner, 0xff, size_t(outs) * sizeof(int64_t), current_stream());
  if (err != cudaSuccess) return err;
  if (ins > 0) {
    unpool_winners_kernel<<<blocks_for(ins), kThreads, 0, current_stream()>>>(idx, winner, ins, in_plane, out_plane);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
  }
  auto gather = [&]<class W>() {
    unpool_gather_kernel<W><<<blocks_for(outs), kThreads, 0, current_stream()>>>(
        static_cast<const W*>(x), winner, static_cast<W*>(y), outs);
    return cudaGetLastError();
  };
  switch (itemsize) {
    case 1: return gather.template operator()<uint8_t>();
    case 4: return gather.template operator()<uint32_t>();
    case 8: return gather.template operator()<uint64_t>();
    case 16: return gather.template operator()<Bytes16>();
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace spire::cuda
