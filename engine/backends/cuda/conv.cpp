// CUDA kernels of conv, conv_transpose and conv_weight_grad (the CPU's are engine/backends/cpu/
// conv.cpp; the op definitions in engine/ops/conv.cpp): im2col (conv.cu) + cuBLAS GEMM, over chunks
// of B samples whose column matrices fit kColsBudget:
//   conv:             Y[n, g] (Cout_g x L)  = W_g (Cout_g x K) * cols[n, g] (K x L)
//   conv_transpose:   cols[n, g] (K x L)    = W_g^T * Y[n, g], then col2im (a gather)
//   conv_weight_grad: dW_g (Cout_g x K)    += G_g (Cout_g x B*L) * cols_g^T (B*L x K)
// with K = C_in/groups * prod(kernel), L = prod(output spatial sizes); every geometry as 3-d. The
// per-(sample, group) products are strided-batched GEMMs over samples or over groups, whichever
// axis is longer (gemm_grid); the weight gradient's are batched over groups. A
// pointwise geometry (1x1 kernel, unit stride, no padding) reads x's planes as the column matrix.
// Determinism: the chunking depends only on the shapes and dtype, col2im sums in a fixed order
// without atomics, and the weight gradient accumulates chunk after chunk on one stream.
// float32 GEMMs follow set_float32_matmul_precision (TF32 only when asked), as matmul does.
#include <algorithm>

#include "engine/backends/cuda/blas_handle.h"
#include "engine/backends/cuda/conv.h"
#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {
using Ints = std::vector<int64_t>;

// Upper bound on the column matrices of one chunk (bytes); a single sample may exceed it.
constexpr int64_t kColsBudget = int64_t(256) << 20;

// Geometry from the spatial sizes of the conv input (`in`), conv output (`out`) and kernel.
ConvGeo make_geo(const Attrs& a, const Shape& in, const Shape& out, const Shape& k) {
  return conv_geometry(a.get<Ints>("stride"), a.get<Ints>("padding"), a.get<Ints>("dilation"), in, out, k);
}

bool pointwise(const ConvGeo& g) {
  for (int i = 0; i < 3; ++i)
    if (g.k[i] != 1 || g.s[i] != 1 || g.p[i] != 0) return false;
  return true;
}

// Sizes shared by the three kernels. `x` is the conv input, `y` the conv output (or its grad).
struct Sizes {
  int64_t N, Cin, Cout, G, Cin_g, Cout_g, KP, K, L, Lin;
};
Sizes sizes(const Tensor& x, const Tensor& y, const ConvGeo& g, int64_t groups) {
  Sizes z;
  z.N = x.shape(0), z.Cin = x.shape(1), z.Cout = y.shape(1), z.G = groups;
  z.Cin_g = z.Cin / groups, z.Cout_g = z.Cout / groups;
  z.KP = g.k[0] * g.k[1] * g.k[2], z.K = z.Cin_g * z.KP;
  z.L = g.out[0] * g.out[1] * g.out[2], z.Lin = g.in[0] * g.in[1] * g.in[2];
  return z;
}

// Samples per chunk: as many as keep `per_sample` elements each within kColsBudget.
int64_t chunk_samples(const Sizes& z, int64_t per_sample, size_t item) {
  int64_t bytes = std::max<int64_t>(1, per_sample * int64_t(item));
  return std::clamp<int64_t>(kColsBudget / bytes, 1, std::max<int64_t>(z.N, 1));
}

void* at(const Tensor& t, int64_t offset) { return static_cast<char*>(t.raw_data()) + offset * int64_t(t.itemsize()); }

void zero(Tensor& t, const char* op) {
  SPIRE_CUDA_CHECK(cudaMemsetAsync(t.raw_data(), 0, t.nbytes(), current_stream()), op);
}

// Where an operand's matrix for sample b and group g starts: base + b * per_sample + g * per_group
// elements.
struct Placement {
  const void* base;
  int64_t per_sample, per_group;
};

// The products of nb samples x G groups (all of shape `proto`), as strided-batched GEMMs along
// the longer of the two axes (one call per entry of the other): depthwise convolutions have many
// groups and few samples per chunk, ordinary ones the reverse.
void gemm_grid(GemmArgs proto, const Placement& a, const Placement& b, const Placement& c, int64_t nb, int64_t G,
               size_t item, const char* op) {
  auto shift = [&](const void* p, int64_t elems) {
    return static_cast<void*>(static_cast<char*>(const_cast<void*>(p)) + elems * int64_t(item));
  };
  const bool over_groups = G > nb;
  const int64_t outer = over_groups ? nb : G;
  proto.batch = over_groups ? G : nb;
  proto.stride_a = over_groups ? a.per_group : a.per_sample;
  proto.stride_b = over_groups ? b.per_group : b.per_sample;
  proto.stride_c = over_groups ? c.per_group : c.per_sample;
  for (int64_t i = 0; i < outer; ++i) {
    proto.a = shift(a.base, i * (over_groups ? a.per_sample : a.per_group));
    proto.b = shift(b.base, i * (over_groups ? b.per_sample : b.per_group));
    proto.c = shift(c.base, i * (over_groups ? c.per_sample : c.per_group));
    gemm(proto, op);
  }
}

