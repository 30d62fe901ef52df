// Cumulative sums and products along one axis, in a fixed order that depends on the shape only.
//
// Each column (one position of every other axis) is scanned by sequential folds, as on the CPU,
// in the CPU's accumulator types (integers in 64 bits, float32 in float64, complex64 in
// complex128). With many columns, one thread scans one column from end to end: the same sequence
// of operations as the CPU (the same bits for real types). Long axes with few columns (a cumsum over one long
// vector) are cut into chunks of kChunk elements so that the GPU has work for all its threads:
//   1. one thread per (column, chunk) folds its chunk into a total;
//   2. the totals, [outer, chunks, inner], get an exclusive scan of the same kind (recursively);
//   3. one thread per (column, chunk) scans its chunk again, starting from its prefix.
// Consecutive threads take consecutive positions of the inner axes, so reads and writes are
// coalesced whenever the scanned axis is not the innermost one.
#include <cuda/std/type_traits>

#include "engine/backends/cuda/device_types.cuh"
#include "engine/backends/cuda/scan.h"

namespace spire::cuda {
namespace {

// The CPU's ScanAcc, with integers unsigned: wrapping arithmetic without signed overflow, the same
// bits once narrowed.
template <class T>
using ScanAcc = ::cuda::std::conditional_t<
    ::cuda::std::is_integral_v<T>, uint64_t,
    ::cuda::std::conditional_t<::cuda::std::is_same_v<T, float>, double,
                               ::cuda::std::conditional_t<::cuda::std::is_same_v<T, c64>, c128, T>>>;

// Elements per chunk, and the number of columns from which each column gets one thread of its own.
constexpr int64_t kChunk = 256;
constexpr int64_t kEnoughColumns = int64_t(1) << 16;
constexpr int kUnroll = 4;

struct ScanPass {
  ScanGeometry g;
  int64_t chunk = 0, n_chunks = 1;  // chunk length (n for a direct scan) and how many per column
  bool exclusive = false, reverse = false;
};

template <bool Product, class Acc, class In>
SPIRE_HD __forceinline__ Acc fold(Acc a, In v) {
  Acc b = convert<Acc>(v);
  if constexpr (Product) return a * b;
  else return a + b;
}

template <bool Product, class Acc>
SPIRE_HD __forceinline__ Acc identity() {
  return Product ? Acc(1) : Acc(0);
}

// Thread t of a chunked pass: t = (o * n_chunks + c) * inner + i. Returns the input offset of the
// column's element 0 and sets o, c, i.
SPIRE_HD __forceinline__ int64_t locate(const ScanPass& p, int64_t t, int64_t& o, int64_t& c, int64_t& i) {
  const ScanGeometry& g = p.g;
  i = t % g.inner;
  int64_t rest = t / g.inner;
  c = rest % p.n_chunks;
  o = rest / p.n_chunks;
  int64_t q = o * g.inner + i, off = 0;
#pragma unroll
  for (int d = 0; d < kMaxDims; ++d)
    if (d < g.nk) {
      off += (q % g.ksize[d]) * g.kstride[d];
      q /= g.ksize[d];
    }
  return off;
}

// Walks positions [k0, k1) of the scan order (memory position n - 1 - k when reversed) of the
// column at `base`, calling body(pos, value) in order; loads are issued kUnroll at a time.
template <class In, class Body>
SPIRE_HD __forceinline__ void walk(const ScanPass& p, const In* __restrict__ x, int64_t base, int64_t k0,
                                   int64_t k1, Body&& body) {
  const int64_t n = p.g.n, s = p.g.axis_stride;
  for (int64_t k = k0; k < k1; k += kUnroll) {
    In v[kUnroll];
    int64_t pos[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (k + u < k1) {
        pos[u] = p.reverse ? n - 1 - (k + u) : k + u;
        v[u] = x[base + pos[u] * s];
      }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (k + u < k1) body(pos[u], v[u]);
  }
}

// Thread t of chunk_totals: the fold of its chunk.
template <bool Product, class In, class Acc>
SPIRE_HD __forceinline__ void chunk_total_at(const ScanPass& p, const In* __restrict__ x, Acc* __restrict__ totals,
                                             int64_t t) {
  int64_t o, c, i;
  const int64_t base = locate(p, t, o, c, i);
  const int64_t k0 = c * p.chunk, k1 = k0 + p.chunk < p.g.n ? k0 + p.chunk : p.g.n;
  Acc acc = identity<Product, Acc>();
  walk(p, x, base, k0, k1, [&](int64_t, In v) { acc = fold<Product>(acc, v); });
  totals[t] = acc;
}

// Thread t of chunk_scan: its chunk scanned from the chunk's prefix (the fold of everything before
// it; null for a direct scan, which has one chunk per column).
template <bool Product, class In, class Out, class Acc>
SPIRE_HD __forceinline__ void chunk_scan_at(const ScanPass& p, const In* __restrict__ x,
                                            const Acc* __restrict__ prefix, Out* __restrict__ y, int64_t t) {
  int64_t o, c, i;
  const int64_t base = locate(p, t, o, c, i);
  const int64_t k0 = c * p.chunk, k1 = k0 + p.chunk < p.g.n ? k0 + p.chunk : p.g.n;
  Out* col = y + o * p.g.n * p.g.inner + i;
  const int64_t inner = p.g.inner;
  const bool exclusive = p.exclusive;
  Acc acc = prefix ? prefix[t] : identity<Product, Acc>();
  walk(p, x, base, k0, k1, [&](int64_t pos, In v) {
    Acc next = fold<Product>(acc, v);
    col[pos * inner] = convert<Out>(exclusive ? acc : next);
    acc = next;
  });
}

template <bool Product, class In, class Acc>
__global__ void __launch_bounds__(kThreads) chunk_totals(const ScanPass p, const In* __restrict__ x,
                                                         Acc* __restrict__ totals, int64_t threads) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < threads; t += int64_t(gridDim.x) * blockDim.x)
    chunk_total_at<Product>(p, x, totals, t);
}

template <bool Product, class In, class Out, class Acc>
__global__ void __launch_bounds__(kThreads) chunk_scan(const ScanPass p, const In* __restrict__ x,
                                                       const Acc* __restrict__ prefix, Out* __restrict__ y,
                                                       int64_t threads) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < threads; t += int64_t(gridDim.x) * blockDim.x)
    chunk_scan_at<Product>(p, x, prefix, y, t);
}

