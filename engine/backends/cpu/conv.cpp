// CPU kernels of conv, conv_transpose and conv_weight_grad: im2col + BLAS GEMM per task of B
// samples and one group (see Plan: B = 1 for most images, more when the output is small):
//   conv:             Y_g[Cout_g, B*L]  = W_g[Cout_g, K] * cols[K, B*L]
//   conv_transpose:   cols[K, B*L]      = W_g^T * Y_g, then col2im (scatter-add)
//   conv_weight_grad: dW_g[Cout_g, K]  += G_g[Cout_g, B*L] * cols^T
// with K = C_in/groups * prod(kernel), L = prod(output spatial sizes). Every spatial geometry is
// handled as 3-d (missing axes of size 1). A task's column matrix is small enough to stay in cache
// from im2col to GEMM, and tasks run on OpenMP threads with serial BLAS: one parallel region per
// op instead of one per step of it. Every output entry is computed by one task in a fixed order
// (the weight gradient's per-chunk partials are added in chunk order), so results do not depend
// on the thread count.
#include <cblas.h>

#include <algorithm>
#include <cstring>

#include "engine/backends/conv_geometry.h"
#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {
using Ints = std::vector<int64_t>;

// Upper bound on the im2col buffer of one chunk (bytes).
constexpr int64_t kColsBudget = int64_t(64) << 20;

using Geo = ConvGeometry;

// Geometry from the spatial sizes of the conv input (`in`), conv output (`out`) and kernel.
Geo make_geo(const Attrs& a, const Shape& in, const Shape& out, const Shape& k) {
  return conv_geometry(a.get<Ints>("stride"), a.get<Ints>("padding"), a.get<Ints>("dilation"), in, out, k);
}

// Output positions [lo, hi) along one axis whose input index o*s + off lies in [0, n).
inline void valid_range(int64_t off, int64_t s, int64_t n, int64_t out, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = n - 1 - off < 0 ? 0 : (n - 1 - off) / s + 1;
  lo = std::min(lo, out);
  hi = std::max(lo, std::min(hi, out));
}

// The rows of one input channel plane X (contiguous, g.in sizes) in the column matrix: row r of
// the k_size() rows starts at cols + r * ld and holds out_size() entries. Output rows are short
// (a dozen entries for small images), so the copies are plain loops rather than library calls.
template <class T>
void im2col(const T* X, const Geo& g, T* cols, int64_t ld) {
  const int64_t o1 = g.out[1], o2 = g.out[2], s2 = g.s[2];
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        T* row = cols + ((k0 * g.k[1] + k1) * g.k[2] + k2) * ld;
        int64_t lo, hi;
        const int64_t off2 = k2 * g.d[2] - g.p[2];
        valid_range(off2, s2, g.in[2], o2, lo, hi);
        for (int64_t a = 0; a < g.out[0]; ++a) {
          int64_t i0 = a * g.s[0] - g.p[0] + k0 * g.d[0];
          bool in0 = i0 >= 0 && i0 < g.in[0];
          for (int64_t b = 0; b < o1; ++b) {
            T* __restrict dst = row + (a * o1 + b) * o2;
            int64_t i1 = b * g.s[1] - g.p[1] + k1 * g.d[1];
            if (!in0 || i1 < 0 || i1 >= g.in[1]) {
              for (int64_t c = 0; c < o2; ++c) dst[c] = T(0);
              continue;
            }
            const T* __restrict src = X + (i0 * g.in[1] + i1) * g.in[2] + off2;
            for (int64_t c = 0; c < lo; ++c) dst[c] = T(0);
            if (s2 == 1)
              for (int64_t c = lo; c < hi; ++c) dst[c] = src[c];
            else if (s2 == 2)
              for (int64_t c = lo; c < hi; ++c) dst[c] = src[2 * c];
            else
              for (int64_t c = lo; c < hi; ++c) dst[c] = src[c * s2];
            for (int64_t c = hi; c < o2; ++c) dst[c] = T(0);
          }
        }
      }
}

