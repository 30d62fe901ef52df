// Reductions on the GPU in a fixed order: the bits of every result depend on the input's shape and
// layout only, never on the grid size, the number of SMs or the timing of blocks (no atomics).
//
// The work of one pass is cut into units of TX outputs by one chunk of the reduction. A unit is one
// block of kThreads = TX * TY threads: thread (tx, ty) folds the reduced indices ty, ty + TY,
// ty + 2 TY, ... of its chunk in sequence (at most kPerThread of them), then the TY lane results
// of each output are combined by a fixed tree in shared memory. A reduction longer than one chunk
// leaves one partial per chunk, and the partials are reduced by the next pass the same way. TX,
// TY and the chunk length follow from the shape alone, and a block that runs several units
// (the grid is capped) computes each exactly as a fresh block would.
//
// Two layouts of a unit, chosen by where memory is contiguous:
//  - along the reduction (a row sum, a full sum): TY = up to 256 lanes run along the reduced axis,
//    consecutive threads read consecutive elements; short rows (TY < 256) pack TX rows per block;
//  - along the kept axes (a column sum such as a bias gradient [N, K] over N): TX = up to 32
//    consecutive outputs per warp, TY rows in parallel, so reads are coalesced across outputs.
//
// Integers accumulate in uint64 (wrapping, as the CPU's int64 accumulators do, without signed
// overflow) and are narrowed once; floating and complex types in their own precision, as on the
// CPU, made accurate by the short sequential runs and the trees. amax/amin propagate NaN;
// argmax/argmin return the first index of the extreme with NaN the most extreme, exactly the CPU's
// answer whatever the order: their combine breaks ties by the smaller index.
#include <algorithm>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <utility>
#include <vector>

#include "engine/backends/cuda/device_types.cuh"
#include "engine/backends/cuda/reduce.h"

