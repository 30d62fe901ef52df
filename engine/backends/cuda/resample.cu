// resample_axis on the GPU: one thread per output element, summing its row's entries in order as
// the CPU kernel (backends/cpu/resample.cpp) does, in the data's precision with one rounding per
// multiply-add (the CPU's loops are contracted to fmas the same way). No atomics: each output is
// written once, so the result does not depend on the launch.
#include "engine/backends/cuda/device_types.cuh"
#include "engine/backends/cuda/resample.h"

namespace spire::cuda {
namespace {

template <class T>
__global__ void __launch_bounds__(kThreads) resample_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t P,
                                                            int64_t n, int64_t m, int64_t Q,
                                                            const int64_t* __restrict__ row_ptr,
                                                            const int64_t* __restrict__ cols,
                                                            const T* __restrict__ w) {
  const int64_t total = P * m * Q;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    // Consecutive threads take consecutive q: coalesced reads of x and writes of y when Q > 1.
    const int64_t q = t % Q, rest = t / Q, o = rest % m, p = rest / m;
    const T* src = x + p * n * Q + q;
    const int64_t k0 = row_ptr[o], k1 = row_ptr[o + 1];
    T acc = T(0);
    // The CPU starts the innermost-axis case (Q == 1) from 0 and the others from the first term;
    // they differ only in the sign of a zero sum, kept here too.
    int64_t k = k0;
    if (Q > 1 && k < k1) {
      acc = w[k] * src[cols[k] * Q];
      ++k;
    }
    for (; k < k1; ++k) acc = fma(w[k], src[cols[k] * Q], acc);
    y[t] = acc;
  }
}

}  // namespace

cudaError_t launch_resample_axis(Elem elem, const void* x, void* y, int64_t P, int64_t n, int64_t m, int64_t Q,
                                 const int64_t* row_ptr, const int64_t* cols, const void* weights) {
  const int64_t total = P * m * Q;
  if (total <= 0) return cudaSuccess;
  const unsigned blocks = blocks_for(total);
  switch (elem) {
    case Elem::Float32:
      resample_kernel<float><<<blocks, kThreads, 0, current_stream()>>>(
          static_cast<const float*>(x), static_cast<float*>(y), P, n, m, Q, row_ptr, cols,
          static_cast<const float*>(weights));
      break;
    case Elem::Float64:
      resample_kernel<double><<<blocks, kThreads, 0, current_stream()>>>(
          static_cast<const double*>(x), static_cast<double*>(y), P, n, m, Q, row_ptr, cols,
          static_cast<const double*>(weights));
      break;
    default: return cudaErrorInvalidValue;  // the op takes floating-point tensors only
  }
  return cudaGetLastError();
}

}  // namespace spire::cuda