// The adjoint of im2col: adds the rows back into the plane X (which the caller zeroed).
template <class T>
void col2im(const T* cols, int64_t ld, const Geo& g, T* X) {
  const int64_t o1 = g.out[1], o2 = g.out[2];
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const T* row = cols + ((k0 * g.k[1] + k1) * g.k[2] + k2) * ld;
        int64_t lo, hi;
        valid_range(k2 * g.d[2] - g.p[2], g.s[2], g.in[2], o2, lo, hi);
        const int64_t off2 = k2 * g.d[2] - g.p[2], s2 = g.s[2];
        for (int64_t a = 0; a < g.out[0]; ++a) {
          int64_t i0 = a * g.s[0] - g.p[0] + k0 * g.d[0];
          if (i0 < 0 || i0 >= g.in[0]) continue;
          for (int64_t b = 0; b < o1; ++b) {
            int64_t i1 = b * g.s[1] - g.p[1] + k1 * g.d[1];
            if (i1 < 0 || i1 >= g.in[1]) continue;
            const T* src = row + (a * o1 + b) * o2;
            T* dst = X + (i0 * g.in[1] + i1) * g.in[2] + off2;
            for (int64_t c = lo; c < hi; ++c) dst[c * s2] += src[c];
          }
        }
      }
}

// Row-major C = alpha op(A) op(B) + beta C through CBLAS, for the four inexact types.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc) {
  auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if (m == 0 || n == 0) return;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, TA, TB, m, n, k, 1.0f, A, lda, B, ldb, beta, C, ldc);
  else if constexpr (std::is_same_v<T, double>)
    cblas_dgemm(CblasRowMajor, TA, TB, m, n, k, 1.0, A, lda, B, ldb, beta, C, ldc);
  else if constexpr (std::is_same_v<T, c64>) {
    const c64 one(1);
    cblas_cgemm(CblasRowMajor, TA, TB, m, n, k, &one, A, lda, B, ldb, &beta, C, ldc);
  } else {
    const c128 one(1);
    cblas_zgemm(CblasRowMajor, TA, TB, m, n, k, &one, A, lda, B, ldb, &beta, C, ldc);
  }
}

Tensor contiguous_input(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = empty(t.shape(), t.dtype(), t.device());
  copy_into(t, c);
  return c;
}

// Sizes shared by the three kernels. `x` is the conv input, `y` the conv output (or its grad).
struct Sizes {
  int64_t N, Cin, Cout, G, Cin_g, Cout_g, KP, K, L, Lin;
};
Sizes sizes(const Tensor& x, const Tensor& y, const Geo& g, int64_t groups) {
  Sizes z;
  z.N = x.shape(0), z.Cin = x.shape(1), z.Cout = y.shape(1), z.G = groups;
  z.Cin_g = z.Cin / groups, z.Cout_g = z.Cout / groups;
  z.KP = g.k_size(), z.K = z.Cin_g * z.KP, z.L = g.out_size(), z.Lin = g.in_size();
  return z;
}

// How the work is cut: tasks of B consecutive samples and one group. The column matrix of a task
// is [K, B*L]; B is the fewest samples that give the GEMM a right-hand side at least kMinWidth
// wide (one sample for most images), so a task's columns stay in cache between im2col and GEMM.
// Tasks run on OpenMP threads, each with its own workspace and single-threaded BLAS (OpenBLAS
// runs serially inside a parallel region), when there are enough of them and the workspaces fit
// kColsBudget; else one after another, each spreading im2col and the GEMM over the threads. The
// cut depends only on the shapes, and each output entry comes from one GEMM of the same shape
// either way, so results do not depend on the thread count.
constexpr int64_t kMinWidth = 256;
struct Plan {
  int64_t B, batches, tasks;  // tasks = batches * groups, batch-major
  int64_t ws = 0;             // workspace elements per task (rounded to 64 bytes)
  int nt = 1;                 // threads running tasks (1: tasks in turn, inner parallelism)
};
// The three kernels share one plan: per sample a task needs the column matrix (K x L) and the
// output-channel rows (C_out/groups x L); one sample of a pointwise (1x1) geometry needs nothing.
Plan make_plan(const Sizes& z, bool pointwise, size_t item) {
  const int64_t per_sample_ws = z.K * z.L + z.Cout_g * z.L, one_ws = pointwise ? 0 : z.K * z.L;
  Plan p;
  int64_t N = std::max<int64_t>(z.N, 1), per = std::max<int64_t>(1, per_sample_ws * int64_t(item));
  p.B = std::clamp<int64_t>((kMinWidth + z.L - 1) / std::max<int64_t>(z.L, 1), 1, N);
  p.B = std::clamp<int64_t>(std::min(p.B, kColsBudget / per), 1, N);  // one task's workspace in budget
  p.batches = (z.N + p.B - 1) / p.B;
  p.tasks = p.batches * z.G;
  int64_t align = std::max<int64_t>(1, 64 / int64_t(item));
  p.ws = ((p.B == 1 ? one_ws : per_sample_ws * p.B) + align - 1) / align * align;
  return p;
}
// Threads for `ntasks` tasks sharing the convolution's multiply-adds: more than one when every
// thread gets a task, the work is worth forking for and the workspaces fit the budget.
int task_threads(const Plan& p, const Sizes& z, int64_t ntasks, size_t item) {
  const int64_t work = z.N * z.Cout * z.K * z.L;
  int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  bool fits = p.ws * threads * int64_t(item) <= kColsBudget;
  return threads > 1 && ntasks >= threads && work >= kParallelGrain && fits ? threads : 1;
}

