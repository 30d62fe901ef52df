// The shape half of make_loop (loop.h), in plain C++ so that host tests of the kernels (.cu files,
// which never include engine headers) plan their loops with the same code as the backend.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// Fills L's sizes, strides, ndim, numel and contiguous from `shape` and each operand's strides over
// it (`full[k]`, in elements, zero where operand k is broadcast): runs of dimensions contiguous
// across every operand merge into one, size-1 dimensions drop out. Returns the number of merged
// dimensions; when it exceeds kMaxDims, L is left unfilled and the caller reports it.
template <int N>
int plan_loop(const std::vector<int64_t>& shape, const std::vector<std::vector<int64_t>>& full, Loop<N>& L) {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides(N);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !sizes.empty();
    for (int k = 0; k < N && merge; ++k) merge = strides[k].back() == full[k][d] * shape[d];
    if (merge) {
      sizes.back() *= shape[d];
      for (int k = 0; k < N; ++k) strides[k].back() = full[k][d];
    } else {
      sizes.push_back(shape[d]);
      for (int k = 0; k < N; ++k) strides[k].push_back(full[k][d]);
    }
  }
  if (sizes.empty()) {
    sizes.push_back(1);
    for (auto& s : strides) s.push_back(1);
  }
  if (int(sizes.size()) > kMaxDims) return int(sizes.size());
  L.ndim = int(sizes.size());
  L.numel = 1;
  for (int64_t s : shape) L.numel *= s;
  L.contiguous = L.ndim == 1;
  for (int d = 0; d < L.ndim; ++d) {
    L.sizes[d] = sizes[size_t(d)];
    for (int k = 0; k < N; ++k) {
      L.strides[k][d] = strides[size_t(k)][size_t(d)];
      if (L.ndim == 1 && L.strides[k][d] != 1) L.contiguous = false;
    }
  }
  return L.ndim;
}

}  // namespace spire::cuda
