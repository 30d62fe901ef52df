// launch_map's kernels checked on the host (no GPU needed): the dense and strided bodies run for
// every thread of simulated grids of several sizes, against a plain multi-index reference. Covers
// the vector (16-byte) path and its scalar tail, misaligned views, broadcast numbers (step 0),
// transposed, sliced, negative-stride and 10-d operands, and the magic-number division.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include <memory>
#include <algorithm>
#include <complex>
#include "engine/backends/cuda/elementwise.cuh"
#include "engine/backends/cuda/loop_plan.h"
using namespace spire::cuda;
namespace {

static int n_vec = 0, n_dense = 0, n_strided = 0;
#define CHECK(c, ...) do { if (!(c)) { char msg_[200]; snprintf(msg_, sizeof msg_, __VA_ARGS__); ADD_FAILURE() << msg_; } } while (0)

template <class Out, class... In, class F, size_t... K>
void emulate_impl(const Loop<1 + sizeof...(In)>& L, F f, int64_t grid_threads, std::index_sequence<K...>) {
  constexpr int N = 1 + sizeof...(In);
  if (L.numel <= 0) return;
  detail::DenseArgs<N> dense{};
  if (detail::plan_dense<Out, In...>(L, dense)) {
    ++(dense.vec ? n_vec : n_dense);
    int64_t threads = grid_threads ? grid_threads : int64_t(blocks_for(detail::dense_units<Out, In...>(dense))) * kThreads;
    for (int64_t t = 0; t < threads; ++t) detail::dense_body<Out, In...>(dense, f, t, threads, std::index_sequence<K...>{});
  } else {
    auto a = detail::plan_strided(L);
    ++n_strided;
    int64_t threads = grid_threads ? grid_threads : int64_t(blocks_for(L.numel, 4)) * kThreads;
    for (int64_t t = 0; t < threads; ++t) detail::strided_body<Out, In...>(a, f, t, threads);
  }
}
template <class Out, class... In, class F>
void emulate(const Loop<1 + sizeof...(In)>& L, F f, int64_t grid_threads = 0) {
  emulate_impl<Out, In...>(L, f, grid_threads, std::index_sequence_for<In...>{});
}

// make_loop (loop.cpp) over explicit shapes and strides: the broadcast here, the planning shared.
struct Operand { void* data; std::vector<int64_t> shape, strides; };
template <int N>
Loop<N> make_loop(const std::vector<int64_t>& shape, const std::vector<Operand>& ops, const Elem* elems) {
  Loop<N> L;
  std::vector<std::vector<int64_t>> full(N);
  for (int k = 0; k < N; ++k) {
    int64_t nd = shape.size(), td = ops[k].shape.size();
    full[k].assign(nd, 0);
    for (int64_t i = 0; i < td; ++i) {
      int64_t d = nd - td + i;
      full[k][d] = ops[k].shape[i] == 1 && shape[d] != 1 ? 0 : ops[k].strides[i];
    }
    L.data[k] = ops[k].data;
    L.elem[k] = elems[k];
  }
  EXPECT_LE(plan_loop<N>(shape, full, L), kMaxDims);
  return L;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (int i = int(shape.size()) - 1; i >= 0; --i) { s[i] = acc; acc *= shape[i]; }
  return s;
}

// offset of operand at full multi-index
int64_t offset_of(const Operand& o, const std::vector<int64_t>& shape, const std::vector<int64_t>& idx) {
  int64_t nd = shape.size(), td = o.shape.size(), off = 0;
  for (int64_t i = 0; i < td; ++i) { int64_t d = nd - td + i; off += (o.shape[i] == 1 ? 0 : idx[d]) * o.strides[i]; }
  return off;
}

struct Add { template <class T> SPIRE_HD T operator()(T a, T b) const { return T(a * T(3) + b); } };
struct Lt { template <class T> SPIRE_HD bool operator()(T a, T b) const { return a < b; } };
struct Id { template <class T> SPIRE_HD T operator()(T a) const { return a; } };

// A binary op test: out (contiguous, shape) = f(a, b) with given views.
template <class O, class T, class F>
void run_binary(const char* name, std::vector<int64_t> shape, std::vector<int64_t> ashape, std::vector<int64_t> astr, int64_t aoff,
                std::vector<int64_t> bshape, std::vector<int64_t> bstr, int64_t boff, int64_t ooff, F f, int64_t grid, std::mt19937& rng) {
  int64_t n = 1; for (auto s : shape) n *= s;
  // buffers big enough
  auto extent = [](const std::vector<int64_t>& sh, const std::vector<int64_t>& st) { int64_t e = 1; for (size_t i = 0; i < sh.size(); ++i) e += (sh[i] - 1) * st[i]; return e; };
  std::vector<T> abuf(extent(ashape, astr) + aoff + 8), bbuf(extent(bshape, bstr) + boff + 8);
  size_t m = n + ooff + 8;
  std::unique_ptr<O[]> obuf(new O[m]), ref(new O[m]);
  for (size_t i = 0; i < m; ++i) obuf[i] = ref[i] = O(7);
  std::uniform_int_distribution<int> u(-50, 50);
  for (auto& v : abuf) v = T(u(rng)); for (auto& v : bbuf) v = T(u(rng));
  Operand out{obuf.get() + ooff, shape, contiguous_strides(shape)}, a{abuf.data() + aoff, ashape, astr}, b{bbuf.data() + boff, bshape, bstr};
  Elem e[3] = {Elem::Float32, Elem::Float32, Elem::Float32};
  Loop<3> L = make_loop<3>(shape, {out, a, b}, e);
  emulate<O, T, T>(L, f, grid);
  // reference
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = i;
    for (int d = int(shape.size()) - 1; d >= 0; --d) { idx[d] = r % shape[d]; r /= shape[d]; }
    ref[ooff + i] = f(abuf[aoff + offset_of(a, shape, idx)], bbuf[boff + offset_of(b, shape, idx)]);
  }
  bool same = true;
  for (size_t i = 0; i < m; ++i) if (!(obuf[i] == ref[i])) { same = false; break; }
  CHECK(same, "%s n=%lld grid=%lld", name, (long long)n, (long long)grid);
}