// Launches the two kinds of pass on the current stream (tests emulate them on the host).
struct DeviceRunner {
  template <bool Product, class In, class Acc>
  cudaError_t totals(const ScanPass& p, const In* x, Acc* totals, int64_t threads) const {
    chunk_totals<Product, In, Acc><<<blocks_for(threads), kThreads, 0, current_stream()>>>(p, x, totals, threads);
    return cudaGetLastError();
  }
  template <bool Product, class In, class Out, class Acc>
  cudaError_t apply(const ScanPass& p, const In* x, const Acc* prefix, Out* y, int64_t threads) const {
    chunk_scan<Product, In, Out, Acc><<<blocks_for(threads), kThreads, 0, current_stream()>>>(p, x, prefix, y,
                                                                                           threads);
    return cudaGetLastError();
  }
};

// A contiguous [outer, n, inner] array as a scan input.
ScanGeometry contiguous_geometry(int64_t outer, int64_t n, int64_t inner) {
  ScanGeometry g;
  g.outer = outer;
  g.n = n;
  g.inner = inner;
  g.axis_stride = inner;
  if (inner > 1) {
    g.ksize[g.nk] = inner;
    g.kstride[g.nk++] = 1;
  }
  if (outer > 1) {
    g.ksize[g.nk] = outer;
    g.kstride[g.nk++] = n * inner;
  }
  return g;
}

template <bool Product, class In, class Out, class Runner = DeviceRunner>
cudaError_t scan(const ScanGeometry& g, bool exclusive, bool reverse, const In* x, Out* y, const ScratchFn& scratch,
                 const Runner& run = Runner()) {
  using Acc = ScanAcc<In>;  // ScanAcc<Acc> is Acc: the recursion stays in one type
  const int64_t columns = g.outer * g.inner;
  if (columns <= 0 || g.n <= 0) return cudaSuccess;
  ScanPass p;
  p.g = g;
  p.exclusive = exclusive;
  p.reverse = reverse;
  p.chunk = g.n;
  const Acc* prefix = nullptr;
  if (g.n > kChunk && columns < kEnoughColumns) {
    p.chunk = kChunk;
    p.n_chunks = (g.n + kChunk - 1) / kChunk;
    const size_t bytes = sizeof(Acc) * size_t(columns) * size_t(p.n_chunks);
    Acc* totals = static_cast<Acc*>(scratch(bytes));
    Acc* before = static_cast<Acc*>(scratch(bytes));
    if (!totals || !before) return cudaErrorMemoryAllocation;
    cudaError_t err = run.template totals<Product>(p, x, totals, columns * p.n_chunks);
    if (err != cudaSuccess) return err;
    // Totals are in scan order already, so their prefix is a forward exclusive scan.
    err = scan<Product, Acc, Acc>(contiguous_geometry(g.outer, p.n_chunks, g.inner), true, false, totals, before,
                                  scratch, run);
    if (err != cudaSuccess) return err;
    prefix = before;
  }
  return run.template apply<Product>(p, x, prefix, y, columns * p.n_chunks);
}

}  // namespace

bool scan_geometry(int ndim, const int64_t* shape, const int64_t* strides, int axis, ScanGeometry& g) {
  g = ScanGeometry();
  g.n = shape[axis];
  g.axis_stride = strides[axis];
  int64_t size[kMaxDims], stride[kMaxDims];  // the other axes, outermost first, merged
  int nd = 0;
  for (int d = 0; d < ndim; ++d) {
    if (d == axis) continue;
    (d < axis ? g.outer : g.inner) *= shape[d];
    if (shape[d] == 1) continue;
    // Neighbours that walk memory as one dimension merge (only the column's offset needs them).
    if (nd > 0 && stride[nd - 1] == strides[d] * shape[d]) {
      size[nd - 1] *= shape[d];
      stride[nd - 1] = strides[d];
    } else {
      if (nd == kMaxDims) return false;
      size[nd] = shape[d];
      stride[nd++] = strides[d];
    }
  }
  g.nk = nd;
  for (int i = 0; i < nd; ++i) {
    g.ksize[i] = size[nd - 1 - i];
    g.kstride[i] = stride[nd - 1 - i];
  }
  return true;
}

cudaError_t launch_scan(bool product, Elem elem, const ScanGeometry& g, bool exclusive, bool reverse,
                        const void* in, void* out, const ScratchFn& scratch) {
  return visit_elem(elem, [&]<class T>() -> cudaError_t {
    if constexpr (::cuda::std::is_same_v<T, bool>) {
      return cudaErrorInvalidValue;  // the public functions cast bool to int64 first
    } else {
      const T* x = static_cast<const T*>(in);
      T* y = static_cast<T*>(out);
      return product ? scan<true>(g, exclusive, reverse, x, y, scratch)
                     : scan<false>(g, exclusive, reverse, x, y, scratch);
    }
  });
}

}  // namespace spire::cuda
