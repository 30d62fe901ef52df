// What crosses from the backend's C++ side (which sees engine headers) to its nvcc side (which never
// does): element types, strided operands, the current stream. Plain C++, no engine types, so the
// device compiler only ever sees this header, CUDA's own, the macro-only engine/core/host_device.h
// and the launchers' declarations.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "engine/core/host_device.h"

namespace spire::cuda {

// The engine's DType, value for value (checked in loop.cpp).
enum class Elem : uint8_t { Bool, Int32, Int64, Float32, Float64, Complex64, Complex128 };

// Operands of an elementwise loop are described by at most this many dimensions after merging
// (loop.cpp merges every run of dimensions contiguous across all operands, so a tensor needs more
// only when it has more than kMaxDims non-mergeable axes; make_loop refuses that with a clear error).
constexpr int kMaxDims = 10;

// N operands (operand 0 is the output) walked over one common shape, innermost dimension last.
// Strides are in elements; a broadcast input has stride 0 along the broadcast axes. `contiguous`
// holds when every operand is one dense row (the fast path: no index arithmetic at all).
template <int N>
struct Loop {
  int ndim = 1;
  int64_t numel = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};
  void* data[N] = {};
  Elem elem[N] = {};
  bool contiguous = false;
};

// Element offsets (in elements) of all N operands at row-major position i of the loop's shape.
template <int N>
SPIRE_HD inline void loop_offsets(const Loop<N>& L, int64_t i, int64_t (&off)[N]) {
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = L.ndim - 1; d >= 0; --d) {
    int64_t size = L.sizes[d];
    int64_t idx = i % size;
    i /= size;
    for (int k = 0; k < N; ++k) off[k] += idx * L.strides[k][d];
  }
}

// The stream Spire's kernels run on, for the current device and thread (stream.cpp).
cudaStream_t current_stream();

// Launch geometry shared by the grid-stride kernels: 256 threads, and enough blocks to fill the GPU
// a few times over (more only costs scheduling; the grid-stride loop covers the rest).
constexpr int kThreads = 256;
inline unsigned blocks_for(int64_t n, int64_t per_thread = 1) {
  int64_t b = (n + kThreads * per_thread - 1) / (kThreads * per_thread);
  if (b < 1) b = 1;
  if (b > 65536) b = 65536;
  return unsigned(b);
}

}  // namespace spire::cuda