// Runs body(task, workspace, inner) for every task: on p.nt threads, or in turn with inner = true
// (the body may then spread its own loops over the threads).
template <class T, class Body>
void run_tasks(const Plan& p, int64_t ntasks, Body&& body) {
  Tensor wst = empty({std::max<int64_t>(1, p.ws * p.nt)}, dtype_of<T>::value);
  T* ws = wst.data<T>();
  if (p.nt == 1) {
    for (int64_t t = 0; t < ntasks; ++t) body(t, ws, true);
    return;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(p.nt)
  for (int64_t t = 0; t < ntasks; ++t) body(t, ws + p.ws * omp_get_thread_num(), false);
}

// cols[K, B*L] for samples [n0, n0+B) and the channels of group `grp`.
template <class T>
void fill_cols(const T* x, const Sizes& z, const Geo& g, int64_t n0, int64_t B, int64_t grp, T* cols, bool inner) {
  int64_t ld = B * z.L;
  auto one = [&](int64_t t) {
    int64_t b = t / z.Cin_g, c = t % z.Cin_g;
    im2col(x + ((n0 + b) * z.Cin + grp * z.Cin_g + c) * z.Lin, g, cols + c * z.KP * ld + b * z.L, ld);
  };
  // One task per (sample, channel), as collapse(2) would flatten them.
  if (inner) parallel_for(B * z.Cin_g, B * z.K * z.L, one);
  else
    for (int64_t t = 0; t < B * z.Cin_g; ++t) one(t);
}

// M[Cout_g, B*L] <-> t[n0+b, grp*Cout_g + o, :] (gather when `to_matrix`, else scatter).
template <class T>
void pack_channels(T* t, const Sizes& z, int64_t n0, int64_t B, int64_t grp, T* M, bool to_matrix, bool inner) {
  int64_t ld = B * z.L;
  auto one = [&](int64_t q) {
    int64_t b = q / z.Cout_g, o = q % z.Cout_g;
    T* plane = t + ((n0 + b) * z.Cout + grp * z.Cout_g + o) * z.L;
    T* row = M + o * ld + b * z.L;
    if (to_matrix) std::memcpy(row, plane, sizeof(T) * z.L);
    else std::memcpy(plane, row, sizeof(T) * z.L);
  };
  if (inner) parallel_for(B * z.Cout_g, B * z.Cout_g * z.L, one);
  else
    for (int64_t q = 0; q < B * z.Cout_g; ++q) one(q);
}

// A 1x1 kernel with unit stride and no padding reads the input planes as they are: the columns of
// one sample and group are x's [Cin_g, L] block.
bool pointwise(const Geo& g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0) return false;
  return true;
}

