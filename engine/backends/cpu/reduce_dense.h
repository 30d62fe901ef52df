// Fast, deterministic reductions of dense tensors (contiguous, or a permutation of contiguous).
//
// Adjacent axes are merged into alternating groups of kept and reduced axes, and the reduction is
// done in passes, innermost reduced group first:
//  - inner pass (the last group is reduced): every row of m contiguous elements is folded with
//    a pairwise tree whose leaves use L independent lane accumulators, so the loop vectorises and
//    float rounding error grows like log(m), not m (as NumPy's pairwise sum);
//  - outer pass (the last group is kept): rows of K contiguous elements are folded into an output
//    row, vectorised along the row, again as a pairwise tree over rows (the bias-gradient case:
//    [1024, 256] summed over axis 0 never walks memory with a stride).
// Short rows (m <= 8) are folded 16 rows at a time across vector lanes, and narrow columns
// (K < 16, as [N, 3] over N) are read as wider rows of several original rows.
// The tree of every output element depends only on the shape: long rows are cut into fixed chunks
// whose partials are combined in a fixed tree, and threads only decide who computes which chunk,
// so the bits never depend on the number of threads.
#pragma once
#include <omp.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "engine/backends/cpu/reduce_loops.h"

namespace spire::cpu {

// Monoids: an accumulator type, its identity and an associative combine.
template <class A>
struct SumMonoid {
  using Acc = A;
  static Acc identity() { return Acc(0); }
  static Acc combine(Acc a, Acc b) { return a + b; }
};
template <class A>
struct ProdMonoid {
  using Acc = A;
  static Acc identity() { return Acc(1); }
  static Acc combine(Acc a, Acc b) { return a * b; }
};
// max and min propagate NaN (as NumPy's amax): once a lane holds NaN it keeps it.
template <class A>
struct MaxMonoid {
  using Acc = A;
  static Acc identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  // Written as a max and a NaN blend, which vectorise (vmaxpd, vcmpneqpd, vblendvpd).
  static Acc combine(Acc a, Acc b) {
    Acc m = b > a ? b : a;  // keeps a NaN already in a
    if constexpr (std::is_floating_point_v<A>) return b != b ? b : m;
    else return m;
  }
};
template <class A>
struct MinMonoid {
  using Acc = A;
  static Acc identity() {
    if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  static Acc combine(Acc a, Acc b) {
    Acc m = b < a ? b : a;
    if constexpr (std::is_floating_point_v<A>) return b != b ? b : m;
    else return m;
  }
};

namespace dense {

// A plain array (std::vector<bool> has no data()).
template <class T>
class Buffer {
 public:
  explicit Buffer(int64_t n = 0) : p_(n > 0 ? new T[n] : nullptr) {}
  T* data() { return p_.get(); }
  T& operator[](int64_t i) { return p_[i]; }