namespace spire::cuda {
namespace {

// Elements one thread folds in sequence within a chunk: long enough to amortise the tree, short
// enough that float32 rounding stays at the level of a pairwise sum.
constexpr int kPerThread = 32;
// Loads a thread issues before using them, so that memory latency overlaps.
constexpr int kUnroll = 4;

// ---- monoids: identity, combine, lift (an input element or a partial into Acc), finish --------

template <class T>
using SumAcc = ::cuda::std::conditional_t<::cuda::std::is_integral_v<T>, uint64_t, T>;

template <class T>
struct Sum {
  using Acc = SumAcc<T>;
  using Out = T;
  static SPIRE_HD Acc identity() { return Acc(0); }
  static SPIRE_HD Acc combine(Acc a, Acc b) { return a + b; }
  template <class In>
  static SPIRE_HD Acc lift(In v, int64_t) { return static_cast<Acc>(v); }
  static SPIRE_HD Out finish(Acc a) { return static_cast<Out>(a); }
};

template <class T>
struct Prod {
  using Acc = SumAcc<T>;
  using Out = T;
  static SPIRE_HD Acc identity() { return Acc(1); }
  static SPIRE_HD Acc combine(Acc a, Acc b) { return a * b; }
  template <class In>
  static SPIRE_HD Acc lift(In v, int64_t) { return static_cast<Acc>(v); }
  static SPIRE_HD Out finish(Acc a) { return static_cast<Out>(a); }
};

// As the CPU's MaxMonoid/MinMonoid: a NaN, once met, is kept.
template <class T, bool kMax>
struct Extreme {
  using Acc = T;
  using Out = T;
  static SPIRE_HD Acc identity() {
    using L = ::cuda::std::numeric_limits<T>;
    if constexpr (L::has_infinity) return kMax ? -L::infinity() : L::infinity();
    else return kMax ? L::lowest() : L::max();
  }
  static SPIRE_HD Acc combine(Acc a, Acc b) {
    Acc m = kMax ? (b > a ? b : a) : (b < a ? b : a);
    if constexpr (::cuda::std::is_floating_point_v<T>) return b != b ? b : m;
    else return m;
  }
  template <class In>
  static SPIRE_HD Acc lift(In v, int64_t) { return v; }
  static SPIRE_HD Out finish(Acc a) { return a; }
};

template <class T>
struct ArgAcc {
  T v;
  int64_t i;  // -1: no element yet
};

// (value, index) pairs. The combine is commutative and associative: the winner is the NaN with the
// smallest index if there is a NaN, else the extreme value with the smallest index. So any fixed
// tree gives the CPU's sequential answer.
template <class T, bool kMax>
struct Arg {
  using Acc = ArgAcc<T>;
  using Out = int64_t;
  static SPIRE_HD Acc identity() { return Acc{T(0), -1}; }
  static SPIRE_HD bool beats(T x, T y) { return kMax ? x > y : x < y; }
  static SPIRE_HD Acc combine(Acc a, Acc b) {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    bool an = a.v != a.v, bn = b.v != b.v;
    if (an != bn) return an ? a : b;
    if (!an) {
      if (beats(b.v, a.v)) return b;
      if (beats(a.v, b.v)) return a;
    }
    return b.i < a.i ? b : a;
  }
  static SPIRE_HD Acc lift(T v, int64_t r) { return Acc{v, r}; }
  static SPIRE_HD Acc lift(Acc a, int64_t) { return a; }
  static SPIRE_HD Out finish(Acc a) { return a.i; }
};

// ---- one pass ------------------------------------------------------------------------------

struct Pass {
  ReduceGeometry g;
  int64_t rstep[kMaxDims];  // TY written in the mixed radix of the reduced sizes (innermost first)
  int64_t chunk;            // reduced indices per unit: TY * kPerThread
  int64_t n_chunks, tiles;  // units: tiles (of TX outputs) times chunks
  int tx, ty;               // TX * TY == kThreads
  bool lanes_fast;          // thread t = ty + TY tx (lanes along the reduction), else t = tx + TX ty
  bool chunk_major;         // partials stored [n_chunks, n_out], else [n_out, n_chunks]
};

// Offset of kept element o.
SPIRE_HD __forceinline__ int64_t kept_offset(const ReduceGeometry& g, int64_t o) {
  int64_t off = 0;
#pragma unroll
  for (int d = 0; d < kMaxDims; ++d)
    if (d < g.nk) {
      off += (o % g.ksize[d]) * g.kstride[d];
      o /= g.ksize[d];
    }
  return off;
}

// Lane ty's fold of chunk c of output o. kOneDim: at most one reduced dimension, so the offset of
// r is r times its stride; otherwise an odometer over the reduced dimensions advances by TY per
// element with additions only (each digit of TY is below its dimension's size, so one carry test
// per digit suffices).
template <class M, class In, bool kOneDim>
SPIRE_HD __forceinline__ typename M::Acc fold_lane(const Pass& p, const In* __restrict__ x, int64_t o, int64_t c,
                                                   int ty) {
  using Acc = typename M::Acc;
  const ReduceGeometry& g = p.g;
  Acc acc = M::identity();
  int64_t r = c * p.chunk + ty;
  const int64_t end = g.n_red < (c + 1) * p.chunk ? g.n_red : (c + 1) * p.chunk;
  if (r >= end) return acc;
  int64_t off = kept_offset(g, o);
  int64_t idx[kMaxDims];
  int64_t step1 = 0;
  if constexpr (kOneDim) {
    int64_t s = g.nr > 0 ? g.rstride[0] : 0;
    off += r * s;
    step1 = int64_t(p.ty) * s;
  } else {
    int64_t q = r;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d)
      if (d < g.nr) {
        idx[d] = q % g.rsize[d];
        q /= g.rsize[d];
        off += idx[d] * g.rstride[d];
      }
  }
  while (r < end) {
    In v[kUnroll];
    int64_t rr[kUnroll];
    int cnt = 0;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (r < end) {
        v[u] = x[off];
        rr[u] = r;
        ++cnt;
        r += p.ty;
        if constexpr (kOneDim) {
          off += step1;
        } else {
          int64_t carry = 0;
#pragma unroll
          for (int d = 0; d < kMaxDims; ++d)
            if (d < g.nr) {
              int64_t s = p.rstep[d] + carry;
              idx[d] += s;
              off += s * g.rstride[d];
              carry = 0;
              if (d + 1 < g.nr && idx[d] >= g.rsize[d]) {
                idx[d] -= g.rsize[d];
                off -= g.rsize[d] * g.rstride[d];
                carry = 1;
              }
            }
        }
      }
    // In index order: the same sequence as a plain loop, only the loads were hoisted.
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (u < cnt) acc = M::combine(acc, M::lift(v[u], rr[u]));
  }
  return acc;
}

// One pass: each unit folds its chunk per lane, combines the TY lanes by a fixed tree, and
// writes the result (final) or the chunk's partial.
template <class M, class In, bool kOneDim>
__global__ void __launch_bounds__(kThreads) reduce_kernel(const Pass p, const In* __restrict__ x, void* out,
                                                          bool final) {
  using Acc = typename M::Acc;
  // Raw storage: Acc may be a complex number, whose constructors __shared__ variables may not have.
  __shared__ __align__(16) unsigned char smem[kThreads * sizeof(Acc)];
  Acc* sh = reinterpret_cast<Acc*>(smem);
  const int t = int(threadIdx.x);
  const int tx = p.lanes_fast ? t / p.ty : t % p.tx;
  const int ty = p.lanes_fast ? t % p.ty : t / p.tx;
  const int lane_gap = p.lanes_fast ? 1 : p.tx;  // sh distance between lanes ty and ty + 1
  const int64_t units = p.tiles * p.n_chunks;
  for (int64_t b = blockIdx.x; b < units; b += gridDim.x) {
    const int64_t tile = b / p.n_chunks, c = b - tile * p.n_chunks;
    const int64_t o = tile * p.tx + tx;
    Acc acc = M::identity();
    if (o < p.g.n_out) acc = fold_lane<M, In, kOneDim>(p, x, o, c, ty);
    sh[t] = acc;
    __syncthreads();
    for (int s = p.ty / 2; s > 0; s /= 2) {
      if (ty < s) sh[t] = M::combine(sh[t], sh[t + s * lane_gap]);
      __syncthreads();
    }
    if (ty == 0 && o < p.g.n_out) {
      if (final) static_cast<typename M::Out*>(out)[o] = M::finish(sh[t]);
      else static_cast<Acc*>(out)[p.chunk_major ? c * p.g.n_out + o : o * p.n_chunks + c] = sh[t];
    }
    __syncthreads();  // sh is reused by this block's next unit
  }
}

// ---- planning (host) -----------------------------------------------------------------------

int64_t pow2_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

Pass plan(const ReduceGeometry& g) {
  Pass p{};
  p.g = g;
  const int64_t n_red = g.n_red > 0 ? g.n_red : 1;
  // Coalesce along the reduction when its innermost stride is the smaller one (or nothing is kept).
  const bool along_reduction = g.nk == 0 || (g.nr > 0 && abs64(g.rstride[0]) < abs64(g.kstride[0]));
  if (along_reduction) {
    p.ty = int(pow2_at_least(n_red) < kThreads ? pow2_at_least(n_red) : kThreads);
    p.tx = kThreads / p.ty;
    p.lanes_fast = true;
  } else {
    p.tx = int(pow2_at_least(g.ksize[0]) < 32 ? pow2_at_least(g.ksize[0]) : 32);
    p.ty = kThreads / p.tx;
    if (pow2_at_least(n_red) < p.ty) {  // short reductions: more outputs per block instead of idle lanes
      p.ty = int(pow2_at_least(n_red));
      p.tx = kThreads / p.ty;
    }
    p.lanes_fast = false;
  }
  p.chunk = int64_t(p.ty) * kPerThread;
  p.n_chunks = (n_red + p.chunk - 1) / p.chunk;
  p.tiles = (g.n_out + p.tx - 1) / p.tx;
  p.chunk_major = !along_reduction;
  int64_t rem = p.ty;
  for (int d = 0; d < g.nr; ++d) {
    if (d + 1 < g.nr) {
      p.rstep[d] = rem % g.rsize[d];
      rem /= g.rsize[d];
    } else {
      p.rstep[d] = rem;
    }
  }
  return p;
}

// The partials of pass p, as the input of the next pass: [n_out] kept, [n_chunks] reduced.
ReduceGeometry partial_geometry(const Pass& p) {
  ReduceGeometry g;
  g.n_out = p.g.n_out;
  g.n_red = p.n_chunks;
  if (g.n_out > 1) {
    g.nk = 1;
    g.ksize[0] = g.n_out;
    g.kstride[0] = p.chunk_major ? 1 : p.n_chunks;
  }
  g.nr = 1;
  g.rsize[0] = p.n_chunks;
  g.rstride[0] = p.chunk_major ? g.n_out : 1;
  return g;
}

// Launches one pass on the current stream.
struct DeviceRunner {
  template <class M, class In>
  cudaError_t operator()(const Pass& p, const In* x, void* out, bool final) const {
    const int64_t units = p.tiles * p.n_chunks;
    // Units beyond the grid are taken by the grid-stride loop; the cap changes no result.
    const unsigned grid = unsigned(units < (int64_t(1) << 30) ? units : (int64_t(1) << 30));
    if (p.g.nr <= 1)
      reduce_kernel<M, In, true><<<grid, kThreads, 0, current_stream()>>>(p, x, out, final);
    else
      reduce_kernel<M, In, false><<<grid, kThreads, 0, current_stream()>>>(p, x, out, final);
    return cudaGetLastError();
  }
};

// All passes of one reduction: the input's, then the partials' until one chunk is left. `run`
// executes a pass (a launch; a host emulation in tests).
template <class M, class T, class Runner = DeviceRunner>
cudaError_t reduce_all(const ReduceGeometry& g, const T* in, void* out, const ScratchFn& scratch,
                       const Runner& run = Runner()) {
  using Acc = typename M::Acc;
  if (g.n_out <= 0) return cudaSuccess;
  Pass p = plan(g);
  if (p.n_chunks == 1) return run.template operator()<M, T>(p, in, out, true);
  auto partials = [&](const Pass& q) {
    return static_cast<Acc*>(scratch(sizeof(Acc) * size_t(q.g.n_out) * size_t(q.n_chunks)));
  };
  Acc* part = partials(p);
  if (!part) return cudaErrorMemoryAllocation;
  cudaError_t err = run.template operator()<M, T>(p, in, part, false);
  while (err == cudaSuccess) {
    p = plan(partial_geometry(p));
    if (p.n_chunks == 1) return run.template operator()<M, Acc>(p, part, out, true);
    Acc* next = partials(p);
    if (!next) return cudaErrorMemoryAllocation;
    err = run.template operator()<M, Acc>(p, part, next, false);
    part = next;
  }
  return err;
}

}  // namespace

