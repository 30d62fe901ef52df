// Loop machinery shared by the CPU kernels: strided n-d iteration over operands of one shape
// (inputs already broadcast to the output's shape, stride 0 along broadcast axes), with a
// contiguous fast path the compiler vectorises and OpenMP threads for large tensors.
#pragma once
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <utility>

#include "engine/core/tensor.h"

namespace spire::cpu {

// Below this many elements a loop runs on one thread: forking costs more than it saves.
constexpr int64_t kParallelGrain = 1 << 15;

// Runs body(i) for i in [0, n): on OpenMP threads when `work` (about the element count touched)
// reaches kParallelGrain, else on this thread without entering the OpenMP runtime at all (even
// `omp parallel if(false)` costs about a microsecond, more than a small op).
template <class Body>
void parallel_for(int64_t n, int64_t work, Body&& body) {
  if (work < kParallelGrain || n < 2) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) body(i);
}

// A view of `t` broadcast to `shape` (stride 0 along new or size-1 axes). Semantics were checked
// by the op's infer; this only re-describes memory.
Tensor broadcast_view(const Tensor& t, const Shape& shape);

// Iteration plan for N operands of a common shape: dimensions are merged where every operand is
// contiguous across them, so most loops end up one long row.
template <size_t N>
struct StridedPlan {
  Shape shape;                                 // merged shape, innermost last
  std::array<std::vector<int64_t>, N> strides;  // per operand, in elements

  StridedPlan(const Shape& full_shape, const std::array<const Shape*, N>& full_strides) {
    for (size_t d = 0; d < full_shape.size(); ++d) {
      if (full_shape[d] == 1) continue;
      bool merge = !shape.empty();
      for (size_t k = 0; k < N && merge; ++k)
        merge = strides[k].back() == (*full_strides[k])[d] * full_shape[d];
      if (merge) {
        shape.back() *= full_shape[d];
        for (size_t k = 0; k < N; ++k) strides[k].back() = (*full_strides[k])[d];
      } else {
        shape.push_back(full_shape[d]);
        for (size_t k = 0; k < N; ++k) strides[k].push_back((*full_strides[k])[d]);
      }
    }
    if (shape.empty()) {
      shape.push_back(1);
      for (auto& s : strides) s.push_back(0);
    }
  }
  int64_t inner() const { return shape.back(); }
  int64_t rows() const {
    int64_t r = 1;
    for (size_t d = 0; d + 1 < shape.size(); ++d) r *= shape[d];
    return r;
  }
  // Element offsets of each operand at the start of row r.
  std::array<int64_t, N> row_offsets(int64_t r) const {
    std::array<int64_t, N> off{};
    for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) {
      int64_t i = r % shape[d];
      r /= shape[d];
      for (size_t k = 0; k < N; ++k) off[k] += i * strides[k][d];
    }
    return off;
  }
};

// Calls row(offsets, n, inner_strides) for every innermost row, in parallel when large.
template <size_t N, class RowFn>
void for_each_row(const StridedPlan<N>& plan, RowFn&& row) {
  int64_t rows = plan.rows(), n = plan.inner();
  std::array<int64_t, N> inner_strides;
  for (size_t k = 0; k < N; ++k) inner_strides[k] = plan.strides[k].back();
  // A serial branch of its own: even `omp parallel if(false)` enters the runtime, which costs
  // more than a small op.
  if (rows * n < kParallelGrain || rows == 1) {
    for (int64_t r = 0; r < rows; ++r) row(plan.row_offsets(r), n, inner_strides);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) row(plan.row_offsets(r), n, inner_strides);
}

// Calls body(lo, hi) over [0, total) in fixed chunks: one call below kParallelGrain, else chunks on
// OpenMP threads. Chunk bounds do not depend on the thread count.
template <class Body>
void flat_for(int64_t total, Body&& body) {
  constexpr int64_t kChunk = 1 << 14;
  if (total < kParallelGrain) {
    body(0, total);
    return;
  }
  int64_t chunks = (total + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) body(c * kChunk, std::min(total, (c + 1) * kChunk));
}