ColumnMatrices columns(const Tensor& x, const Sizes& z, const ConvGeo& g) {
  ColumnMatrices m;
  m.elem = elem(x.dtype());
  m.geo = g;
  m.x = x.raw_data();
  m.groups = z.G;
  m.cin = z.Cin;
  return m;
}

void conv_forward(const Tensor& xt, const Tensor& wt, Tensor& yt, const Attrs& a) {
  const ConvGeo g = make_geo(a, xt.shape(), yt.shape(), wt.shape());
  const Sizes z = sizes(xt, yt, g, a.get<int64_t>("groups"));
  if (yt.numel() == 0) return;
  if (z.K == 0) return zero(yt, "conv: zero fill");  // no input channels: an empty sum
  Tensor x = dense(xt, "conv"), w = dense(wt, "conv");
  const bool pw = pointwise(g);
  const int64_t B = pw ? z.N : chunk_samples(z, z.G * z.K * z.L, x.itemsize());
  Tensor cols = pw ? Tensor() : empty({B * z.G * z.K * z.L}, x.dtype(), x.device());
  ColumnMatrices m = columns(x, z, g);
  m.cols = pw ? nullptr : cols.raw_data();
  m.sb = z.G * z.K * z.L, m.sg = z.K * z.L, m.sq = z.L;
  for (int64_t n0 = 0; n0 < z.N; n0 += B) {
    const int64_t nb = std::min(B, z.N - n0);
    if (!pw) {
      m.n0 = n0, m.B = nb;
      check_launch(launch_im2col(m), "conv");
    }
    GemmArgs gm;
    gm.dtype = x.dtype();
    gm.m = z.Cout_g, gm.n = z.L, gm.k = z.K;
    gm.lda = z.K, gm.ldb = z.L, gm.ldc = z.L;
    Placement W{w.raw_data(), 0, z.Cout_g * z.K};
    Placement Cols = pw ? Placement{at(x, n0 * z.Cin * z.Lin), z.Cin * z.Lin, z.Cin_g * z.Lin}
                        : Placement{cols.raw_data(), m.sb, m.sg};
    Placement Y{at(yt, n0 * z.Cout * z.L), z.Cout * z.L, z.Cout_g * z.L};
    gemm_grid(gm, W, Cols, Y, nb, z.G, x.itemsize(), "conv");
  }
}

// conv_transpose(y, w): y is the conv output, the result xt the conv input.
void conv_backward_data(const Tensor& yt, const Tensor& wt, Tensor& xt, const Attrs& a) {
  const ConvGeo g = make_geo(a, xt.shape(), yt.shape(), wt.shape());
  const Sizes z = sizes(xt, yt, g, a.get<int64_t>("groups"));
  if (xt.numel() == 0) return;
  if (z.L == 0 || z.Cout_g == 0) return zero(xt, "conv_transpose: zero fill");
  Tensor y = dense(yt, "conv_transpose"), w = dense(wt, "conv_transpose");
  const bool pw = pointwise(g);
  const int64_t B = pw ? z.N : chunk_samples(z, z.G * z.K * z.L, y.itemsize());
  Tensor cols = pw ? Tensor() : empty({B * z.G * z.K * z.L}, y.dtype(), y.device());
  ColumnMatrices m = columns(xt, z, g);
  m.cols = pw ? nullptr : cols.raw_data();
  m.sb = z.G * z.K * z.L, m.sg = z.K * z.L, m.sq = z.L;
  for (int64_t n0 = 0; n0 < z.N; n0 += B) {
    const int64_t nb = std::min(B, z.N - n0);
    GemmArgs gm;
    gm.dtype = y.dtype();
    gm.ta = true;  // W_g^T: W_g is stored Cout_g x K
    gm.m = z.K, gm.n = z.L, gm.k = z.Cout_g;
    gm.lda = z.K, gm.ldb = z.L, gm.ldc = z.L;
    Placement W{w.raw_data(), 0, z.Cout_g * z.K};
    Placement Y{at(y, n0 * z.Cout * z.L), z.Cout * z.L, z.Cout_g * z.L};
    Placement C = pw ? Placement{at(xt, n0 * z.Cin * z.Lin), z.Cin * z.Lin, z.Cin_g * z.Lin}
                     : Placement{cols.raw_data(), m.sb, m.sg};
    gemm_grid(gm, W, Y, C, nb, z.G, y.itemsize(), "conv_transpose");
    if (!pw) {
      m.n0 = n0, m.B = nb;
      check_launch(launch_col2im(m), "conv_transpose");
    }
  }
}

