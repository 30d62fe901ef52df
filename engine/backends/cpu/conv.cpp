// CPU kernels of conv, conv_transpose and conv_weight_grad: im2col + one BLAS GEMM per group
// over a chunk of the batch, so that small images still give the GEMM a wide right-hand side.
//   conv:             Y_g[Cout_g, B*L]  = W_g[Cout_g, K] * cols[K, B*L]
//   conv_transpose:   cols[K, B*L]      = W_g^T * Y_g, then col2im (scatter-add)
//   conv_weight_grad: dW_g[Cout_g, K]  += G_g[Cout_g, B*L] * cols^T
// with K = C_in/groups * prod(kernel), L = prod(output spatial sizes). Every spatial geometry is
// handled as 3-d (missing axes of size 1). im2col/col2im run OpenMP-parallel over (sample,
// channel) pairs; each channel plane is written by one thread in a fixed order, so results do
// not depend on the thread count. The chunk size depends only on the shapes.
#include <cblas.h>

#include <algorithm>
#include <cstring>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {
using Ints = std::vector<int64_t>;

// Upper bound on the im2col buffer of one chunk (bytes).
constexpr int64_t kColsBudget = int64_t(64) << 20;

struct Geo {
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

// Geometry from the spatial sizes of the conv input (`in`), conv output (`out`) and kernel.
Geo make_geo(const Attrs& a, const Shape& in, const Shape& out, const Shape& k) {
  const Ints &s = a.get<Ints>("stride"), &p = a.get<Ints>("padding"), &d = a.get<Ints>("dilation");
  int64_t D = int64_t(s.size()), lead = 3 - D;
  Geo g;
  for (int64_t i = 0; i < 3; ++i) {
    bool real_axis = i >= lead;
    int64_t j = i - lead;
    g.in[i] = real_axis ? in[in.size() - D + j] : 1;
    g.out[i] = real_axis ? out[out.size() - D + j] : 1;
    g.k[i] = real_axis ? k[k.size() - D + j] : 1;
    g.s[i] = real_axis ? s[j] : 1;
    g.p[i] = real_axis ? p[j] : 0;
    g.d[i] = real_axis ? d[j] : 1;
  }
  return g;
}

// Output positions [lo, hi) along one axis whose input index o*s + off lies in [0, n).
inline void valid_range(int64_t off, int64_t s, int64_t n, int64_t out, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = n - 1 - off < 0 ? 0 : (n - 1 - off) / s + 1;
  lo = std::min(lo, out);
  hi = std::max(lo, std::min(hi, out));
}

// The rows of one input channel plane X (contiguous, g.in sizes) in the column matrix: row r of
// the k_size() rows starts at cols + r * ld and holds out_size() entries.
template <class T>
void im2col(const T* X, const Geo& g, T* cols, int64_t ld) {
  const int64_t o1 = g.out[1], o2 = g.out[2];
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        T* row = cols + ((k0 * g.k[1] + k1) * g.k[2] + k2) * ld;
        int64_t lo, hi;
        valid_range(k2 * g.d[2] - g.p[2], g.s[2], g.in[2], o2, lo, hi);
        const int64_t off2 = k2 * g.d[2] - g.p[2], s2 = g.s[2];
        for (int64_t a = 0; a < g.out[0]; ++a) {
          int64_t i0 = a * g.s[0] - g.p[0] + k0 * g.d[0];
          for (int64_t b = 0; b < o1; ++b) {
            T* dst = row + (a * o1 + b) * o2;
            int64_t i1 = b * g.s[1] - g.p[1] + k1 * g.d[1];
            if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1]) {
              std::fill(dst, dst + o2, T(0));
              continue;
            }
            const T* src = X + (i0 * g.in[1] + i1) * g.in[2] + off2;
            std::fill(dst, dst + lo, T(0));
            if (s2 == 1) std::copy(src + lo, src + hi, dst + lo);
            else
              for (int64_t c = lo; c < hi; ++c) dst[c] = src[c * s2];
            std::fill(dst + hi, dst + o2, T(0));
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

// Samples per chunk: as many as keep the column buffer within budget (at least one).
int64_t chunk_size(int64_t N, int64_t K, int64_t L, size_t item) {
  int64_t per = std::max<int64_t>(1, K * L * int64_t(item));
  return std::clamp<int64_t>(kColsBudget / per, 1, std::max<int64_t>(N, 1));
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

// cols[K, B*L] for samples [n0, n0+B) and the channels of group `grp`.
template <class T>
void fill_cols(const T* x, const Sizes& z, const Geo& g, int64_t n0, int64_t B, int64_t grp, T* cols) {
  int64_t ld = B * z.L;
  // One task per (sample, channel), as collapse(2) would flatten them.
  parallel_for(B * z.Cin_g, B * z.K * z.L, [&](int64_t t) {
    int64_t b = t / z.Cin_g, c = t % z.Cin_g;
    im2col(x + ((n0 + b) * z.Cin + grp * z.Cin_g + c) * z.Lin, g, cols + c * z.KP * ld + b * z.L, ld);
  });
}

// M[Cout_g, B*L] <-> t[n0+b, grp*Cout_g + o, :] (gather when `to_matrix`, else scatter).
template <class T>
void pack_channels(T* t, const Sizes& z, int64_t n0, int64_t B, int64_t grp, T* M, bool to_matrix) {
  int64_t ld = B * z.L;
  parallel_for(B * z.Cout_g, B * z.Cout_g * z.L, [&](int64_t q) {
    int64_t b = q / z.Cout_g, o = q % z.Cout_g;
    T* plane = t + ((n0 + b) * z.Cout + grp * z.Cout_g + o) * z.L;
    T* row = M + o * ld + b * z.L;
    if (to_matrix) std::memcpy(row, plane, sizeof(T) * z.L);
    else std::memcpy(plane, row, sizeof(T) * z.L);
  });
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
  int64_t Bmax = chunk_size(z.N, z.K, z.L, sizeof(T));
  std::vector<T> cols(size_t(z.K * Bmax * z.L)), out(Bmax > 1 ? size_t(z.Cout_g * Bmax * z.L) : 0);
  for (int64_t n0 = 0; n0 < z.N; n0 += Bmax) {
    int64_t B = std::min(Bmax, z.N - n0);
    for (int64_t grp = 0; grp < z.G; ++grp) {
      fill_cols(x, z, g, n0, B, grp, cols.data());
      const T* W = w + grp * z.Cout_g * z.K;
      if (B == 1) {  // one sample: the GEMM writes the output planes in place
        gemm<T>(false, false, z.Cout_g, z.L, z.K, W, z.K, cols.data(), z.L, T(0),
                y + (n0 * z.Cout + grp * z.Cout_g) * z.L, z.L);
      } else {
        gemm<T>(false, false, z.Cout_g, B * z.L, z.K, W, z.K, cols.data(), B * z.L, T(0), out.data(), B * z.L);
        pack_channels(y, z, n0, B, grp, out.data(), false);
      }
    }
  }
}

// conv_transpose(y, w): y is the conv output, the result the conv input.
template <class T>
void conv_backward_data(const Tensor& yt, const Tensor& wt, Tensor& xt, const Attrs& a) {
  Geo g = make_geo(a, xt.shape(), yt.shape(), wt.shape());
  Sizes z = sizes(xt, yt, g, a.get<int64_t>("groups"));
  if (xt.numel() == 0) return;
  T* x = xt.data<T>();
  std::fill(x, x + xt.numel(), T(0));
  Tensor yc = contiguous_input(yt), wc = contiguous_input(wt);
  T* y = yc.data<T>();
  const T* w = wc.data<T>();
  int64_t Bmax = chunk_size(z.N, z.K, z.L, sizeof(T));
  std::vector<T> cols(size_t(z.K * Bmax * z.L)), in(Bmax > 1 ? size_t(z.Cout_g * Bmax * z.L) : 0);
  for (int64_t n0 = 0; n0 < z.N; n0 += Bmax) {
    int64_t B = std::min(Bmax, z.N - n0);
    for (int64_t grp = 0; grp < z.G; ++grp) {
      const T* Y = y + (n0 * z.Cout + grp * z.Cout_g) * z.L;
      if (B > 1) {
        pack_channels(y, z, n0, B, grp, in.data(), true);
        Y = in.data();
      }
      gemm<T>(true, false, z.K, B * z.L, z.Cout_g, w + grp * z.Cout_g * z.K, z.K, Y, B * z.L, T(0),
              cols.data(), B * z.L);
      int64_t ld = B * z.L;
      parallel_for(B * z.Cin_g, B * z.K * z.L, [&](int64_t t) {
        int64_t b = t / z.Cin_g, c = t % z.Cin_g;
        col2im(cols.data() + c * z.KP * ld + b * z.L, ld, g, x + ((n0 + b) * z.Cin + grp * z.Cin_g + c) * z.Lin);
      });
    }
  }
}

// conv_weight_grad(x, gy): sums over the batch inside the GEMM, chunk after chunk in order.
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
  int64_t Bmax = chunk_size(z.N, z.K, z.L, sizeof(T));
  std::vector<T> cols(size_t(z.K * Bmax * z.L)), gm(Bmax > 1 ? size_t(z.Cout_g * Bmax * z.L) : 0);
  for (int64_t n0 = 0; n0 < z.N; n0 += Bmax) {
    int64_t B = std::min(Bmax, z.N - n0);
    for (int64_t grp = 0; grp < z.G; ++grp) {
      fill_cols(x, z, g, n0, B, grp, cols.data());
      const T* Gm = gy + (n0 * z.Cout + grp * z.Cout_g) * z.L;
      if (B > 1) {
        pack_channels(gy, z, n0, B, grp, gm.data(), true);
        Gm = gm.data();
      }
      gemm<T>(false, true, z.Cout_g, z.K, B * z.L, Gm, B * z.L, cols.data(), B * z.L, T(1),
              dw + grp * z.Cout_g * z.K, z.K);
    }
  }
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