template <class T>
void conv_forward(const Tensor& xt, const Tensor& wt, Tensor& yt, const Attrs& a) {
  Geo g = make_geo(a, xt.shape(), yt.shape(), wt.shape());
  Sizes z = sizes(xt, yt, g, a.get<int64_t>("groups"));
  if (yt.numel() == 0) return;
  if (z.K == 0) {  // no input channels: an empty sum
    std::fill(yt.data<T>(), yt.data<T>() + yt.numel(), T(0));
    return;
  }
  Tensor xc = contiguous_input(xt), wc = contiguous_input(wt);
  const T *x = xc.data<T>(), *w = wc.data<T>();
  T* y = yt.data<T>();
  bool pw = pointwise(g);
  Plan p = make_plan(z, pw, sizeof(T));
  p.nt = task_threads(p, z, p.tasks, sizeof(T));
  run_tasks<T>(p, p.tasks, [&](int64_t task, T* ws, bool inner) {
    int64_t n0 = task / z.G * p.B, grp = task % z.G, B = std::min(p.B, z.N - n0);
    const T* W = w + grp * z.Cout_g * z.K;
    T* Y = y + (n0 * z.Cout + grp * z.Cout_g) * z.L;
    if (B == 1) {  // one sample: the GEMM writes the output planes in place
      const T* cols = x + (n0 * z.Cin + grp * z.Cin_g) * z.Lin;
      if (!pw) {
        fill_cols(x, z, g, n0, 1, grp, ws, inner);
        cols = ws;
      }
      gemm<T>(false, false, z.Cout_g, z.L, z.K, W, z.K, cols, z.L, T(0), Y, z.L);
      return;
    }
    T *cols = ws, *out = ws + z.K * B * z.L;
    fill_cols(x, z, g, n0, B, grp, cols, inner);
    gemm<T>(false, false, z.Cout_g, B * z.L, z.K, W, z.K, cols, B * z.L, T(0), out, B * z.L);
    pack_channels(y, z, n0, B, grp, out, false, inner);
  });
}

// conv_transpose(y, w): y is the conv output, the result the conv input. Each task writes the
// input planes of its samples and group: it zeroes them, then scatters W_g^T Y_g into them.
template <class T>
void conv_backward_data(const Tensor& yt, const Tensor& wt, Tensor& xt, const Attrs& a) {
  Geo g = make_geo(a, xt.shape(), yt.shape(), wt.shape());
  Sizes z = sizes(xt, yt, g, a.get<int64_t>("groups"));
  if (xt.numel() == 0) return;
  T* x = xt.data<T>();
  if (z.L == 0 || z.Cout_g == 0) {
    std::fill(x, x + xt.numel(), T(0));
    return;
  }
  Tensor yc = contiguous_input(yt), wc = contiguous_input(wt);
  T* y = yc.data<T>();
  const T* w = wc.data<T>();
  bool pw = pointwise(g);
  Plan p = make_plan(z, pw, sizeof(T));
  p.nt = task_threads(p, z, p.tasks, sizeof(T));
  run_tasks<T>(p, p.tasks, [&](int64_t task, T* ws, bool inner) {
    int64_t n0 = task / z.G * p.B, grp = task % z.G, B = std::min(p.B, z.N - n0);
    const T* W = w + grp * z.Cout_g * z.K;
    T* X = x + (n0 * z.Cin + grp * z.Cin_g) * z.Lin;
    if (B == 1 && pw) {  // the GEMM writes the input planes in place
      gemm<T>(true, false, z.K, z.L, z.Cout_g, W, z.K, y + (n0 * z.Cout + grp * z.Cout_g) * z.L, z.L, T(0), X, z.L);
      return;
    }
    int64_t ld = B * z.L;
    T* cols = ws;
    const T* Y = y + (n0 * z.Cout + grp * z.Cout_g) * z.L;
    if (B > 1) {
      T* in = ws + z.K * ld;
      pack_channels(y, z, n0, B, grp, in, true, inner);
      Y = in;
    }
    gemm<T>(true, false, z.K, ld, z.Cout_g, W, z.K, Y, ld, T(0), cols, ld);
    auto one = [&](int64_t t) {
      int64_t b = t / z.Cin_g, c = t % z.Cin_g;
      T* plane = x + ((n0 + b) * z.Cin + grp * z.Cin_g + c) * z.Lin;
      std::fill(plane, plane + z.Lin, T(0));
      col2im(cols + c * z.KP * ld + b * z.L, ld, g, plane);
    };
    if (inner) parallel_for(B * z.Cin_g, B * z.K * z.L, one);
    else
      for (int64_t t = 0; t < B * z.Cin_g; ++t) one(t);
  });
}

