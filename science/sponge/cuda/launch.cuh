// How the cuda platform's kernels are launched: every kernel is a thin __global__ wrapper that
// computes its thread's item index and calls a body (a __device__ lambda around a SPIRE_HD body
// function of the *_kernels.cuh headers), one thread per item, whole blocks of kThreads. Tallied
// kernels give every thread a Tally (empty past the last item) and commit it per warp
// (tally.cuh), which is why no thread returns early. Included by .cu files only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/runtime.h"
#include "science/sponge/cuda/tally.cuh"

namespace spire::sponge::cuda {

inline constexpr int kThreads = 256;  // a multiple of the warp: commit_warp needs whole warps

inline unsigned blocks_for(int64_t n) { return unsigned((n + kThreads - 1) / kThreads); }

__device__ inline int64_t item_index() { return int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

template <class Body>
__global__ void each_kernel(int64_t n, Body body) {
  const int64_t t = item_index();
  if (t < n) body(t);
}

template <class Body>
__global__ void each_tallied_kernel(int64_t n, TallySlots slots, Body body) {
  const int64_t t = item_index();
  Tally tally;
  if (t < n) body(t, tally);
  commit_warp(slots, tally);
}

// body(t) for t in [0, n) on `stream`; `what` names the kernel in errors.
template <class Body>
void launch_each(int64_t n, cudaStream_t stream, const char* what, Body body) {
  if (n <= 0) return;
  each_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, body);
  SPIRE_CUDA_CHECK(cudaGetLastError(), what);
}

// body(t, tally) for t in [0, n), the tallies into `slots`.
template <class Body>
void launch_each_tallied(int64_t n, const TallySlots& slots, cudaStream_t stream, const char* what, Body body) {
  if (n <= 0) return;
  each_tallied_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, slots, body);
  SPIRE_CUDA_CHECK(cudaGetLastError(), what);
}

}  // namespace spire::sponge::cuda
