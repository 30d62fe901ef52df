// Loop helpers for the shape and indexing kernels: offsets of a group of axes of a strided tensor
// (so a kernel can see an n-d operand as [before, axis, after] whatever its strides), fills, and
// the index wrapping every indexing kernel shares. Index ranges were checked by the op's infer.
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/backends/cpu/loops.h"

namespace spire::cpu {

// Offsets (in elements) of every position of axes [begin, end) of a tensor with `shape` and
// `strides`, in row-major order. `unit` says the offsets are 0, 1, 2, ... (the group is contiguous),
// so loops can take a fast path without the table.
struct AxisGroup {
  int64_t size = 1;
  bool unit = true;
  std::vector<int64_t> table;

  AxisGroup() = default;
  AxisGroup(const Shape& shape, const Shape& strides, int64_t begin, int64_t end) {
    int64_t expected = 1;
    for (int64_t d = end - 1; d >= begin; --d) {
      size *= shape[d];
      if (shape[d] != 1 && strides[d] != expected) unit = false;
      expected *= shape[d];
    }
    if (unit || size == 0) return;
    table.resize(size);
    std::vector<int64_t> idx(end - begin, 0);
    int64_t off = 0;
    for (int64_t k = 0; k < size; ++k) {
      table[k] = off;
      for (int64_t d = end - 1; d >= begin; --d) {
        int64_t& i = idx[d - begin];
        if (++i < shape[d]) {
          off += strides[d];
          break;
        }
        off -= strides[d] * (shape[d] - 1);
        i = 0;
      }
    }
  }
  AxisGroup(const Tensor& t, int64_t begin, int64_t end) : AxisGroup(t.shape(), t.strides(), begin, end) {}
  int64_t operator[](int64_t i) const { return unit ? i : table[i]; }
};

// An index already checked to lie in [-n, n), as a position in [0, n).
template <class I>
inline int64_t wrap_index(I v, int64_t n) {
  int64_t i = int64_t(v);
  return i < 0 ? i + n : i;
}

// Sets every byte of a contiguous tensor to zero (0, 0.0, false and 0+0i are all zero bits).
inline void zero_fill(Tensor& t) {
  char* p = static_cast<char*>(t.raw_data());
  int64_t bytes = int64_t(t.nbytes());
  constexpr int64_t kBlock = 1 << 20;
  int64_t blocks = (bytes + kBlock - 1) / kBlock;
  // blocks > 1 implies bytes >= kParallelGrain, so this threads exactly when blocks > 1.
  parallel_for(blocks, bytes, [&](int64_t b) {
    std::memset(p + b * kBlock, 0, size_t(std::min(kBlock, bytes - b * kBlock)));
  });
}

// Fills a contiguous tensor with one value.
inline void fill_value(Tensor& t, Scalar v) {
  visit_dtype(t.dtype(), [&]<class T>() {
    T x = v.to<T>();
    T* p = t.data<T>();
    int64_t n = t.numel();
    if (n < kParallelGrain) {  // serial without entering the OpenMP runtime
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) p[i] = x;
      return;
    }
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) p[i] = x;
  });
}

// Fills any view with one value.
inline void fill_view(Tensor& view, Scalar v) {
  visit_dtype(view.dtype(), [&]<class T>() {
    T x = v.to<T>();
    map<T>(view, [x]() { return x; });
  });
}

// Fills y with v outside the box [lo[d], hi[d]) of every axis d: the border of a pad, the
// complement of a unit-step slice. Corners are written more than once, with the same value.
inline void fill_outside(Tensor& y, const Shape& lo, const Shape& hi, Scalar v) {
  for (int64_t d = 0; d < y.dim(); ++d) {
    int64_t n = y.shape()[d];
    for (auto [a, b] : {std::pair{int64_t(0), lo[d]}, std::pair{hi[d], n}}) {
      if (b <= a) continue;
      Shape s = y.shape();
      s[d] = b - a;
      Tensor slab = make_view(y, s, y.strides(), y.offset() + a * y.strides()[d]);
      fill_view(slab, v);
    }
  }
}

// Runs body(p, j0, j1) over the grid [0, P) x [0, J), each (p, j) exactly once, in tasks of whole
// ranges of j: in parallel when P * J * inner (the work) is large, with enough tasks to keep every
// thread busy even when P is 1. Which thread runs a task never changes what it computes, so the
// scatter kernels, whose tasks own disjoint outputs, stay deterministic.
template <class F>
void for_each_block(int64_t P, int64_t J, int64_t inner, F&& body) {
  int threads = omp_get_max_threads();
  if (P * J * inner < kParallelGrain || threads == 1 || P * J <= 1) {
    for (int64_t p = 0; p < P; ++p) body(p, int64_t(0), J);
    return;
  }
  int64_t want = 4 * int64_t(threads);
  int64_t per_p = P >= want ? 1 : (want + P - 1) / P;
  int64_t jb = std::max<int64_t>(1, (J + per_p - 1) / per_p);
  int64_t nb = (J + jb - 1) / jb;
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < P * nb; ++t) {
    int64_t p = t / nb, j0 = (t % nb) * jb;
    body(p, j0, std::min(J, j0 + jb));
  }
}

// Calls f.template operator()<I>() with the C++ type of an index tensor (int32 or int64).
template <class F>
decltype(auto) visit_index(DType t, F&& f) {
  if (t == DType::Int32) return f.template operator()<int32_t>();
  return f.template operator()<int64_t>();
}

}  // namespace spire::cpu
