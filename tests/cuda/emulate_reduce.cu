// Host emulation of reduce.cu (no GPU needed): the real plan, geometry and pass driver, each pass
// run on the host thread by thread, against a naive reference. Build: nvcc -std=c++20
// --extended-lambda --expt-relaxed-constexpr -I<repo> -arch=sm_90 emulate_reduce.cu (links cudart).
#include "engine/backends/cuda/reduce.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

// This program runs no kernel and does not link libspire_cuda, which defines the real one.
namespace spire::cuda {
cudaStream_t current_stream() { return nullptr; }
}
using namespace spire::cuda;

template <class M, class In, bool kOneDim>
void emulate_pass(const Pass& p, const In* x, void* out, bool final) {
  using Acc = typename M::Acc;
  const int64_t units = p.tiles * p.n_chunks;
  std::vector<Acc> sh(kThreads);
  for (int64_t b = 0; b < units; ++b) {
    const int64_t tile = b / p.n_chunks, c = b - tile * p.n_chunks;
    auto txy = [&](int t, int& tx, int& ty) {
      tx = p.lanes_fast ? t / p.ty : t % p.tx;
      ty = p.lanes_fast ? t % p.ty : t / p.tx;
    };
    const int lane_gap = p.lanes_fast ? 1 : p.tx;
    for (int t = 0; t < kThreads; ++t) {
      int tx, ty;
      txy(t, tx, ty);
      int64_t o = tile * p.tx + tx;
      Acc acc = M::identity();
      if (o < p.g.n_out) acc = fold_lane<M, In, kOneDim>(p, x, o, c, ty);
      sh[t] = acc;
    }
    for (int s = p.ty / 2; s > 0; s /= 2)
      for (int t = 0; t < kThreads; ++t) {
        int tx, ty;
        txy(t, tx, ty);
        if (ty < s) sh[t] = M::combine(sh[t], sh[t + s * lane_gap]);
      }
    for (int t = 0; t < kThreads; ++t) {
      int tx, ty;
      txy(t, tx, ty);
      int64_t o = tile * p.tx + tx;
      if (ty == 0 && o < p.g.n_out) {
        if (final) static_cast<typename M::Out*>(out)[o] = M::finish(sh[t]);
        else static_cast<Acc*>(out)[p.chunk_major ? c * p.g.n_out + o : o * p.n_chunks + c] = sh[t];
      }
    }
  }
}

int g_passes = 0;
int st_multi = 0, st_odo = 0, st_col = 0, st_row = 0, st_total = 0;
template <class M, class In>
void emu_run_pass(const Pass& p, const In* x, void* out, bool final) {
  ++g_passes; ++st_total;
  if (p.n_chunks > 1) ++st_multi;
  if (p.g.nr > 1) ++st_odo;
  (p.lanes_fast ? st_row : st_col)++;
  if (p.g.nr <= 1) emulate_pass<M, In, true>(p, x, out, final);
  else emulate_pass<M, In, false>(p, x, out, final);
}

struct HostRunner {
  template <class M, class In>
  cudaError_t operator()(const Pass& p, const In* x, void* out, bool final) const {
    emu_run_pass<M, In>(p, x, out, final);
    return cudaSuccess;
  }
};

std::vector<std::vector<char>> g_scratch;
template <class M, class T>
void emu_reduce_all(const ReduceGeometry& g, const T* in, void* out) {
  g_scratch.clear();
  ScratchFn scratch = [](size_t bytes) -> void* {
    g_scratch.emplace_back(bytes + 16);
    return g_scratch.back().data();
  };
  if (reduce_all<M, T>(g, in, out, scratch, HostRunner()) != cudaSuccess) abort();
}

ReduceGeometry geometry(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                        const std::vector<int64_t>& axes) {
  ReduceGeometry g;
  if (!reduce_geometry(int(shape.size()), shape.data(), strides.data(), int(axes.size()), axes.data(), g)) abort();
  return g;
}

std::mt19937_64 rng(12345);
int64_t rnd(int64_t n) { return int64_t(rng() % uint64_t(n)); }

struct Case {
  std::vector<int64_t> shape, strides, axes;
  int64_t base = 0, storage = 0;
};