bool reduce_geometry(int ndim, const int64_t* shape, const int64_t* strides, int naxes, const int64_t* axes,
                     ReduceGeometry& g) {
  using Dims = std::vector<std::pair<int64_t, int64_t>>;  // (size, stride), outermost first
  // Neighbours that walk memory as one dimension (outer stride = inner stride * inner size) merge.
  auto merged = [](const Dims& dims) {
    Dims out;
    for (const auto& d : dims) {
      if (!out.empty() && out.back().second == d.second * d.first) out.back() = {out.back().first * d.first, d.second};
      else out.push_back(d);
    }
    return out;
  };
  g = ReduceGeometry();
  Dims kept, red;
  for (int d = 0; d < ndim; ++d) {
    const bool reduced = std::binary_search(axes, axes + naxes, int64_t(d));
    (reduced ? g.n_red : g.n_out) *= shape[d];
    if (shape[d] != 1) (reduced ? red : kept).emplace_back(shape[d], strides[d]);
  }
  if (g.n_red == 0 || g.n_out == 0) return true;  // nothing is read: identities (or nothing) are written
  // The order of the reduced dimensions depends on the layout only; an arg-reduction has one, so
  // r stays its index.
  std::stable_sort(red.begin(), red.end(), [](const auto& a, const auto& b) {
    return (a.second < 0 ? -a.second : a.second) > (b.second < 0 ? -b.second : b.second);
  });
  kept = merged(kept);
  red = merged(red);
  if (int(kept.size()) > kMaxDims || int(red.size()) > kMaxDims) return false;
  g.nk = int(kept.size());
  for (int i = 0; i < g.nk; ++i) {
    g.ksize[i] = kept[kept.size() - 1 - i].first;
    g.kstride[i] = kept[kept.size() - 1 - i].second;
  }
  g.nr = int(red.size());
  for (int i = 0; i < g.nr; ++i) {
    g.rsize[i] = red[red.size() - 1 - i].first;
    g.rstride[i] = red[red.size() - 1 - i].second;
  }
  return true;
}

