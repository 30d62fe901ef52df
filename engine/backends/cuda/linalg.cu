// The factorisation kernels' own small kernels (see linalg.h). Each output element is written by
// one thread; the per-matrix loops (det, checks) run in a fixed order.
#include <cuda/std/cmath>

#include "engine/backends/cuda/device_types.cuh"
#include "engine/backends/cuda/linalg.h"

namespace spire::cuda {
namespace {

#define SPIRE_GRID_LOOP(i, total)                                                                       \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, step_ = int64_t(gridDim.x) * blockDim.x; \
       i < (total); i += step_)

template <class T>
__device__ T conj_of(T v) {
  if constexpr (is_complex_v<T>) return ::cuda::std::conj(v);
  else return v;
}

template <class T>
__global__ void identity_kernel(T* out, int64_t nb, int64_t n) {
  SPIRE_GRID_LOOP(e, nb * n * n) {
    int64_t j = e % n, i = (e / n) % n;
    out[e] = i == j ? T(1) : T(0);
  }
}

// e runs over w in column-major order: w[r][i + j*n] = H(i, j).
template <class T>
__global__ void hermitian_kernel(const T* a, T* w, int64_t nb, int64_t n) {
  using R = real_t<T>;
  SPIRE_GRID_LOOP(e, nb * n * n) {
    int64_t i = e % n, j = (e / n) % n, r = e / (n * n);
    const T* m = a + r * n * n;
    w[e] = (m[i * n + j] + conj_of(m[j * n + i])) * R(0.5);
  }
}

template <class T>
__global__ void lower_kernel(const T* w, T* out, int64_t nb, int64_t n) {
  SPIRE_GRID_LOOP(e, nb * n * n) {
    int64_t j = e % n, i = (e / n) % n, r = e / (n * n);
    out[e] = i >= j ? w[r * n * n + j * n + i] : T(0);
  }
}

template <class T>
__global__ void cholesky_check_kernel(const T* w, int* info, int64_t nb, int64_t n) {
  using R = real_t<T>;
  SPIRE_GRID_LOOP(r, nb) {
    if (info[r] != 0) continue;
    for (int64_t i = 0; i < n; ++i) {
      R d;
      if constexpr (is_complex_v<T>) d = w[r * n * n + i * n + i].real();
      else d = w[r * n * n + i * n + i];
      if (!(d > R(0)) || !::cuda::std::isfinite(d)) {
        info[r] = 1;
        break;
      }
    }
  }
}

template <class T, class P>
__global__ void det_kernel(const T* lu, const P* ipiv, T* out, int64_t nb, int64_t n) {
  SPIRE_GRID_LOOP(r, nb) {
    const T* m = lu + r * n * n;
    T prod(1);
    bool odd = false;
    for (int64_t i = 0; i < n; ++i) {
      prod = prod * m[i * n + i];
      if (int64_t(ipiv[r * n + i]) != i + 1) odd = !odd;
    }
    out[r] = odd ? -prod : prod;
  }
}

template <class T>
__global__ void zero_diagonal_kernel(const T* a, BatchLayout layout, int64_t sr, int64_t sc, int* flag, int64_t nb,
                                     int64_t n) {
  SPIRE_GRID_LOOP(r, nb) {
    int64_t off = 0, rem = r;
    for (int d = layout.ndim - 1; d >= 0; --d) {
      off += (rem % layout.sizes[d]) * layout.strides[d];
      rem /= layout.sizes[d];
    }
    int f = 0;
    for (int64_t i = 0; i < n && !f; ++i) f = a[off + i * (sr + sc)] == T(0);
    flag[r] = f;
  }
}

// Runs body.template operator()<T>() for the four inexact element types.
template <class F>
cudaError_t inexact(Elem e, F&& body) {
  switch (e) {
    case Elem::Float32: body.template operator()<float>(); break;
    case Elem::Float64: body.template operator()<double>(); break;
    case Elem::Complex64: body.template operator()<c64>(); break;
    case Elem::Complex128: body.template operator()<c128>(); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_identity(Elem e, void* out, int64_t nb, int64_t n) {
  if (nb * n == 0) return cudaSuccess;
  return inexact(e, [&]<class T>() {
    identity_kernel<T><<<blocks_for(nb * n * n), kThreads, 0, current_stream()>>>(static_cast<T*>(out), nb, n);
  });
}

cudaError_t launch_hermitian_part(Elem e, const void* a, void* w, int64_t nb, int64_t n) {
  if (nb * n == 0) return cudaSuccess;
  return inexact(e, [&]<class T>() {
    hermitian_kernel<T><<<blocks_for(nb * n * n), kThreads, 0, current_stream()>>>(static_cast<const T*>(a),
                                                                                   static_cast<T*>(w), nb, n);
  });
}

cudaError_t launch_lower_factor(Elem e, const void* w, void* out, int64_t nb, int64_t n) {
  if (nb * n == 0) return cudaSuccess;
  return inexact(e, [&]<class T>() {
    lower_kernel<T><<<blocks_for(nb * n * n), kThreads, 0, current_stream()>>>(static_cast<const T*>(w),
                                                                               static_cast<T*>(out), nb, n);
  });
}

cudaError_t launch_cholesky_check(Elem e, const void* w, int* info, int64_t nb, int64_t n) {
  if (nb == 0) return cudaSuccess;
  return inexact(e, [&]<class T>() {
    cholesky_check_kernel<T><<<blocks_for(nb), kThreads, 0, current_stream()>>>(static_cast<const T*>(w), info, nb, n);
  });
}

cudaError_t launch_det_from_lu(Elem e, const void* lu, const void* ipiv, bool pivots64, void* out, int64_t nb,
                               int64_t n) {
  if (nb == 0) return cudaSuccess;
  return inexact(e, [&]<class T>() {
    if (pivots64)
      det_kernel<T, int64_t><<<blocks_for(nb), kThreads, 0, current_stream()>>>(
          static_cast<const T*>(lu), static_cast<const int64_t*>(ipiv), static_cast<T*>(out), nb, n);
    else
      det_kernel<T, int><<<blocks_for(nb), kThreads, 0, current_stream()>>>(
          static_cast<const T*>(lu), static_cast<const int*>(ipiv), static_cast<T*>(out), nb, n);
  });
}

cudaError_t launch_zero_diagonal(Elem e, const void* a, BatchLayout layout, int64_t sr, int64_t sc, int* flag,
                                 int64_t nb, int64_t n) {
  if (nb == 0) return cudaSuccess;
  return inexact(e, [&]<class T>() {
    zero_diagonal_kernel<T><<<blocks_for(nb), kThreads, 0, current_stream()>>>(static_cast<const T*>(a), layout, sr,
                                                                               sc, flag, nb, n);
  });
}

}  // namespace spire::cuda