TEST(CudaBackendElementwise, FastDivisionIsExact) {
  std::mt19937 rng(1);
  {
    std::vector<uint32_t> ds = {1, 2, 3, 5, 7, 10, 255, 256, 257, 65535, 65536, 65537, 1u << 30, (1u << 30) + 1, (1u << 31) - 1, 1u << 31 >> 1, 3u << 29};
    std::uniform_int_distribution<uint32_t> ud(1, (1u << 31) - 1), un(0, (1u << 31) - 1);
    for (int i = 0; i < 2000; ++i) ds.push_back(ud(rng));
    for (int i = 0; i < 2000; ++i) ds.push_back(1 + ud(rng) % 5000);
    for (uint32_t d : ds) {
      auto fd = detail::make_fast_div(d);
      std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, 2 * d - 1, (1u << 31) - 1, (1u << 31) - 2};
      for (int i = 0; i < 300; ++i) ns.push_back(un(rng));
      for (uint32_t nn : ns) {
        if (nn >= (1u << 31)) continue;
        uint32_t q = (detail::umulhi(nn, fd.magic) + nn) >> fd.shift;
        CHECK(q == nn / d, "fastdiv n=%u d=%u q=%u", nn, d, q);
      }
    }
  }
}

TEST(CudaBackendElementwise, NarrowAndWideOffsetsMatchLoopOffsets) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    Loop<3> L;
    L.ndim = 1 + rng() % kMaxDims;
    L.numel = 1;
    for (int d = 0; d < L.ndim; ++d) { L.sizes[d] = 1 + rng() % 7; L.numel *= L.sizes[d]; for (int k = 0; k < 3; ++k) L.strides[k][d] = int64_t(rng() % 2000) - 1000; }
    auto a = detail::plan_strided(L);
    auto w = a; w.narrow = false;
    for (int64_t i = 0; i < L.numel; i += 1 + rng() % 13) {
      int64_t o1[3], o2[3], o3[3];
      detail::offsets_narrow(a, uint32_t(i), o1);
      detail::offsets_wide(w, i, o2);
      loop_offsets(L, i, o3);
      for (int k = 0; k < 3; ++k) CHECK(o1[k] == o3[k] && o2[k] == o3[k], "offsets trial %d i=%lld", trial, (long long)i);
    }
  }
}