 private:
  std::unique_ptr<T[]> p_;
};

// Lanes per leaf: four AVX registers' worth, so a leaf keeps four independent dependency chains
// per lane group in flight.
template <class Acc>
constexpr int kLanes = std::clamp(int(128 / sizeof(Acc)), 8, 32);
// Each lane sums at most 16 elements before the tree takes over (NumPy's pairwise block is 128
// elements over 8 lanes).
template <class Acc>
constexpr int64_t kLeaf = 16 * kLanes<Acc>;
// Long rows are cut here; chunks are computed in any order, their partials combined in a fixed tree.
constexpr int64_t kRunChunk = int64_t(1) << 15;
// Rows of an outer pass handled by one task before partials are combined in a fixed tree.
constexpr int64_t kRowChunk = 1024;
// Outer pass: rows up to this many are summed in sequence (a leaf of the tree over rows).
constexpr int64_t kRowLeaf = 8;

template <class M, class In>
typename M::Acc leaf(const In* x, int64_t n) {
  using Acc = typename M::Acc;
  if (n <= 8) {
    Acc a = M::identity();
    for (int64_t i = 0; i < n; ++i) a = M::combine(a, Acc(x[i]));
    return a;
  }
  // Fixed-size lane loops only (the tail is padded with the identity), so the accumulators stay
  // in registers.
  constexpr int L = kLanes<Acc>;
  Acc acc[L], tail[L];
  for (int j = 0; j < L; ++j) acc[j] = M::identity();
  int64_t i = 0;
  // `omp simd`: the lanes are independent, and it stops the compiler from unrolling them into
  // scalar code before it vectorises.
  for (; i + L <= n; i += L)
#pragma omp simd
    for (int j = 0; j < L; ++j) acc[j] = M::combine(acc[j], Acc(x[i + j]));
  if (i < n) {
    for (int j = 0; j < L; ++j) tail[j] = i + j < n ? Acc(x[i + j]) : M::identity();
    for (int j = 0; j < L; ++j) acc[j] = M::combine(acc[j], tail[j]);
  }
  for (int w = L / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] = M::combine(acc[j], acc[j + w]);
  return acc[0];
}

// Pairwise tree over n contiguous elements; the split points depend on n only.
template <class M, class In>
typename M::Acc pairwise(const In* x, int64_t n) {
  using Acc = typename M::Acc;
  if (n <= kLeaf<Acc>) return leaf<M>(x, n);
  int64_t h = n / 2;
  h -= h % kLanes<Acc>;
  return M::combine(pairwise<M>(x, h), pairwise<M>(x + h, n - h));
}

// out[r] = fold of x[r*m .. r*m + m) for r < rows.
template <class M, class In>
void inner_pass(const In* x, int64_t rows, int64_t m, typename M::Acc* out) {
  using Acc = typename M::Acc;
  int64_t chunks = (m + kRunChunk - 1) / kRunChunk;
  if (m <= 8) {
    // Short rows: the same sequential fold as leaf(), computed for 16 rows at once so that the
    // work runs across rows in vector lanes.
    constexpr int64_t G = 16;
    int64_t groups = rows / G;
    parallel_for(groups, rows * m, [&](int64_t q) {
      const In* base = x + q * G * m;
      Acc acc[G];
      for (int64_t r = 0; r < G; ++r) acc[r] = M::identity();
      for (int64_t k = 0; k < m; ++k)
#pragma omp simd
        for (int64_t r = 0; r < G; ++r) acc[r] = M::combine(acc[r], Acc(base[r * m + k]));
      for (int64_t r = 0; r < G; ++r) out[q * G + r] = acc[r];
    });
    for (int64_t r = groups * G; r < rows; ++r) out[r] = leaf<M>(x + r * m, m);
    return;
  }
  if (chunks <= 1) {
    parallel_for(rows, rows * m, [&](int64_t r) { out[r] = pairwise<M>(x + r * m, m); });
    return;
  }
  Buffer<Acc> part(rows * chunks);
  parallel_for(rows * chunks, rows * m, [&](int64_t t) {
    int64_t r = t / chunks, c = t % chunks;
    part[t] = pairwise<M>(x + r * m + c * kRunChunk, std::min(kRunChunk, m - c * kRunChunk));
  });
  for (int64_t r = 0; r < rows; ++r) out[r] = pairwise<M>(part.data() + r * chunks, chunks);
}

// dst[0..w) = fold over `rows` rows (row stride `stride`) of x, as a pairwise tree over rows with
// sequential leaves of up to kRowLeaf rows. scratch holds w elements per tree level.
template <class M, class In>
void column_tree(const In* x, int64_t rows, int64_t stride, int64_t w, typename M::Acc* dst,
                 typename M::Acc* scratch) {
  using Acc = typename M::Acc;
  if (rows <= kRowLeaf) {
    // Blocks of L columns are folded down the rows in registers, then stored once.
    constexpr int L = kLanes<Acc>;
    int64_t j0 = 0;
    for (; j0 + L <= w; j0 += L) {
      Acc acc[L];
#pragma omp simd
      for (int j = 0; j < L; ++j) acc[j] = Acc(x[j0 + j]);
      for (int64_t r = 1; r < rows; ++r) {
        const In* q = x + r * stride + j0;
#pragma omp simd
        for (int j = 0; j < L; ++j) acc[j] = M::combine(acc[j], Acc(q[j]));
      }
#pragma omp simd
      for (int j = 0; j < L; ++j) dst[j0 + j] = acc[j];
    }
    if (j0 < w) {
#pragma omp simd
      for (int64_t j = j0; j < w; ++j) dst[j] = Acc(x[j]);
      for (int64_t r = 1; r < rows; ++r) {
        const In* q = x + r * stride;
#pragma omp simd
        for (int64_t j = j0; j < w; ++j) dst[j] = M::combine(dst[j], Acc(q[j]));
      }
    }
    return;
  }
  int64_t h = (rows / 2 + kRowLeaf - 1) / kRowLeaf * kRowLeaf;
  column_tree<M>(x, h, stride, w, dst, scratch + w);
  column_tree<M>(x + h * stride, rows - h, stride, w, scratch, scratch + w);
#pragma omp simd
  for (int64_t j = 0; j < w; ++j) dst[j] = M::combine(dst[j], scratch[j]);
}

// Levels of scratch column_tree needs for `rows` rows.
inline int64_t tree_depth(int64_t rows) {
  if (rows <= kRowLeaf) return 0;
  int64_t h = (rows / 2 + kRowLeaf - 1) / kRowLeaf * kRowLeaf;
  return 1 + std::max(tree_depth(h), tree_depth(rows - h));
}

// out[p, k] = fold over r of x[p, r, k] for x of shape [P, R, K] (contiguous).
template <class M, class In>
void outer_pass(const In* x, int64_t P, int64_t R, int64_t K, typename M::Acc* out) {
  using Acc = typename M::Acc;
  if (K < 16 && R >= 256) {
    // Narrow rows ([N, 3] summed over N): take g rows at a time as one row of g K elements, so
    // that the vector lanes are full, then fold the g partials of each column (and the rows left
    // over) in a fixed order.
    int64_t g = 64 / K, W = g * K, R2 = R / g, rest = R - R2 * g;
    Buffer<Acc> wide(W), tail(K), scratch(tree_depth(rest) * K);
    for (int64_t p = 0; p < P; ++p) {
      const In* xp = x + p * R * K;
      outer_pass<M>(xp, 1, R2, W, wide.data());
      if (rest) column_tree<M>(xp + R2 * W, rest, K, K, tail.data(), scratch.data());
      for (int64_t k = 0; k < K; ++k) {
        Acc a = wide[k];
        for (int64_t q = 1; q < g; ++q) a = M::combine(a, wide[q * K + k]);
        out[p * K + k] = rest ? M::combine(a, tail[k]) : a;
      }
    }
    return;
  }
  int64_t chunks = (R + kRowChunk - 1) / kRowChunk;
  // Column tiles only split work (columns are independent), so their width may follow the thread
  // count without changing any bit.
  int64_t threads = omp_get_max_threads();
  bool parallel = P * R * K >= kParallelGrain;
  int64_t tw = std::min<int64_t>(K, 512);
  if (parallel && P * chunks < threads)
    tw = std::max<int64_t>(64, std::min(tw, (K + threads - 1) / threads));
  int64_t tiles = (K + tw - 1) / tw;
  Buffer<Acc> part(chunks > 1 ? P * chunks * K : 0);
  int64_t tasks = P * tiles * chunks;
  // Task t with per-thread scratch; serial branches of their own, since even
  // `omp parallel if(false)` enters the OpenMP runtime (more than a small reduction costs).
  int64_t scratch_size = tree_depth(std::min(R, kRowChunk)) * tw;
  auto task = [&](int64_t t, Acc* scratch) {
    int64_t c = t % chunks, tile = (t / chunks) % tiles, p = t / (chunks * tiles);
    int64_t k0 = tile * tw, w = std::min(tw, K - k0);
    int64_t r0 = c * kRowChunk, rows = std::min(kRowChunk, R - r0);
    Acc* dst = chunks > 1 ? part.data() + (p * chunks + c) * K + k0 : out + p * K + k0;
    column_tree<M>(x + (p * R + r0) * K + k0, rows, K, w, dst, scratch);
  };
  if (parallel && tasks > 1) {
#pragma omp parallel
    {
      Buffer<Acc> scratch(scratch_size);
#pragma omp for schedule(static)
      for (int64_t t = 0; t < tasks; ++t) task(t, scratch.data());
    }
  } else {
    Buffer<Acc> scratch(scratch_size);
    for (int64_t t = 0; t < tasks; ++t) task(t, scratch.data());
  }
  if (chunks <= 1) return;
  // Chunk partials: a fixed tree over chunks, per output row.
  int64_t merge_size = tree_depth(chunks) * tw;
  auto merge_task = [&](int64_t t, Acc* scratch) {
    int64_t p = t / tiles, k0 = (t % tiles) * tw, w = std::min(tw, K - k0);
    column_tree<M>(part.data() + p * chunks * K + k0, chunks, K, w, out + p * K + k0, scratch);
  };
  if (parallel && P * tiles > 1) {
#pragma omp parallel
    {
      Buffer<Acc> scratch(merge_size);
#pragma omp for schedule(static)
      for (int64_t t = 0; t < P * tiles; ++t) merge_task(t, scratch.data());
    }
  } else {
    Buffer<Acc> scratch(merge_size);
    for (int64_t t = 0; t < P * tiles; ++t) merge_task(t, scratch.data());
  }
}

// A dense reduction problem: the input's axes in memory order (outermost first) with their
// reduced flags, and where each kept axis of the output lives.
struct DenseLayout {
  Shape shape;             // input axes of size > 1 in memory order
  std::vector<bool> red;   // per such axis
  Shape kept_shape;        // kept axes in memory order
  Shape kept_out_strides;  // their strides in the (contiguous, keepdims-free) output
  bool kept_in_order = true;
};

// The layout if `in` is dense (every element stored once, no gaps, any axis order), else false.
inline bool dense_layout(const Tensor& in, const Axes& axes, DenseLayout& L) {
  int64_t nd = in.dim();
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < nd; ++d)
    if (in.shape()[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t a, int64_t b) { return in.strides()[a] > in.strides()[b]; });
  int64_t expected = 1;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (in.strides()[*it] != expected) return false;
    expected *= in.shape()[*it];
  }
  // Output strides of kept axes in the original order (size-1 axes contribute nothing).
  Shape out_stride(nd, 0);
  int64_t s = 1;
  for (int64_t d = nd - 1; d >= 0; --d)
    if (!std::binary_search(axes.begin(), axes.end(), d)) {
      out_stride[d] = s;
      s *= in.shape()[d];
    }
  int64_t last_kept = -1;
  for (int64_t d : dims) {
    bool r = std::binary_search(axes.begin(), axes.end(), d);
    L.shape.push_back(in.shape()[d]);
    L.red.push_back(r);
    if (!r) {
      L.kept_shape.push_back(in.shape()[d]);
      L.kept_out_strides.push_back(out_stride[d]);
      if (d < last_kept) L.kept_in_order = false;
      last_kept = d;
    }
  }
  return true;
}

// Reduces dense `in` (element type In) over sorted `axes` into `out` (element type Out, contiguous).
template <class M, class In, class Out>
void reduce_dense(const Tensor& in, const Axes& axes, const DenseLayout& layout, Tensor& out) {
  using Acc = typename M::Acc;
  // Merge neighbouring axes of the same kind into groups.
  std::vector<std::pair<int64_t, bool>> g;
  for (size_t i = 0; i < layout.shape.size(); ++i) {
    if (!g.empty() && g.back().second == layout.red[i]) g.back().first *= layout.shape[i];
    else g.emplace_back(layout.shape[i], layout.red[i]);
  }
  auto reduced_groups = [&] {
    int n = 0;
    for (auto& [sz, r] : g) n += r;
    return n;
  };
  int passes = reduced_groups();
  int64_t n_out = out.numel();
  bool direct = std::is_same_v<Acc, Out> && layout.kept_in_order;
  Buffer<Acc> buf[2];
  const In* src_in = static_cast<const In*>(in.raw_data());
  const Acc* src_acc = nullptr;
  Acc* dst = nullptr;
  if (passes == 0) {  // nothing reduced: a conversion
    buf[0] = Buffer<Acc>(n_out);
    for (int64_t i = 0; i < n_out; ++i) buf[0][i] = Acc(src_in[i]);
    dst = buf[0].data();
  }
  for (int pass = 0; pass < passes; ++pass) {
    int64_t total = 1;
    for (auto& [sz, r] : g) total *= sz;
    bool last = pass == passes - 1;
    if constexpr (std::is_same_v<Acc, Out>)
      if (last && direct) dst = out.data<Out>();
    if (!(last && direct)) {
      buf[pass % 2] = Buffer<Acc>(total / g[g.back().second ? g.size() - 1 : g.size() - 2].first);
      dst = buf[pass % 2].data();
    }
    if (g.back().second) {
      int64_t m = g.back().first;
      if (pass == 0) inner_pass<M>(src_in, total / m, m, dst);
      else inner_pass<M>(src_acc, total / m, m, dst);
      g.pop_back();
    } else {
      size_t i = g.size() - 2;
      int64_t R = g[i].first, K = g.back().first, P = total / (R * K);
      if (pass == 0) outer_pass<M>(src_in, P, R, K, dst);
      else outer_pass<M>(src_acc, P, R, K, dst);
      g.erase(g.begin() + int64_t(i));
      if (i > 0) {
        g[i - 1].first *= g[i].first;
        g.erase(g.begin() + int64_t(i));
      }
    }
    src_acc = dst;
  }
  if (passes > 0 && direct) return;
  // Write the kept axes (in memory order) to their places in the output, converting Acc to Out.
  Out* o = out.data<Out>();
  const Shape& ks = layout.kept_shape;
  const Shape& kst = layout.kept_out_strides;
  int64_t nk = int64_t(ks.size());
  std::vector<int64_t> idx(nk, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n_out; ++i) {
    o[off] = Out(dst[i]);
    for (int64_t d = nk - 1; d >= 0; --d) {
      off += kst[d];
      if (++idx[d] < ks[d]) break;
      off -= kst[d] * ks[d];
      idx[d] = 0;
    }
  }
}

}  // namespace dense

// Folds `in` over sorted `axes` with monoid M into contiguous `out`, fast where `in` is dense and
// through the strided fold of reduce_loops.h otherwise (broadcast views). Both orders are fixed.
template <class M, class In, class Out>
void reduce_monoid(const Tensor& in, const Axes& axes, Tensor& out) {
  using Acc = typename M::Acc;
  if (out.numel() == 0) return;
  Out* o = out.data<Out>();
  if (in.numel() == 0) {  // empty reduction: the identity
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = Out(M::identity());
    return;
  }
  dense::DenseLayout layout;
  if (dense::dense_layout(in, axes, layout)) {
    dense::reduce_dense<M, In, Out>(in, axes, layout, out);
    return;
  }
  reduce<In, Acc>(
      in, axes, M::identity(), [](Acc acc, In v, int64_t) { return M::combine(acc, Acc(v)); },
      [](Acc a, Acc b) { return M::combine(a, b); }, [o](int64_t i, Acc v) { o[i] = Out(v); });
}

}  // namespace spire::cpu
