// Batch iteration for the matrix kernels of every backend: operands whose leading (batch) axes broadcast against the
// output's, each batch a matrix addressed by its element offset.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::cpu {

// Element offset of each batch of `t` (all but its last `core` axes) for every batch index of the
// broadcast batch shape `batch`, row-major; 0 stride along broadcast axes.
inline std::vector<int64_t> batch_offsets(const Tensor& t, const Shape& batch, int64_t core = 2) {
  int64_t nb = numel_of(batch), nd = int64_t(batch.size());
  Shape st = broadcast_strides(t, batch, core);
  std::vector<int64_t> off(nb);
  for (int64_t r = 0; r < nb; ++r) {
    int64_t rem = r, o = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      o += (rem % batch[d]) * st[d];
      rem /= batch[d];
    }
    off[r] = o;
  }
  return off;
}

// " at batch index (i, j)" for flat batch index r of `batch`, or "" for an unbatched call.
inline std::string batch_index_str(int64_t r, const Shape& batch) {
  if (batch.empty()) return "";
  Shape idx(batch.size());
  for (int64_t d = int64_t(batch.size()) - 1; d >= 0; --d) {
    idx[d] = r % batch[d];
    r /= batch[d];
  }
  return " at batch index " + shape_str(idx);
}

// How a row-major BLAS sees a rows x cols matrix with element strides (sr, sc): as stored
// (trans = false, ld = row stride) or as the transpose of a stored row-major matrix; ok = false
// when neither fits (the matrix must be copied first).
struct BlasView {
  bool ok = false, trans = false;
  int64_t ld = 0;
};
inline BlasView blas_view(int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  if ((sc == 1 || cols <= 1) && (rows <= 1 || sr >= std::max<int64_t>(1, cols)))
    return {true, false, rows <= 1 ? std::max<int64_t>(1, cols) : sr};
  if ((sr == 1 || rows <= 1) && (cols <= 1 || sc >= std::max<int64_t>(1, rows)))
    return {true, true, cols <= 1 ? std::max<int64_t>(1, rows) : sc};
  return {};
}
// The view of t's last two axes.
inline BlasView blas_view(const Tensor& t) {
  return blas_view(t.shape(-2), t.shape(-1), t.strides()[t.dim() - 2], t.strides().back());
}

// If every batch of `a` is shared-nothing and laid out so that batch and row axes merge into one
// axis of constant stride, returns that stride (the batch folds into the GEMM's m).
inline std::optional<int64_t> merged_row_stride(const Tensor& a, const Shape& batch) {
  int64_t m = a.shape(-2), lead = int64_t(batch.size()) - (a.dim() - 2);
  std::vector<std::pair<int64_t, int64_t>> dims;  // (size, stride), outermost first
  for (int64_t d = 0; d < int64_t(batch.size()); ++d) {
    if (batch[d] == 1) continue;
    int64_t i = d - lead;
    if (i < 0 || a.shape()[i] != batch[d]) return std::nullopt;  // broadcast: rows repeat
    dims.push_back({batch[d], a.strides()[i]});
  }
  if (m > 1) dims.push_back({m, a.strides()[a.dim() - 2]});
  if (dims.empty()) return a.shape(-1);
  for (size_t i = 0; i + 1 < dims.size(); ++i)
    if (dims[i].second != dims[i + 1].second * dims[i + 1].first) return std::nullopt;
  return dims.back().second;
}

// Whether every batch axis of t has size 1 (one matrix shared by all batches).
inline bool all_broadcast(const Tensor& t) {
  for (int64_t i = 0; i < t.dim() - 2; ++i)
    if (t.shape()[i] != 1) return false;
  return true;
}

}  // namespace spire::cpu