TEST(CudaBackendElementwise, DenseRowsAnyLengthAlignmentAndGrid) {
  std::mt19937 rng(3);
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 64, 100, 1023, 1025, 5000})
    for (int64_t off : {0, 1, 2, 4})
      for (int64_t grid : {0, 1, 3, 256, 1000}) {
        run_binary<float, float>("dense", {n}, {n}, {1}, off, {n}, {1}, 0, 0, Add{}, grid, rng);
        run_binary<float, float>("dense-out-off", {n}, {n}, {1}, 0, {n}, {1}, 0, off, Add{}, grid, rng);
        run_binary<float, float>("scalar-b", {n}, {n}, {1}, off, {}, {}, 3, 0, Add{}, grid, rng);
        run_binary<float, float>("scalar-a", {n}, {}, {}, 0, {n}, {1}, off, 0, Add{}, grid, rng);
        run_binary<bool, float>("cmp", {n}, {n}, {1}, off, {n}, {1}, 0, 0, Lt{}, grid, rng);
        run_binary<double, double>("f64", {n}, {n}, {1}, off, {n}, {1}, 0, 0, Add{}, grid, rng);
        run_binary<std::complex<double>, std::complex<double>>("c128", {n}, {n}, {1}, off, {1}, {1}, 0, 0, Add{}, grid, rng);
        run_binary<uint8_t, uint8_t>("u8", {n}, {n}, {1}, off, {n}, {1}, 0, off, Add{}, grid, rng);
      }
  EXPECT_GT(n_vec, 0);
  EXPECT_GT(n_dense, 0);
}

TEST(CudaBackendElementwise, StridedAndBroadcastOperands) {
  std::mt19937 rng(4);
  for (int64_t grid : {0, 1, 7, 300}) {
    run_binary<float, float>("bias", {5, 7}, {5, 7}, {7, 1}, 0, {7}, {1}, 0, 0, Add{}, grid, rng);
    run_binary<float, float>("colbias", {5, 7}, {5, 7}, {7, 1}, 0, {5, 1}, {1, 1}, 0, 0, Add{}, grid, rng);
    run_binary<float, float>("transposed", {6, 9}, {6, 9}, {1, 6}, 1, {6, 9}, {9, 1}, 0, 0, Add{}, grid, rng);
    run_binary<double, double>("3d-permute", {3, 4, 5}, {3, 4, 5}, {1, 15, 3}, 2, {4, 1}, {1, 1}, 0, 0, Add{}, grid, rng);
    run_binary<bool, double>("3d-cmp", {3, 1, 5}, {3, 1, 5}, {5, 5, 1}, 0, {3, 1, 1}, {1, 1, 1}, 0, 0, Lt{}, grid, rng);
    run_binary<float, float>("slice", {4, 6}, {4, 6}, {20, 2}, 3, {4, 6}, {6, 1}, 0, 0, Add{}, grid, rng);
    run_binary<float, float>("neg-stride", {4, 6}, {4, 6}, {6, -1}, 5, {6}, {-1}, 5, 0, Add{}, grid, rng);
    run_binary<float, float>("zero", {0, 6}, {0, 6}, {6, 1}, 0, {6}, {1}, 0, 0, Add{}, grid, rng);
    run_binary<float, float>("0d", {}, {}, {}, 0, {}, {}, 0, 0, Add{}, grid, rng);
    std::vector<int64_t> big = {2, 3, 2, 3, 2, 3, 2, 3, 2, 3};
    std::vector<int64_t> bst = contiguous_strides(big); std::reverse(bst.begin(), bst.end());
    run_binary<float, float>("10d", big, big, bst, 0, {3}, {1}, 0, 0, Add{}, grid, rng);
  }
  EXPECT_GT(n_strided, 0);
}

}  // namespace