// conv_weight_grad(x, gy) = sum over samples of G_n cols_n^T, one chunk of samples at a time: the
// chunk's columns laid out per group as K x (B*L) and its gradient rows packed as Cout x (B*L), so
// one GEMM per group sums over the chunk's samples and positions, accumulating onto the previous
// chunks' sum.
void conv_backward_weight(const Tensor& xt, const Tensor& gt, Tensor& wt, const Attrs& a) {
  const ConvGeo g = make_geo(a, xt.shape(), gt.shape(), wt.shape());
  const Sizes z = sizes(xt, gt, g, a.get<int64_t>("groups"));
  if (wt.numel() == 0) return;
  if (z.N == 0 || z.L == 0) return zero(wt, "conv_weight_grad: zero fill");
  Tensor x = dense(xt, "conv_weight_grad"), gy = dense(gt, "conv_weight_grad");
  const bool pw = pointwise(g);
  const int64_t B = chunk_samples(z, z.G * z.K * z.L + z.Cout * z.L, x.itemsize());
  // One sample of a pointwise geometry needs no copies: x's and gy's planes are the matrices.
  const bool direct = pw && B == 1;
  Tensor cols = direct ? Tensor() : empty({B * z.G * z.K * z.L}, x.dtype(), x.device());
  Tensor packed = direct || B == 1 ? Tensor() : empty({z.Cout, B, z.L}, x.dtype(), x.device());
  ColumnMatrices m = columns(x, z, g);
  m.cols = direct ? nullptr : cols.raw_data();
  for (int64_t n0 = 0; n0 < z.N; n0 += B) {
    const int64_t nb = std::min(B, z.N - n0), width = nb * z.L;
    const void* colsp = direct ? at(x, n0 * z.Cin * z.Lin) : cols.raw_data();
    if (!direct) {
      m.n0 = n0, m.B = nb;
      m.sg = z.K * width, m.sq = width, m.sb = z.L;
      check_launch(launch_im2col(m), "conv_weight_grad");
    }
    // G: rows (output channels) of width nb * L; sample n0's planes as they are when nb == 1.
    const void* gp = at(gy, n0 * z.Cout * z.L);
    if (nb > 1) {
      Tensor dst = make_view(packed, {z.Cout, nb, z.L}, {nb * z.L, z.L, 1}, packed.offset());
      Tensor src = make_view(gy, {z.Cout, nb, z.L}, {z.L, z.Cout * z.L, 1}, gy.offset() + n0 * z.Cout * z.L);
      copy_layout(src, dst, "conv_weight_grad");
      gp = packed.raw_data();
    }
    GemmArgs gm;
    gm.dtype = x.dtype();
    gm.tb = true;  // cols_g^T: cols_g is stored K x (nb * L)
    gm.m = z.Cout_g, gm.n = z.K, gm.k = width, gm.batch = z.G;
    gm.a = gp, gm.lda = width, gm.stride_a = z.Cout_g * width;
    gm.b = colsp, gm.ldb = width, gm.stride_b = z.K * width;
    gm.c = wt.raw_data(), gm.ldc = z.K, gm.stride_c = z.Cout_g * z.K;
    gm.accumulate = n0 > 0;
    gemm(gm, "conv_weight_grad");
  }
}

using Body = void (*)(const Tensor&, const Tensor&, Tensor&, const Attrs&);
template <Body body>
void by_dtype(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  SPIRE_CHECK(is_inexact(in[0].dtype()), DTypeError, "conv: no CUDA kernel for ", name(in[0].dtype()));
  DeviceGuard guard(out[0].device());
  body(in[0], in[1], out[0], a);
}

SPIRE_REGISTER_KERNEL("conv", DeviceKind::CUDA, by_dtype<conv_forward>);
SPIRE_REGISTER_KERNEL("conv_transpose", DeviceKind::CUDA, by_dtype<conv_backward_data>);
SPIRE_REGISTER_KERNEL("conv_weight_grad", DeviceKind::CUDA, by_dtype<conv_backward_weight>);

}  // namespace
}  // namespace spire::cuda
