// CPU kernels for cumulative sums and products along one axis, inclusive or exclusive, forward
// or reverse. The input is seen as [outer, n, inner]; when inner > 1 whole rows of `inner`
// elements are scanned at once (vectorised, no strided walks). Each output is a sequential fold in
// a fixed order, so the bits do not depend on threads. float32 accumulates in float64: a running
// sum over a long axis would otherwise drift by n ulps.
#include <algorithm>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

template <class T>
using ScanAcc = std::conditional_t<std::is_integral_v<T>, int64_t,
                std::conditional_t<std::is_same_v<T, float>, double,
                std::conditional_t<std::is_same_v<T, c64>, c128, T>>>;

template <bool Product>
void scan_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor x = in[0];
  if (!x.is_contiguous()) {
    Tensor c = empty(x.shape(), x.dtype());
    copy_into(x, c);
    x = c;
  }
  int64_t axis = a.get<int64_t>("axis");
  bool exclusive = a.get<bool>("exclusive"), reverse = a.get<bool>("reverse");
  int64_t n = x.shape()[axis], outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < x.dim(); ++d) inner *= x.shape()[d];
  if (out[0].numel() == 0) return;
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      using Acc = ScanAcc<T>;
      const T* src = x.data<T>();
      T* dst = out[0].data<T>();
      const Acc id = Acc(Product ? 1 : 0);
      // Position k of the scan order along the axis.
      auto at = [&](int64_t k) { return reverse ? n - 1 - k : k; };
      if (inner == 1) {
        parallel_for(outer, outer * n, [&](int64_t o) {
          const T* s = src + o * n;
          T* d = dst + o * n;
          Acc acc = id;
          for (int64_t k = 0; k < n; ++k) {
            int64_t i = at(k);
            Acc next = Product ? acc * Acc(s[i]) : acc + Acc(s[i]);
            d[i] = T(exclusive ? acc : next);
            acc = next;
          }
        });
        return;
      }
      // Row scans over tiles of the inner axis; tiles and outer slices are independent.
      const int64_t tw = 256;
      int64_t tiles = (inner + tw - 1) / tw;
      // Tile t scanned with the accumulator row ac (one per thread).
      auto scan_tile = [&](int64_t t, Acc* ac) {
        int64_t o = t / tiles, j0 = (t % tiles) * tw, w = std::min(tw, inner - j0);
        std::fill(ac, ac + w, id);
        for (int64_t k = 0; k < n; ++k) {
          int64_t off = (o * n + at(k)) * inner + j0;
          const T* s = src + off;
          T* d = dst + off;
          if (exclusive)
            for (int64_t j = 0; j < w; ++j) {
              d[j] = T(ac[j]);
              ac[j] = Product ? ac[j] * Acc(s[j]) : ac[j] + Acc(s[j]);
            }
          else
            for (int64_t j = 0; j < w; ++j) {
              ac[j] = Product ? ac[j] * Acc(s[j]) : ac[j] + Acc(s[j]);
              d[j] = T(ac[j]);
            }
        }
      };
      // A serial branch of its own: even `omp parallel if(false)` enters the runtime.
      if (outer * n * inner < kParallelGrain || outer * tiles <= 1) {
        std::vector<Acc> acc(tw);
        for (int64_t t = 0; t < outer * tiles; ++t) scan_tile(t, acc.data());
        return;
      }
#pragma omp parallel
      {
        std::vector<Acc> acc(tw);
#pragma omp for schedule(static)
        for (int64_t t = 0; t < outer * tiles; ++t) scan_tile(t, acc.data());
      }
    }
  });
}

SPIRE_REGISTER_KERNEL("cumsum", DeviceKind::CPU, scan_kernel<false>);
SPIRE_REGISTER_KERNEL("cumprod", DeviceKind::CPU, scan_kernel<true>);

}  // namespace
}  // namespace spire::cpu
