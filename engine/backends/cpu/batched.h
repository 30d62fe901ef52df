// Batch iteration for the matrix kernels: operands whose leading (batch) axes broadcast against the
// output's, each batch a matrix addressed by its element offset.
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::cpu {

// Element offset of each batch of `t` (all but its last `core` axes) for every batch index of the
// broadcast batch shape `batch`, row-major; 0 stride along broadcast axes.
inline std::vector<int64_t> batch_offsets(const Tensor& t, const Shape& batch, int64_t core = 2) {
  int64_t nb = numel_of(batch), nd = int64_t(batch.size()), tb = t.dim() - core, lead = nd - tb;
  Shape st(nd, 0);
  for (int64_t i = 0; i < tb; ++i) st[lead + i] = t.shape()[i] == 1 ? 0 : t.strides()[i];
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

}  // namespace spire::cpu
