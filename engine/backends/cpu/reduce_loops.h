// Deterministic reductions: every output element is combined in one fixed order, whatever the
// number of threads. Long reductions are split into fixed-size blocks whose partial results are
// combined in block order, so the bits do not depend on how OpenMP schedules them.
#pragma once
#include <algorithm>
#include <vector>

#include "engine/backends/cpu/loops.h"
#include "engine/ops/reduce.h"

namespace spire::cpu {

constexpr int64_t kReduceBlock = 1 << 14;

// Splits a reduction of `in` over sorted `axes` into kept and reduced parts.
struct ReducePlan {
  Shape kept_shape, kept_strides, red_shape, red_strides;
  int64_t n_out = 1, n_red = 1;
  ReducePlan(const Tensor& in, const Axes& axes) {
    for (int64_t i = 0; i < in.dim(); ++i) {
      bool r = std::binary_search(axes.begin(), axes.end(), i);
      (r ? red_shape : kept_shape).push_back(in.shape()[i]);
      (r ? red_strides : kept_strides).push_back(in.strides()[i]);
    }
    n_out = numel_of(kept_shape);
    n_red = numel_of(red_shape);
  }
  int64_t out_offset(int64_t o) const {
    int64_t off = 0;
    for (int64_t d = int64_t(kept_shape.size()) - 1; d >= 0; --d) {
      off += (o % kept_shape[d]) * kept_strides[d];
      o /= kept_shape[d];
    }
    return off;
  }
  int64_t red_offset(int64_t r) const {
    int64_t off = 0;
    for (int64_t d = int64_t(red_shape.size()) - 1; d >= 0; --d) {
      off += (r % red_shape[d]) * red_strides[d];
      r /= red_shape[d];
    }
    return off;
  }
};

// Folds x over `axes` into one value per output element o (outputs in row-major order of the kept
// axes): acc = step(acc, x, r) per element in order (r is the reduced linear index, for
// arg-reductions), merge(a, b) joins two block partials in order, store(o, acc) writes.
template <class In, class Acc, class Step, class Merge, class Store>
void reduce(const Tensor& in, const Axes& axes, Acc init, Step step, Merge merge, Store store) {
  ReducePlan p(in, axes);
  const In* x = static_cast<const In*>(in.raw_data());
  // Folds reduced indices [r0, r1) of output o.
  auto fold = [&](int64_t base, int64_t r0, int64_t r1) {
    Acc acc = init;
    // Walk the reduced index with an odometer instead of dividing per element.
    int64_t nd = int64_t(p.red_shape.size());
    std::vector<int64_t> idx(nd, 0);
    int64_t rr = r0, off = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = rr % p.red_shape[d];
      rr /= p.red_shape[d];
      off += idx[d] * p.red_strides[d];
    }
    int64_t inner_n = nd ? p.red_shape[nd - 1] : 1, inner_s = nd ? p.red_strides[nd - 1] : 0;
    for (int64_t r = r0; r < r1;) {
      int64_t run = std::min(inner_n - (nd ? idx[nd - 1] : 0), r1 - r);
      const In* q = x + base + off;
      for (int64_t i = 0; i < run; ++i) acc = step(acc, q[i * inner_s], r + i);
      r += run;
      if (nd == 0) break;
      idx[nd - 1] += run;
      off += run * inner_s;
      for (int64_t d = nd - 1; d > 0 && idx[d] == p.red_shape[d]; --d) {
        off -= idx[d] * p.red_strides[d];
        idx[d] = 0;
        ++idx[d - 1];
        off += p.red_strides[d - 1];
      }
    }
    return acc;
  };
  if (p.n_out >= 64 || p.n_red < 2 * kReduceBlock) {
    parallel_for(p.n_out, p.n_out * p.n_red, [&](int64_t o) { store(o, fold(p.out_offset(o), 0, p.n_red)); });
    return;
  }
  int64_t nb = (p.n_red + kReduceBlock - 1) / kReduceBlock;
  for (int64_t o = 0; o < p.n_out; ++o) {
    std::vector<Acc> part(nb, init);
    int64_t base = p.out_offset(o);
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; ++b)
      part[b] = fold(base, b * kReduceBlock, std::min(p.n_red, (b + 1) * kReduceBlock));
    Acc acc = part[0];
    for (int64_t b = 1; b < nb; ++b) acc = merge(acc, part[b]);
    store(o, acc);
  }
}

}  // namespace spire::cpu