Case make_case1(bool one_axis, bool big);
Case make_case(bool one_axis, bool big) {
  for (;;) {
    Case c = make_case1(one_axis, big);
    if (c.storage <= 400000) return c;
  }
}
Case make_case1(bool one_axis, bool big) {
  Case c;
  int nd = 1 + int(rnd(5));
  static const int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 16, 33};
  for (int d = 0; d < nd; ++d) c.shape.push_back(small[rnd(9)]);
  if (big) c.shape[rnd(nd)] = rnd(2) ? 9000 + rnd(100) : 70000 + rnd(1000);
  // a permutation of a contiguous (possibly sliced) layout
  std::vector<int> perm(nd);
  for (int i = 0; i < nd; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  c.strides.assign(nd, 0);
  int64_t s = 1;
  for (int i = nd - 1; i >= 0; --i) {
    int d = perm[i];
    int64_t step = rnd(4) == 0 ? 2 : 1;  // a slice with a step
    c.strides[d] = s * step;
    s *= c.shape[d] * step;
  }
  c.storage = s;
  for (int d = 0; d < nd; ++d) {
    if (rnd(6) == 0) c.strides[d] = 0;  // broadcast
    else if (rnd(6) == 0) {             // flipped
      c.base += (c.shape[d] - 1) * c.strides[d];
      c.strides[d] = -c.strides[d];
    }
  }
  if (one_axis) c.axes = {rnd(nd)};
  else {
    for (int d = 0; d < nd; ++d)
      if (rnd(2)) c.axes.push_back(d);
    if (c.axes.empty()) c.axes.push_back(rnd(nd));
  }
  return c;
}

// Calls f(o, list of element offsets in row-major reduced order) for every output.
template <class F>
void for_each_output(const Case& c, F f) {
  std::vector<int64_t> kd, rd;
  for (size_t d = 0; d < c.shape.size(); ++d)
    (std::binary_search(c.axes.begin(), c.axes.end(), int64_t(d)) ? rd : kd).push_back(d);
  int64_t n_out = 1, n_red = 1;
  for (auto d : kd) n_out *= c.shape[d];
  for (auto d : rd) n_red *= c.shape[d];
  std::vector<int64_t> offs(n_red);
  for (int64_t o = 0; o < n_out; ++o) {
    int64_t base = c.base, q = o;
    for (int i = int(kd.size()) - 1; i >= 0; --i) base += (q % c.shape[kd[i]]) * c.strides[kd[i]], q /= c.shape[kd[i]];
    for (int64_t r = 0; r < n_red; ++r) {
      int64_t off = base, q2 = r;
      for (int i = int(rd.size()) - 1; i >= 0; --i) off += (q2 % c.shape[rd[i]]) * c.strides[rd[i]], q2 /= c.shape[rd[i]];
      offs[r] = off;
    }
    f(o, offs);
  }
}

int failures = 0;
#define EXPECT(cond, ...) do { if (!(cond)) { if (++failures < 20) { printf("FAIL " __VA_ARGS__); printf("\n"); } } } while (0)

void test_sum_double(int iters, bool big) {
  for (int it = 0; it < iters; ++it) {
    Case c = make_case(false, big);
    std::vector<double> buf(c.storage);
    for (auto& v : buf) v = double(rnd(2001) - 1000) / 64.0;  // exact sums in double
    ReduceGeometry g = geometry(c.shape, c.strides, c.axes);
    std::vector<double> out(std::max<int64_t>(g.n_out, 1), -999);
    emu_reduce_all<Sum<double>>(g, buf.data() + c.base, out.data());
    for_each_output(c, [&](int64_t o, const std::vector<int64_t>& offs) {
      double s = 0;
      for (auto off : offs) s += buf[off];
      EXPECT(out[o] == s, "sum double it=%d o=%ld got %g want %g", it, long(o), out[o], s);
    });
  }
}

void test_sum_int(int iters, bool big) {
  for (int it = 0; it < iters; ++it) {
    Case c = make_case(false, big);
    std::vector<int32_t> buf(c.storage);
    for (auto& v : buf) v = int32_t(rng());
    ReduceGeometry g = geometry(c.shape, c.strides, c.axes);
    std::vector<int32_t> out(std::max<int64_t>(g.n_out, 1)), outp(out.size());
    emu_reduce_all<Sum<int32_t>>(g, buf.data() + c.base, out.data());
    emu_reduce_all<Prod<int32_t>>(g, buf.data() + c.base, outp.data());
    for_each_output(c, [&](int64_t o, const std::vector<int64_t>& offs) {
      uint64_t s = 0, pr = 1;
      for (auto off : offs) s += uint64_t(int64_t(buf[off])), pr *= uint64_t(int64_t(buf[off]));
      EXPECT(out[o] == int32_t(s), "sum int it=%d", it);
      EXPECT(outp[o] == int32_t(pr), "prod int it=%d", it);
    });
  }
}

void test_extremes(int iters, bool big) {
  for (int it = 0; it < iters; ++it) {
    Case c = make_case(false, big);
    std::vector<float> buf(c.storage);
    bool nans = rnd(3) == 0;
    for (auto& v : buf) v = nans && rnd(50) == 0 ? NAN : float(rnd(100) - 50);
    ReduceGeometry g = geometry(c.shape, c.strides, c.axes);
    std::vector<float> mx(std::max<int64_t>(g.n_out, 1)), mn(mx.size());
    emu_reduce_all<Extreme<float, true>>(g, buf.data() + c.base, mx.data());
    emu_reduce_all<Extreme<float, false>>(g, buf.data() + c.base, mn.data());
    for_each_output(c, [&](int64_t o, const std::vector<int64_t>& offs) {
      float a = -INFINITY, b = INFINITY;
      bool nan = false;
      for (auto off : offs) nan |= buf[off] != buf[off], a = std::max(a, buf[off]), b = std::min(b, buf[off]);
      if (nan) {
        EXPECT(mx[o] != mx[o] && mn[o] != mn[o], "extreme nan it=%d", it);
      } else {
        EXPECT(mx[o] == a && mn[o] == b, "extreme it=%d o=%ld got %g %g want %g %g", it, long(o), mx[o], mn[o], a, b);
      }
    });
  }
}

