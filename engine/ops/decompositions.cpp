// Dense factorisation-based primitives: solve, inverse, det, cholesky, triangular_solve. Each acts
// on the last two axes, batched (with broadcasting) over the leading ones. Reverse rules follow
// Giles 2008, "Collected matrix derivative results for forward and reverse mode AD"; the Cholesky
// rule is Murray 2016 / PyTorch's. All rules are written with these same ops, so they nest.
#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;

void check_square(const char* op, const Tensor& a) {
  SPIRE_CHECK(a.dim() >= 2 && a.shape(-1) == a.shape(-2), ShapeError, op,
              ": expected square matrices in the last two axes, got shape ", shape_str(a.shape()));
}

void check_inexact(const char* op, const std::vector<Tensor>& in) {
  require_same_dtype(op, in);
  SPIRE_CHECK(is_inexact(in[0].dtype()), DTypeError, op,
              ": the primitive takes float32, float64, complex64 or complex128, got ", name(in[0].dtype()));
}

// Shape of the solution of a [..., n, n] system with right-hand sides b [..., n, k].
std::vector<TensorMeta> infer_system(const char* op, const std::vector<Tensor>& in) {
  check_inexact(op, in);
  const Tensor& a = in[0];
  const Tensor& b = in[1];
  check_square(op, a);
  SPIRE_CHECK(b.dim() >= 2 && b.shape(-2) == a.shape(-1), ShapeError, op, ": right-hand side of shape ",
              shape_str(b.shape()), " does not match the matrix of shape ", shape_str(a.shape()),
              " (expected [..., ", a.shape(-1), ", k])");
  Shape out = broadcast_shapes(Shape(a.shape().begin(), a.shape().end() - 2),
                               Shape(b.shape().begin(), b.shape().end() - 2), op);
  out.push_back(b.shape(-2));
  out.push_back(b.shape(-1));
  return {{out, a.dtype()}};
}

std::vector<TensorMeta> infer_square(const char* op, const std::vector<Tensor>& in) {
  check_inexact(op, in);
  check_square(op, in[0]);
  return {{in[0].shape(), in[0].dtype()}};
}

// A constant [n, n] mask: 1 strictly inside the lower (or upper) triangle, `diag` on the diagonal;
// built on the CPU and moved to `device` (that of the tensor it multiplies).
Tensor triangle_mask(int64_t n, bool lower, double diag, DType dtype, Device device) {
  Tensor m = zeros({n, n}, DType::Float64);
  double* p = m.data<double>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) p[i * n + j] = i == j ? diag : ((lower ? i > j : i < j) ? 1.0 : 0.0);
  return to(cast(m, dtype), device);
}

Tensor hermitian_part(const Tensor& x) { return mul(add(x, mH(x)), 0.5); }

// Well-conditioned general matrices for samples: random entries plus a dominant diagonal.
Tensor sample_regular(const Shape& shape, uint64_t seed, DType dtype = DType::Float64) {
  int64_t n = shape.back();
  return add(sample(shape, -1, 1, seed, dtype), mul(eye(n, dtype), double(n) + 1.0));
}

// --- Taylor rules ---------------------------------------------------------------------------------
// Linear systems A(t) X(t) = B(t) order by order: A0 X_k = B_k - sum_{j=1}^k A_j X_{k-j}, each
// solved with the op itself at A0. `coef(A_j)` is the part of A_j the op reads (a triangle).
using jets::Jet;
using MatrixFn = std::function<Tensor(const Tensor&)>;
Jet system_series(const Jet& a, const Jet& b, const Tensor& x0, const MatrixFn& solve0, const MatrixFn& coef = {}) {
  Jet m = a;
  if (coef)
    for (size_t j = 1; j < m.size(); ++j)
      if (m[j].defined()) m[j] = coef(m[j]);
  Jet x = jets::constant_jet(x0, jets::order(a));
  auto mm = [](const Tensor& p, const Tensor& q) { return matmul(p, q); };
  for (int k = 1; k <= jets::order(a); ++k) {
    Tensor rhs = jets::sub(b[k], jets::cauchy(m, x, k, 1, k, mm));
    x[k] = rhs.defined() ? expand_to(solve0(rhs), x0.shape()) : Tensor();
  }
  return x;
}

// Inverse: A X = I, so X_k = -X0 sum_{j=1}^k A_j X_{k-j}.
Jet inverse_series(const Jet& a, const Tensor& x0) {
  Jet x = jets::constant_jet(x0, jets::order(a));
  auto mm = [](const Tensor& p, const Tensor& q) { return matmul(p, q); };
  for (int k = 1; k <= jets::order(a); ++k) {
    Tensor s = jets::cauchy(a, x, k, 1, k, mm);
    x[k] = s.defined() ? neg(matmul(x0, s)) : Tensor();
  }
  return x;
}

