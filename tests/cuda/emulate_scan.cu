// Host emulation of scan.cu (no GPU needed): the real geometry, driver and per-thread bodies, run
// on the host, against a sequential reference. Build as emulate_reduce.cu.
#include "engine/backends/cuda/scan.cu"

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

// This program runs no kernel and does not link libspire_cuda, which defines the real one.
namespace spire::cuda {
cudaStream_t current_stream() { return nullptr; }
}
using namespace spire::cuda;

int levels = 0, chunked = 0;

struct HostRunner {
  template <bool Product, class In, class Acc>
  cudaError_t totals(const ScanPass& p, const In* x, Acc* totals, int64_t threads) const {
    ++chunked;
    for (int64_t t = 0; t < threads; ++t) chunk_total_at<Product>(p, x, totals, t);
    return cudaSuccess;
  }
  template <bool Product, class In, class Out, class Acc>
  cudaError_t apply(const ScanPass& p, const In* x, const Acc* prefix, Out* y, int64_t threads) const {
    ++levels;
    for (int64_t t = 0; t < threads; ++t) chunk_scan_at<Product>(p, x, prefix, y, t);
    return cudaSuccess;
  }
};

std::vector<std::vector<char>> g_scratch;
template <bool Product, class In, class Out>
void emu_scan(const ScanGeometry& g, bool exclusive, bool reverse, const In* x, Out* y) {
  g_scratch.clear();
  ScratchFn scratch = [](size_t bytes) -> void* {
    g_scratch.emplace_back(bytes + 16);
    return g_scratch.back().data();
  };
  if (scan<Product, In, Out>(g, exclusive, reverse, x, y, scratch, HostRunner()) != cudaSuccess) abort();
}

ScanGeometry geometry(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t axis) {
  ScanGeometry g;
  if (!scan_geometry(int(shape.size()), shape.data(), strides.data(), int(axis), g)) abort();
  return g;
}

std::mt19937_64 rng(777);
int64_t rnd(int64_t n) { return int64_t(rng() % uint64_t(n)); }
int failures = 0;

template <class T, bool Product>
void run_case(bool big) {
  std::vector<int64_t> shape, strides;
  int64_t base = 0, storage;
  int nd;
  for (;;) {
    shape.clear();
    nd = 1 + int(rnd(4));
    static const int64_t small[] = {1, 2, 3, 5, 8, 17};
    for (int d = 0; d < nd; ++d) shape.push_back(small[rnd(6)]);
    if (big) shape[rnd(nd)] = rnd(2) ? 300 + rnd(300) : 70000 + rnd(9000);
    std::vector<int> perm(nd);
    for (int i = 0; i < nd; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    strides.assign(nd, 0);
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; --i) strides[perm[i]] = s * (rnd(4) == 0 ? 2 : 1), s = strides[perm[i]] * shape[perm[i]];
    storage = s;
    if (storage <= 600000) break;
  }
  base = 0;
  for (int d = 0; d < nd; ++d) {
    if (rnd(6) == 0) strides[d] = 0;
    else if (rnd(6) == 0) base += (shape[d] - 1) * strides[d], strides[d] = -strides[d];
  }
  int64_t axis = rnd(nd);
  bool exclusive = rnd(2), reverse = rnd(2);
  std::vector<T> buf(storage);
  for (auto& v : buf) {
    if constexpr (std::is_integral_v<T>) v = T(rng());
    else v = Product ? T(rnd(3) == 0 ? -1 : 1) * (rnd(3) == 0 ? T(1) : rnd(2) ? T(0.5) : T(2)) : T(double(rnd(2001) - 1000) / 16);
  }
  ScanGeometry g = geometry(shape, strides, axis);
  int64_t total = 1;
  for (auto v : shape) total *= v;
  std::vector<T> out(total, T(-7));
  emu_scan<Product, T, T>(g, exclusive, reverse, buf.data() + base, out.data());
  // reference: contiguous output [outer, n, inner]
  int64_t n = shape[axis];
  for (int64_t o = 0; o < g.outer; ++o)
    for (int64_t i = 0; i < g.inner; ++i) {
      // input offset of (o, k, i)
      auto in_off = [&](int64_t k) {
        int64_t off = base, q = o * g.inner + i;
        for (int64_t d = nd - 1; d >= 0; --d) {
          if (d == axis) continue;
          off += (q % shape[d]) * strides[d];
          q /= shape[d];
        }
        return off + k * strides[axis];
      };
      using Acc = ScanAcc<T>;
      Acc acc = Product ? Acc(1) : Acc(0);
      for (int64_t kk = 0; kk < n; ++kk) {
        int64_t k = reverse ? n - 1 - kk : kk;
        Acc next = Product ? acc * Acc(buf[in_off(k)]) : acc + Acc(buf[in_off(k)]);
        T want = T(exclusive ? acc : next);
        T got = out[(o * n + k) * g.inner + i];
        if (!(got == want) && ++failures < 20)
          printf("FAIL scan prod=%d n=%ld k=%ld got %g want %g\n", Product, long(n), long(k), double(got), double(want));
        acc = next;
      }
    }
}

int main() {
  for (int it = 0; it < 300; ++it) run_case<double, false>(false);
  for (int it = 0; it < 60; ++it) run_case<double, false>(true);
  for (int it = 0; it < 60; ++it) run_case<double, true>(true);
  for (int it = 0; it < 200; ++it) run_case<int32_t, false>(it % 3 == 0);
  for (int it = 0; it < 200; ++it) run_case<int64_t, true>(it % 3 == 0);
  for (int it = 0; it < 100; ++it) run_case<float, false>(it % 3 == 0);
  printf("levels %d chunked %d\n%s (%d failures)\n", levels, chunked, failures ? "FAILED" : "ok", failures);
  return failures != 0;
}