// conv_weight_grad(x, gy) = sum over samples of G_n cols_n^T. The batches of samples are split
// into at most kWeightChunks chunks (fixed by the shapes); each chunk sums its batches in order
// into a partial of its own, and the partials are added in chunk order.
constexpr int64_t kWeightChunks = 16;
template <class T>
void conv_backward_weight(const Tensor& xt, const Tensor& gt, Tensor& wt, const Attrs& a) {
  Geo g = make_geo(a, xt.shape(), gt.shape(), wt.shape());
  Sizes z = sizes(xt, gt, g, a.get<int64_t>("groups"));
  T* dw = wt.data<T>();
  std::fill(dw, dw + wt.numel(), T(0));
  if (z.N == 0 || z.L == 0 || wt.numel() == 0) return;
  Tensor xc = contiguous_input(xt), gc = contiguous_input(gt);
  const T* x = xc.data<T>();
  T* gy = gc.data<T>();
  bool pw = pointwise(g);
  int64_t wn = wt.numel();
  Plan p = make_plan(z, pw, sizeof(T));
  int64_t chunks = std::min(p.batches, kWeightChunks);
  if (wn * chunks * int64_t(sizeof(T)) > kColsBudget) chunks = 1;  // partials in budget
  p.nt = task_threads(p, z, chunks, sizeof(T));
  Tensor partt = chunks > 1 ? empty({chunks * wn}, dtype_of<T>::value) : Tensor();
  T* part = chunks > 1 ? partt.data<T>() : nullptr;
  // Chunk c holds batches [c * batches / chunks, (c + 1) * batches / chunks).
  run_tasks<T>(p, chunks, [&](int64_t c, T* ws, bool inner) {
    T* acc = chunks > 1 ? part + c * wn : dw;
    if (chunks > 1) std::fill(acc, acc + wn, T(0));
    for (int64_t bi = c * p.batches / chunks; bi < (c + 1) * p.batches / chunks; ++bi)
      for (int64_t grp = 0; grp < z.G; ++grp) {
        int64_t n0 = bi * p.B, B = std::min(p.B, z.N - n0), ld = B * z.L;
        const T* cols = x + (n0 * z.Cin + grp * z.Cin_g) * z.Lin;
        if (!(B == 1 && pw)) {
          fill_cols(x, z, g, n0, B, grp, ws, inner);
          cols = ws;
        }
        const T* Gm = gy + (n0 * z.Cout + grp * z.Cout_g) * z.L;
        if (B > 1) {
          T* gm = ws + z.K * ld;
          pack_channels(gy, z, n0, B, grp, gm, true, inner);
          Gm = gm;
        }
        gemm<T>(false, true, z.Cout_g, z.K, ld, Gm, ld, cols, ld, T(1), acc + grp * z.Cout_g * z.K, z.K);
      }
  });
  for (int64_t c = 0; c < chunks && chunks > 1; ++c)
    for (int64_t i = 0; i < wn; ++i) dw[i] += part[c * wn + i];
}

template <template <class> class Fn>
KernelFn by_dtype() {
  return [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
    switch (in[0].dtype()) {
      case DType::Float32: return Fn<float>::run(in[0], in[1], out[0], a);
      case DType::Float64: return Fn<double>::run(in[0], in[1], out[0], a);
      case DType::Complex64: return Fn<c64>::run(in[0], in[1], out[0], a);
      case DType::Complex128: return Fn<c128>::run(in[0], in[1], out[0], a);
      default: throw DTypeError(std::string("conv: no CPU kernel for ") + name(in[0].dtype()));
    }
  };
}
template <class T> struct Forward { static void run(const Tensor& a, const Tensor& b, Tensor& o, const Attrs& at) { conv_forward<T>(a, b, o, at); } };
template <class T> struct BackData { static void run(const Tensor& a, const Tensor& b, Tensor& o, const Attrs& at) { conv_backward_data<T>(a, b, o, at); } };
template <class T> struct BackWeight { static void run(const Tensor& a, const Tensor& b, Tensor& o, const Attrs& at) { conv_backward_weight<T>(a, b, o, at); } };

SPIRE_REGISTER_KERNEL("conv", DeviceKind::CPU, by_dtype<Forward>());
SPIRE_REGISTER_KERNEL("conv_transpose", DeviceKind::CPU, by_dtype<BackData>());
SPIRE_REGISTER_KERNEL("conv_weight_grad", DeviceKind::CPU, by_dtype<BackWeight>());

}  // namespace
}  // namespace spire::cpu