cudaError_t launch_reduce(ReduceOp op, Elem elem, const ReduceGeometry& g, const void* in, void* out,
                          const ScratchFn& scratch) {
  return visit_elem(elem, [&]<class T>() -> cudaError_t {
    const T* x = static_cast<const T*>(in);
    if constexpr (is_complex_v<T>) {
      if (op == ReduceOp::Sum) return reduce_all<Sum<T>>(g, x, out, scratch);
      if (op == ReduceOp::Prod) return reduce_all<Prod<T>>(g, x, out, scratch);
      return cudaErrorInvalidValue;  // complex numbers have no order
    } else {
      switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Prod:
          if constexpr (::cuda::std::is_same_v<T, bool>) {
            return cudaErrorInvalidValue;  // the public functions cast bool to int64 first
          } else {
            return op == ReduceOp::Sum ? reduce_all<Sum<T>>(g, x, out, scratch)
                                       : reduce_all<Prod<T>>(g, x, out, scratch);
          }
        case ReduceOp::Max: return reduce_all<Extreme<T, true>>(g, x, out, scratch);
        case ReduceOp::Min: return reduce_all<Extreme<T, false>>(g, x, out, scratch);
        case ReduceOp::ArgMax: return reduce_all<Arg<T, true>>(g, x, out, scratch);
        case ReduceOp::ArgMin: return reduce_all<Arg<T, false>>(g, x, out, scratch);
      }
      return cudaErrorInvalidValue;
    }
  });
}

}  // namespace spire::cuda