void test_arg(int iters, bool big) {
  for (int it = 0; it < iters; ++it) {
    Case c = make_case(true, big);
    std::vector<double> buf(c.storage);
    bool nans = rnd(3) == 0;
    for (auto& v : buf) v = nans && rnd(30) == 0 ? NAN : double(rnd(7));  // many ties
    ReduceGeometry g = geometry(c.shape, c.strides, c.axes);
    std::vector<int64_t> amx(std::max<int64_t>(g.n_out, 1), -5), amn(amx.size(), -5);
    emu_reduce_all<Arg<double, true>>(g, buf.data() + c.base, amx.data());
    emu_reduce_all<Arg<double, false>>(g, buf.data() + c.base, amn.data());
    for_each_output(c, [&](int64_t o, const std::vector<int64_t>& offs) {
      for (int mode = 0; mode < 2; ++mode) {
        bool Max = mode == 0;
        int64_t best = -1;
        double bv = 0;
        for (int64_t r = 0; r < int64_t(offs.size()); ++r) {  // the CPU's sequential rule
          double v = buf[offs[r]];
          bool better = best < 0 || (!(bv != bv) && (v != v || (Max ? v > bv : v < bv)));
          if (better) best = r, bv = v;
        }
        int64_t got = Max ? amx[o] : amn[o];
        EXPECT(got == best, "arg%s it=%d o=%ld got %ld want %ld (n=%zu)", Max ? "max" : "min", it, long(o), long(got),
               long(best), offs.size());
      }
    });
  }
}

void test_complex(int iters) {
  for (int it = 0; it < iters; ++it) {
    Case c = make_case(false, rnd(4) == 0);
    std::vector<c128> buf(c.storage);
    for (auto& v : buf) v = c128(double(rnd(200) - 100) / 8, double(rnd(200) - 100) / 8);
    ReduceGeometry g = geometry(c.shape, c.strides, c.axes);
    std::vector<c128> out(std::max<int64_t>(g.n_out, 1));
    emu_reduce_all<Sum<c128>>(g, buf.data() + c.base, out.data());
    for_each_output(c, [&](int64_t o, const std::vector<int64_t>& offs) {
      c128 s(0, 0);
      for (auto off : offs) s += buf[off];
      EXPECT(out[o] == s, "complex sum it=%d", it);
    });
  }
}

void test_float_accuracy() {
  // A long float32 sum: the tree keeps the error near a pairwise sum's.
  std::vector<float> buf(3000000);
  double exact = 0;
  for (auto& v : buf) v = float(rnd(1000000)) / 1e6f, exact += v;
  Case c;
  c.shape = {int64_t(buf.size())};
  c.strides = {1};
  c.axes = {0};
  ReduceGeometry g = geometry(c.shape, c.strides, c.axes);
  float out = 0;
  g_passes = 0;
  emu_reduce_all<Sum<float>>(g, buf.data(), &out);
  printf("float32 sum of 3e6: rel err %.3g (passes %d)\n", std::abs(out - exact) / exact, g_passes);
  EXPECT(std::abs(out - exact) / exact < 1e-6, "float accuracy");
}

void test_empty() {
  // [3, 0, 2] summed over axis 1: zeros; prod: ones; over axis 0: nothing to write.
  std::vector<int64_t> shape{3, 0, 2}, strides{0, 2, 1}, ax1{1};
  ReduceGeometry g = geometry(shape, strides, ax1);
  std::vector<double> out(6, -1);
  emu_reduce_all<Sum<double>>(g, (const double*)nullptr, out.data());
  for (int i = 0; i < 6; ++i) EXPECT(out[i] == 0, "empty sum");
  emu_reduce_all<Prod<double>>(g, (const double*)nullptr, out.data());
  for (int i = 0; i < 6; ++i) EXPECT(out[i] == 1, "empty prod");
  EXPECT(g.n_out == 6 && g.n_red == 0, "empty geometry");
}

int main() {
  test_empty();
  test_sum_double(400, false);
  test_sum_double(40, true);
  test_sum_int(300, false);
  test_sum_int(30, true);
  test_extremes(300, false);
  test_extremes(30, true);
  test_arg(400, false);
  test_arg(40, true);
  test_complex(200);
  test_float_accuracy();
  printf("passes %d: multi-chunk %d, odometer %d, column %d, row %d\n", st_total, st_multi, st_odo, st_col, st_row);
  printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
  return failures != 0;
}