// det: z' = z tr(A^-1 A'). With W the series of A^-1 and D that of A' (D_i = (i+1) A_{i+1}), the
// series of g = tr(W D) has g_i = sum_j tr(W_j D_{i-j}), and z' = z g gives
// z_k = (1/k) sum_{i=0}^{k-1} g_i z_{k-1-i}.
std::vector<Series> det_taylor(const TaylorContext& c) {
  Jet a = jets::input(c, 0);
  int K = c.order;
  Jet w = inverse_series(Jet(a.begin(), a.end() - 1), inverse(a[0]));
  Jet d(K);
  for (int i = 0; i < K; ++i) d[i] = jets::scale(a[i + 1], double(i + 1));
  auto trace_of_product = [](const Tensor& p, const Tensor& q) { return sum(mul(mT(p), q), {-2, -1}); };
  Jet g(K);
  for (int i = 0; i < K; ++i) g[i] = jets::cauchy(w, d, i, 0, i, trace_of_product);
  Jet z = jets::constant_jet(c.outputs[0], K);
  for (int k = 1; k <= K; ++k) z[k] = jets::scale(jets::cauchy(g, z, k - 1, 0, k - 1), 1.0 / k);
  return {jets::tail(z)};
}

SPIRE_DEFINE_OP({
    .name = "solve",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_system("solve", in); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& a = c.inputs[0];
      Tensor gb = solve(mH(a), c.grads[0]);
      std::vector<Tensor> out(2);
      if (c.needs_grad[0]) out[0] = sum_to(neg(matmul(gb, mH(c.outputs[0]))), a.shape());
      if (c.needs_grad[1]) out[1] = sum_to(gb, c.inputs[1].shape());
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      Tensor rhs = c.tangents[1];
      if (c.tangents[0].defined()) rhs = plus(rhs, neg(matmul(c.tangents[0], c.outputs[0])));
      if (!rhs.defined()) return {Tensor()};
      // The primitive, not the public solve, which could read a lower-rank rhs as a batch of vectors.
      return {expand_to(call1(c.op, {c.inputs[0], rhs}), c.outputs[0].shape())};
    },
    .taylor = [](const TaylorContext& c) -> std::vector<Series> {
      const Tensor& a0 = c.inputs[0];
      auto solve0 = [&](const Tensor& rhs) { return call1(c.op, {a0, rhs}); };
      return {jets::tail(system_series(jets::input(c, 0), jets::input(c, 1), c.outputs[0], solve0))};
    },
    .batch = batching::batch_elementwise,  // leading axes broadcast: the mapped one lines up first
    .samples = [] {
      return std::vector<OpSample>{
          {{sample_regular({3, 3}, 1), sample({3, 2}, -1, 1, 2)}, {}, "one system"},
          {{sample_regular({2, 1, 3, 3}, 3), sample({3, 3, 1}, -1, 1, 4)}, {}, "batch broadcast"},
          {{sample_regular({2, 2}, 5, DType::Complex128), sample({2, 3}, -1, 1, 6, DType::Complex128)}, {},
           "complex"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "inverse",
    .infer = [](auto& in, auto&) { return infer_square("inverse", in); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      Tensor xh = mH(c.outputs[0]);
      return {neg(matmul(matmul(xh, c.grads[0]), xh))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor& x = c.outputs[0];
      return {neg(matmul(matmul(x, c.tangents[0]), x))};
    },
    .taylor = jets::unary(inverse_series),
    .batch = batching::batch_elementwise,
    .samples = [] {
      return std::vector<OpSample>{
          {{sample_regular({3, 3}, 1)}, {}, "3x3"},
          {{sample_regular({2, 2, 2}, 2)}, {}, "batch"},
          {{sample_regular({3, 3}, 3, DType::Complex128)}, {}, "complex"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "det",
    .infer = [](auto& in, auto&) -> std::vector<TensorMeta> {
      check_inexact("det", in);
      check_square("det", in[0]);
      return {{Shape(in[0].shape().begin(), in[0].shape().end() - 2), in[0].dtype()}};
    },
    // d det = det tr(A^-1 dA): holomorphic with d det / dA = det A^-T, so grad_A = g conj(det) A^-H.
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      Tensor s = mul(c.grads[0], conj_if_complex(c.outputs[0]));
      s = unsqueeze(unsqueeze(s, -1), -1);
      return {mul(s, mH(inverse(c.inputs[0])))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      Tensor tr = sum(mul(mT(inverse(c.inputs[0])), c.tangents[0]), {-2, -1});
      return {mul(c.outputs[0], tr)};
    },
    .taylor = det_taylor,
    .batch = batching::batch_elementwise,
    .samples = [] {
      return std::vector<OpSample>{
          {{add(sample({3, 3}, -1, 1, 1), eye(3, DType::Float64))}, {}, "3x3"},
          {{sample_regular({2, 2, 2}, 2)}, {}, "batch"},
          {{add(sample({3, 3}, -1, 1, 3, DType::Complex128), eye(3, DType::Complex128))}, {}, "complex"},
      };
    },
});

// The factor of the Hermitian part (A + A^H) / 2, as jnp.linalg.cholesky(symmetrize_input=True):
// the function is then defined (and differentiable) on every square matrix, not on one triangle.
SPIRE_DEFINE_OP({
    .name = "cholesky",
    .infer = [](auto& in, auto&) { return infer_square("cholesky", in); },
    // With Psi(P) = tril(P) with its diagonal halved: grad_A = herm(L^-H Psi(L^H g) L^-1).
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& l = c.outputs[0];
      Tensor lh = mH(l);
      Tensor psi = mul(matmul(lh, c.grads[0]), triangle_mask(l.shape(-1), true, 0.5, l.dtype(), l.device()));
      Tensor y = triangular_solve(lh, psi, /*lower=*/false);                // L^-H Psi
      Tensor g = mH(triangular_solve(lh, mH(y), /*lower=*/false));          // L^-H Psi L^-1
      return {hermitian_part(g)};
    },
    // dL = L Phi(L^-1 dS L^-H), dS = herm(dA), Phi = Psi.
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor& l = c.outputs[0];
      Tensor ds = hermitian_part(c.tangents[0]);
      Tensor z = triangular_solve(l, mH(triangular_solve(l, ds, true)), true);
      return {matmul(l, mul(z, triangle_mask(l.shape(-1), true, 0.5, l.dtype(), l.device())))};
    },
    // L L^H = S order by order: L0 L_k^H + L_k L0^H = A_k - sum_{j=1}^{k-1} L_j L_{k-j}^H, which is
    // the forward rule's equation with the right-hand side as the tangent (the sum is Hermitian, so
    // the rule's Hermitian part leaves it as it is).
    .taylor = [](const TaylorContext& c) -> std::vector<Series> {
      Jet a = jets::input(c, 0);
      Jet l = jets::constant_jet(c.outputs[0], c.order);
      auto outer = [](const Tensor& p, const Tensor& q) { return matmul(p, mH(q)); };
      for (int k = 1; k <= c.order; ++k) {
        Tensor rhs = jets::sub(a[k], jets::cauchy(l, l, k, 1, k - 1, outer));
        if (!rhs.defined()) continue;
        l[k] = c.op.jvp(JvpContext{c.op, c.attrs, c.inputs, c.outputs, {rhs}})[0];
      }
      return {jets::tail(l)};
    },
    .batch = batching::batch_elementwise,
    .samples = [] {
      return std::vector<OpSample>{
          {{rules_sample_spd({}, 3, 1)}, {}, "3x3"},
          {{rules_sample_spd({2}, 2, 2)}, {}, "batch"},
          {{rules_sample_spd({}, 3, 3, DType::Complex128)}, {}, "complex"},
      };
    },
});

// Solves op(A) X = B with op(A) = A or A^T, reading only A's `lower` (or upper) triangle.
SPIRE_DEFINE_OP({
    .name = "triangular_solve",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_system("triangular_solve", in); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      bool transpose = c.attrs.get<bool>("transpose_a");
      bool low = c.attrs.get<bool>("lower") != transpose;  // which triangle op(A) has
      Tensor m = transpose ? mT(c.inputs[0]) : c.inputs[0];
      Tensor gb = triangular_solve(mH(m), c.grads[0], !low);
      std::vector<Tensor> out(2);
      if (c.needs_grad[0]) {
        Tensor gm = mul(neg(matmul(gb, mH(c.outputs[0]))), triangle_mask(m.shape(-1), low, 1.0, m.dtype(), m.device()));
        out[0] = sum_to(transpose ? mT(gm) : gm, c.inputs[0].shape());
      }
      if (c.needs_grad[1]) out[1] = sum_to(gb, c.inputs[1].shape());
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      bool transpose = c.attrs.get<bool>("transpose_a");
      bool low = c.attrs.get<bool>("lower") != transpose;
      Tensor m = transpose ? mT(c.inputs[0]) : c.inputs[0];
      Tensor rhs = c.tangents[1];
      if (c.tangents[0].defined()) {
        Tensor dm = transpose ? mT(c.tangents[0]) : c.tangents[0];
        dm = mul(dm, triangle_mask(m.shape(-1), low, 1.0, m.dtype(), m.device()));
        rhs = plus(rhs, neg(matmul(dm, c.outputs[0])));
      }
      if (!rhs.defined()) return {Tensor()};
      return {expand_to(call1(c.op, {m, rhs}, Attrs{{"lower", low}, {"transpose_a", false}}), c.outputs[0].shape())};
    },
    .taylor = [](const TaylorContext& c) -> std::vector<Series> {
      bool transpose = c.attrs.get<bool>("transpose_a");
      bool low = c.attrs.get<bool>("lower") != transpose;
      const Tensor& a0 = c.inputs[0];
      Tensor mask = triangle_mask(a0.shape(-1), low, 1.0, a0.dtype(), a0.device());
      auto op_of = [&](const Tensor& a) { return mul(transpose ? mT(a) : a, mask); };
      auto solve0 = [&](const Tensor& rhs) { return call1(c.op, {a0, rhs}, c.attrs); };
      return {jets::tail(system_series(jets::input(c, 0), jets::input(c, 1), c.outputs[0], solve0, op_of))};
    },
    .batch = batching::batch_elementwise,
    .samples = [] {
      auto attrs = [](bool lower, bool transpose) { return Attrs{{"lower", lower}, {"transpose_a", transpose}}; };
      return std::vector<OpSample>{
          {{sample_regular({3, 3}, 1), sample({3, 2}, -1, 1, 2)}, attrs(true, false), "lower"},
          {{sample_regular({3, 3}, 3), sample({2, 3, 2}, -1, 1, 4)}, attrs(false, true), "upper transposed batch"},
          {{sample_regular({2, 1, 2, 2}, 5), sample({3, 2, 1}, -1, 1, 6)}, attrs(true, true), "lower transposed"},
          {{sample_regular({3, 3}, 7, DType::Complex128), sample({3, 2}, -1, 1, 8, DType::Complex128)},
           attrs(false, false), "complex upper"},
      };
    },
});

// NumPy 2 treats b as a vector only when it is 1-d; PyTorch also when b is [..., n] beside a
// [..., n, n] with matching batch. We follow PyTorch, which batches vectors without ambiguity.
bool rhs_is_vector(const Tensor& a, const Tensor& b) {
  if (b.dim() == 1) return true;
  if (b.dim() != a.dim() - 1) return false;
  return Shape(b.shape().begin(), b.shape().end()) == Shape(a.shape().begin(), a.shape().end() - 1);
}

Tensor call_system(const OpDef& d, const char* op, const Tensor& a, const Tensor& b, const Attrs& attrs) {
  auto [x, y] = promoted(a, b, /*inexact=*/true);
  check_square(op, x);
  SPIRE_CHECK(y.dim() >= 1, ShapeError, op, ": the right-hand side must have at least 1 dimension, got shape ",
              shape_str(b.shape()));
  bool vec = rhs_is_vector(x, y);
  if (vec) y = unsqueeze(y, -1);
  SPIRE_CHECK(y.dim() >= 2 && y.shape(-2) == x.shape(-1), ShapeError, op, ": right-hand side of shape ",
              shape_str(b.shape()), " does not match the matrix of shape ", shape_str(a.shape()),
              " (expected [..., ", x.shape(-1), "] or [..., ", x.shape(-1), ", k])");
  Tensor r = call1(d, {x, y}, attrs);
  return vec ? squeeze(r, {-1}) : r;
}

}  // namespace

Tensor solve(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("solve");
  return call_system(d, "solve", a, b, {});
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a) {
  static const OpDef& d = op_def("triangular_solve");
  return call_system(d, "triangular_solve", a, b, Attrs{{"lower", lower}, {"transpose_a", transpose_a}});
}

Tensor inverse(const Tensor& a) {
  static const OpDef& d = op_def("inverse");
  check_square("inverse", a);
  return call1(d, {as_inexact(a)});
}

Tensor det(const Tensor& a) {
  static const OpDef& d = op_def("det");
  check_square("det", a);
  return call1(d, {as_inexact(a)});
}

Tensor cholesky(const Tensor& a) {
  static const OpDef& d = op_def("cholesky");
  check_square("cholesky", a);
  return call1(d, {as_inexact(a)});
}

Tensor rules_sample_spd(const Shape& batch, int64_t n, uint64_t seed, DType dtype) {
  SPIRE_CHECK(dtype == DType::Float64 || dtype == DType::Complex128, DTypeError,
              "rules_sample_spd: float64 or complex128 only, got ", name(dtype));
  Shape s = batch;
  s.push_back(n);
  s.push_back(n);
  Tensor x = sample(s, -1, 1, seed, dtype);
  // X X^H / n has eigenvalues in about [0, 4 var] (Marchenko-Pastur) with var = 1/3 the variance of
  // an entry (2/3 when complex, hence the halving); adding I keeps the spectrum in about [1, 2.4].
  double scale = 1.0 / (double(n) * (dtype == DType::Complex128 ? 2.0 : 1.0));
  Tensor a = add(mul(matmul(x, mH(x)), scale), eye(n, dtype));
  return contiguous(hermitian_part(a));
}

}  // namespace spire