namespace detail {
template <class Out, class... In, class F, size_t... I>
void map_impl(Tensor& out, F& f, std::index_sequence<I...>, const std::array<Tensor, sizeof...(In)>& ins) {
  constexpr size_t N = sizeof...(In) + 1;
  Out* po = out.data<Out>();
  std::tuple<const In*...> pin{static_cast<const In*>(ins[I].raw_data())...};
  int64_t total = out.numel();
  bool flat = out.is_contiguous() && (ins[I].is_contiguous() && ... && true);
  if (flat) {
    flat_for(total, [&](int64_t lo, int64_t hi) {
#pragma omp simd
      for (int64_t i = lo; i < hi; ++i) po[i] = f(std::get<I>(pin)[i]...);
    });
    return;
  }
  // A tensor with a number (x * 2.0 + 1.0): hoist the number out so the loop stays vectorised.
  if constexpr (sizeof...(In) == 2) {
    auto scalar = [](const Tensor& t) {
      for (int64_t st : t.strides())
        if (st != 0) return false;
      return true;
    };
    if (out.is_contiguous()) {
      auto [a, b] = pin;
      if (ins[0].is_contiguous() && scalar(ins[1])) {
        auto vb = *b;
        flat_for(total, [&](int64_t lo, int64_t hi) {
#pragma omp simd
          for (int64_t i = lo; i < hi; ++i) po[i] = f(a[i], vb);
        });
        return;
      }
      if (scalar(ins[0]) && ins[1].is_contiguous()) {
        auto va = *a;
        flat_for(total, [&](int64_t lo, int64_t hi) {
#pragma omp simd
          for (int64_t i = lo; i < hi; ++i) po[i] = f(va, b[i]);
        });
        return;
      }
    }
  }
  std::array<const Shape*, N> strides{&out.strides(), &ins[I].strides()...};
  StridedPlan<N> plan(out.shape(), strides);
  for_each_row(plan, [&](const std::array<int64_t, N>& off, int64_t n, const std::array<int64_t, N>& st) {
    Out* o = po + off[0];
    std::tuple<const In*...> q{std::get<I>(pin) + off[I + 1]...};
    // Rows along which the output is contiguous and a binary op's operands are contiguous or one
    // repeated number (a per-channel bias over an image row): loops that vectorise.
    if constexpr (sizeof...(In) == 2) {
      if (st[0] == 1 && st[1] <= 1 && st[2] <= 1 && n > 1) {
        auto [a, b] = q;
        if (st[1] == 1 && st[2] == 0) {
          auto vb = *b;
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], vb);
        } else if (st[1] == 0 && st[2] == 1) {
          auto va = *a;
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) o[i] = f(va, b[i]);
        } else if (st[1] == 1 && st[2] == 1) {
#pragma omp simd
          for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
        } else {
          auto v = f(*a, *b);
          for (int64_t i = 0; i < n; ++i) o[i] = v;
        }
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) o[i * st[0]] = f(std::get<I>(q)[i * st[I + 1]]...);
  });
}
}  // namespace detail

// out[i] = f(in[i]...) over tensors broadcastable to out's shape. `Out` and `In...` are the
// element types; the caller has settled dtypes.
template <class Out, class... In, class F>
void map(Tensor& out, F f, const std::conditional_t<true, Tensor, In>&... in) {
  if (out.numel() == 0) return;
  std::array<Tensor, sizeof...(In)> ins{broadcast_view(in, out.shape())...};
  detail::map_impl<Out, In...>(out, f, std::index_sequence_for<In...>{}, ins);
}

// Fills a contiguous tensor with one value.
void fill_value(Tensor& t, Scalar v);

// Copies src (any strides, same shape) into dst (any strides), converting element types.
void copy_into(const Tensor& src, Tensor& dst);

}  // namespace spire::cpu
