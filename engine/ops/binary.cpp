// Binary math (pow, atan2, maximum, minimum), selection (where) and clamping. Binary ops broadcast
// and promote in their public functions; the primitives see one dtype.
#include <cmath>
#include <optional>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

enum class Kinds { Any, Real, Floating };  // what a primitive accepts, bool aside

std::vector<TensorMeta> infer_binary(const char* op, const std::vector<Tensor>& in, Kinds kinds) {
  require_same_dtype(op, in);
  DType t = in[0].dtype();
  SPIRE_CHECK(t != DType::Bool, DTypeError, op, ": bool inputs are not supported; cast them first");
  SPIRE_CHECK(kinds != Kinds::Real || !is_complex(t), DTypeError, op,
              ": complex inputs are not supported (got ", name(t), "); allowed: int32, int64, float32, float64");
  SPIRE_CHECK(kinds != Kinds::Floating || is_floating(t), DTypeError, op, ": got ", name(t),
              " inputs; allowed: float32 or float64");
  return {broadcast_meta(op, in)};
}

// A tangent of a binary op, broadcast to the output (undefined stays undefined).
Tensor to_output(const Tensor& t, const JvpContext& c) {
  return t.defined() ? expand_to(t, c.outputs[0].shape()) : t;
}
Tensor zero_like_scalar(const Tensor& x) { return scalar_like(x, 0.0); }

// --- series helpers -------------------------------------------------------------------------------
using jets::Jet;

// x^n for a natural n by repeated squaring of jets: exact where x0 = 0 (x^2 at the origin).
Jet natural_power(const Jet& x, int64_t n) {
  Jet result, base = x;
  for (; n > 0; n >>= 1) {
    if (n & 1) result = result.empty() ? base : jets::mul(result, base, mul(result[0], base[0]));
    if (n > 1) base = jets::mul(base, base, mul(base[0], base[0]));
  }
  return result;
}

// log a where a != 0, and 0 where a = 0: the forward rule's convention for d(a^b)/db.
Tensor log_or_zero(const Tensor& a) {
  Tensor l = log(a);
  return where(eq(a, zero_like_scalar(a)), zero_like_scalar(l), l);
}

std::vector<Series> pow_taylor(const TaylorContext& c) {
  Jet a = jets::input(c, 0), b = jets::input(c, 1);
  const Tensor& z0 = c.outputs[0];
  if (jets::constant(b)) return {jets::tail(jets::pow(a, b[0], z0))};
  // z = exp(b log a). With a varying this needs a0 != 0 (a0 > 0 for real a), as the derivative in b
  // does; with only b varying, a0 = 0 gives zero series, as the forward rule does.
  Tensor la0 = log_or_zero(a[0]);
  Jet la = jets::constant(a) ? jets::constant_jet(la0, c.order) : jets::log(a, la0);
  return {jets::tail(jets::exp(jets::mul(b, la, Tensor()), z0))};
}

// atan2(y, x): z' = (x y' - y x') / (x^2 + y^2), a quotient of series of order K-1 whose integral is z.
std::vector<Series> atan2_taylor(const TaylorContext& c) {
  Jet y = jets::input(c, 0), x = jets::input(c, 1);
  Jet dy = jets::derivative(y), dx = jets::derivative(x);
  int K = c.order;
  Jet num(K), r(K);
  for (int i = 0; i < K; ++i) {
    num[i] = jets::sub(jets::cauchy(x, dy, i, 0, i), jets::cauchy(y, dx, i, 0, i));
    r[i] = jets::add(jets::cauchy(x, x, i, 0, i), jets::cauchy(y, y, i, 0, i));
  }
  Tensor w0 = num[0].defined() ? div(num[0], r[0]) : Tensor();
  return {jets::tail(jets::antiderivative(jets::div(num, r, w0), c.outputs[0]))};
}

// --- pow ------------------------------------------------------------------------------------------
// d(a^b)/da = b a^(b-1); d(a^b)/db = a^b log a, taken as 0 where a = 0 (the limit for b > 0, and
// what PyTorch does) instead of 0 * -inf.
Tensor dpow_da(const Tensor& a, const Tensor& b) { return mul(b, pow(a, sub(b, 1.0))); }
Tensor dpow_db(const Tensor& a, const Tensor& y) {
  Tensor d = mul(y, log(a));
  return where(eq(a, zero_like_scalar(a)), zero_like_scalar(d), d);
}

SPIRE_DEFINE_OP({
    .name = "pow",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_binary("pow", in, Kinds::Any); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor &a = c.inputs[0], &b = c.inputs[1], &g = c.grads[0];
      std::vector<Tensor> out(2);
      if (c.needs_grad[0]) out[0] = sum_to(mul(g, conj_if_complex(dpow_da(a, b))), a.shape());
      if (c.needs_grad[1]) out[1] = sum_to(mul(g, conj_if_complex(dpow_db(a, c.outputs[0]))), b.shape());
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor &a = c.inputs[0], &b = c.inputs[1];
      Tensor ta = c.tangents[0].defined() ? mul(c.tangents[0], dpow_da(a, b)) : Tensor();
      Tensor tb = c.tangents[1].defined() ? mul(c.tangents[1], dpow_db(a, c.outputs[0])) : Tensor();
      return {to_output(plus(ta, tb), c)};
    },
    .taylor = pow_taylor,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4}, 0.5, 2, 1), sample({3, 4}, -1.5, 1.5, 2)}, {}, "same shape"},
          {{sample({2, 3, 1}, 0.5, 2, 3), sample({4}, -1.5, 1.5, 4)}, {}, "broadcast"},
          {{sample({3}, 0.5, 2, 5, DType::Complex128), sample({2, 3}, -1, 1, 6, DType::Complex128)}, {}, "complex"},
      };
    },
});

// x^p for a constant p: no derivative with respect to p, and negative bases work for integer p.
Scalar minus_one(const Scalar& p) {
  switch (p.kind()) {
    case DType::Complex128: return Scalar(p.to_complex() - 1.0);
    case DType::Float64: return Scalar(p.to_double() - 1.0);
    default: return Scalar(p.to_int() - 1);
  }
}
bool is_zero(const Scalar& p) { return p.to_complex() == std::complex<double>(0.0); }
// d(x^p)/dx = p x^(p-1).
Tensor dpow_scalar(const Tensor& x, const Scalar& p) { return mul(pow(x, minus_one(p)), p); }

// A non-negative integral exponent, which repeated multiplication handles at x0 = 0.
std::optional<int64_t> natural_exponent(const Scalar& p) {
  if (p.kind() == DType::Int64 || p.kind() == DType::Bool)
    return p.to_int() >= 0 ? std::optional(p.to_int()) : std::nullopt;
  if (p.kind() != DType::Float64) return std::nullopt;
  double v = p.to_double();
  if (v >= 0 && v <= 1 << 30 && std::floor(v) == v) return int64_t(v);
  return std::nullopt;
}

std::vector<Series> pow_scalar_taylor(const TaylorContext& c) {
  const Scalar& p = c.attrs.get<Scalar>("exponent");
  if (is_zero(p)) return {};
  Jet x = jets::input(c, 0);
  if (auto n = natural_exponent(p)) return {jets::tail(natural_power(x, *n))};
  return {jets::tail(jets::pow(x, scalar_like(x[0], p), c.outputs[0]))};
}

SPIRE_DEFINE_OP({
    .name = "pow_scalar",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      DType t = in[0].dtype();
      const Scalar& p = a.template get<Scalar>("exponent");
      SPIRE_CHECK(t != DType::Bool, DTypeError, "pow: bool tensors are not supported; cast them first");
      SPIRE_CHECK(p.kind() != DType::Complex128 || is_complex(t), DTypeError,
                  "pow: a complex exponent needs a complex tensor, got ", name(t));
      return {{in[0].shape(), t}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Scalar& p = c.attrs.get<Scalar>("exponent");
      if (is_zero(p)) return {zeros_like(c.inputs[0])};
      return {mul(c.grads[0], conj_if_complex(dpow_scalar(c.inputs[0], p)))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Scalar& p = c.attrs.get<Scalar>("exponent");
      if (is_zero(p)) return {zeros_like(c.outputs[0])};
      return {mul(c.tangents[0], dpow_scalar(c.inputs[0], p))};
    },
    .taylor = pow_scalar_taylor,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4}, 0.5, 2, 1)}, {{"exponent", Scalar(2.5)}}, "fractional"},
          {{sample({3, 4}, 0.5, 2, 2)}, {{"exponent", Scalar(-1.5)}}, "negative"},
          {{sample({5}, -2, -0.5, 3)}, {{"exponent", Scalar(3)}}, "negative base, integer exponent"},
          {{sample({5}, -2, 2, 4)}, {{"exponent", Scalar(2)}}, "square"},
          // PINN residuals take powers at the origin: the Taylor rule multiplies there, no division.
          {{from_vector<double>({0.0, -1.3, 0.0, 0.7}, {4})}, {{"exponent", Scalar(3)}}, "cube through zero"},
          {{sample({4}, 0.5, 2, 5, DType::Complex128)}, {{"exponent", Scalar(std::complex<double>(0.5, 0.3))}},
           "complex"},
      };
    },
});

// --- atan2 ----------------------------------------------------------------------------------------
// d atan2(y, x) = (x dy - y dx) / (x^2 + y^2).
SPIRE_DEFINE_OP({
    .name = "atan2",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_binary("atan2", in, Kinds::Floating); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor &y = c.inputs[0], &x = c.inputs[1];
      Tensor gd = div(c.grads[0], add(square(x), square(y)));
      std::vector<Tensor> out(2);
      if (c.needs_grad[0]) out[0] = sum_to(mul(gd, x), y.shape());
      if (c.needs_grad[1]) out[1] = sum_to(neg(mul(gd, y)), x.shape());
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor &y = c.inputs[0], &x = c.inputs[1];
      Tensor ty = times(c.tangents[0], x);
      Tensor tx = c.tangents[1].defined() ? neg(mul(c.tangents[1], y)) : Tensor();
      return {to_output(div(plus(ty, tx), add(square(x), square(y))), c)};
    },
    .taylor = atan2_taylor,
    .batch = batching::batch_elementwise, .pointwise = true,
    // Branch cut along y = 0, x < 0: y stays positive.
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4}, 0.3, 2, 1), sample({3, 4}, -2, 2, 2)}, {}, "same shape"},
          {{sample({2, 1}, 0.3, 2, 3), sample({3}, -2, 2, 4)}, {}, "broadcast"},
      };
    },
});

// --- maximum, minimum -------------------------------------------------------------------------------
// The gradient goes to the larger (smaller) input; on ties it is split in halves, so the rule is
// the average of the two one-sided ones. The weight is a constant mask, so higher orders vanish.
Tensor weight_of_a(const Tensor& a, const Tensor& b, bool is_max) {
  DType t = a.dtype();
  Tensor wins = cast(is_max ? gt(a, b) : lt(a, b), t);
  return add(wins, mul(cast(eq(a, b), t), 0.5));
}

OpDef extremum(const char* op, bool is_max) {
  return OpDef{
      .name = op,
      .num_inputs = 2,
      .infer = [op](auto& in, auto&) { return infer_binary(op, in, Kinds::Real); },
      .vjp = [is_max](const VjpContext& c) -> std::vector<Tensor> {
        const Tensor &a = c.inputs[0], &b = c.inputs[1], &g = c.grads[0];
        Tensor w = weight_of_a(a, b, is_max);
        std::vector<Tensor> out(2);
        if (c.needs_grad[0]) out[0] = sum_to(mul(g, w), a.shape());
        if (c.needs_grad[1]) out[1] = sum_to(mul(g, 1.0 - w), b.shape());
        return out;
      },
      .jvp = [is_max](const JvpContext& c) -> std::vector<Tensor> {
        Tensor w = weight_of_a(c.inputs[0], c.inputs[1], is_max);
        Tensor ta = times(c.tangents[0], w);
        Tensor tb = c.tangents[1].defined() ? mul(c.tangents[1], 1.0 - w) : Tensor();
        return {to_output(plus(ta, tb), c)};
      },
      .taylor = jets::linear,  // piecewise linear: exact away from ties
      .batch = batching::batch_elementwise, .pointwise = true,
      // Independent random inputs: no ties.
      .samples = [] {
        return std::vector<OpSample>{
            {{sample({3, 4}, -1, 1, 1), sample({3, 4}, -1, 1, 2)}, {}, "same shape"},
            {{sample({2, 3, 1}, -1, 1, 3), sample({4}, -1, 1, 4)}, {}, "broadcast"},
        };
      },
  };
}
// Two ops from one recipe: registered directly, as SPIRE_DEFINE_OP takes a braced definition.
const detail::OpRegistrar kMaximum(extremum("maximum", true));
const detail::OpRegistrar kMinimum(extremum("minimum", false));

// --- where ----------------------------------------------------------------------------------------
SPIRE_DEFINE_OP({
    .name = "where",
    .num_inputs = 3,
    .infer = [](auto& in, auto&) -> std::vector<TensorMeta> {
      SPIRE_CHECK(in[0].dtype() == DType::Bool, DTypeError, "where: the condition must be bool, got ",
                  name(in[0].dtype()));
      require_same_dtype("where", {in[1], in[2]});
      TensorMeta m = broadcast_meta("where", in);
      return {{m.shape, in[1].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor &cond = c.inputs[0], &g = c.grads[0];
      Tensor zero = zero_like_scalar(g);
      std::vector<Tensor> out(3);
      if (c.needs_grad[1]) out[1] = sum_to(where(cond, g, zero), c.inputs[1].shape());
      if (c.needs_grad[2]) out[2] = sum_to(where(cond, zero, g), c.inputs[2].shape());
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      Tensor zero = zero_like_scalar(c.outputs[0]);
      Tensor ta = c.tangents[1].defined() ? c.tangents[1] : zero;
      Tensor tb = c.tangents[2].defined() ? c.tangents[2] : zero;
      return {expand_to(where(c.inputs[0], ta, tb), c.outputs[0].shape())};
    },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .nondiff_inputs = {0},
    .samples = [] {
      Tensor cond = sample_int({3, 1}, 0, 2, 1, DType::Bool);
      Tensor mixed = sample_int({3, 4}, 0, 2, 2, DType::Bool);
      return std::vector<OpSample>{
          {{mixed, sample({3, 4}, -1, 1, 3), sample({3, 4}, -1, 1, 4)}, {}, "same shape"},
          {{cond, sample({3, 4}, -1, 1, 5), sample({4}, -1, 1, 6)}, {}, "broadcast"},
          {{mixed, sample({4}, -1, 1, 7, DType::Complex128), sample({3, 1}, -1, 1, 8, DType::Complex128)},
           {}, "complex"},
      };
    },
});

// --- clamp ----------------------------------------------------------------------------------------
// The gradient passes where lo <= x <= hi (bounds given in attributes "lo" and/or "hi").
Tensor inside_bounds(const Tensor& x, const Attrs& a) {
  Tensor m;
  if (a.has("lo")) m = ge(x, scalar_like(x, a.get<Scalar>("lo")));
  if (a.has("hi")) {
    Tensor below = le(x, scalar_like(x, a.get<Scalar>("hi")));
    m = m.defined() ? logical_and(m, below) : below;
  }
  return m;
}

SPIRE_DEFINE_OP({
    .name = "clamp",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      DType t = in[0].dtype();
      SPIRE_CHECK(is_integral(t) || is_floating(t), DTypeError, "clamp: got a ", name(t),
                  " tensor; allowed: int32, int64, float32, float64");
      SPIRE_CHECK(a.has("lo") || a.has("hi"), ValueError, "clamp: give at least one bound");
      return {{in[0].shape(), t}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& g = c.grads[0];
      return {where(inside_bounds(c.inputs[0], c.attrs), g, zero_like_scalar(g))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor& t = c.tangents[0];
      return {where(inside_bounds(c.inputs[0], c.attrs), t, zero_like_scalar(t))};
    },
    .taylor = jets::linear,  // piecewise linear: exact away from the bounds
    .batch = batching::batch_elementwise, .pointwise = true,
    // Bounds well inside the sample range, and no sample within 1e-3 of them.
    .samples = [] {
      Tensor x = from_vector<double>({-1.7, -0.9, -0.41, -0.2, 0.1, 0.35, 0.69, 0.72, 1.3, 2.1}, {2, 5});
      return std::vector<OpSample>{
          {{x}, {{"lo", Scalar(-0.5)}, {"hi", Scalar(0.7)}}, "both"},
          {{x}, {{"lo", Scalar(0.0)}}, "min only"},
          {{x}, {{"hi", Scalar(0.3)}}, "max only"},
      };
    },
});

}  // namespace

// --- public functions -----------------------------------------------------------------------------
namespace {
Tensor bool_as_int(const Tensor& x) { return x.dtype() == DType::Bool ? cast(x, DType::Int64) : x; }
// The dtype of x op v for a weak (untyped) number v: x's, unless v needs a wider kind.
DType weak_dtype(const Tensor& x, Scalar v) { return scalar_like(x, v).dtype(); }
}  // namespace

Tensor pow(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("pow");
  auto [x, y] = promoted(a, b);
  return call1(d, {bool_as_int(x), bool_as_int(y)});
}

Tensor pow(const Tensor& a, Scalar b) {
  static const OpDef& d = op_def("pow_scalar");
  DType t = weak_dtype(a, b);
  if (t == DType::Bool) t = DType::Int64;
  SPIRE_CHECK(!is_integral(t) || b.to_int() >= 0, ValueError, "pow: integers to negative integer powers are "
              "not allowed (a ", name(a.dtype()), " tensor to the power ", b.str(), "); cast to float first");
  return call1(d, {a.dtype() == t ? a : cast(a, t)}, Attrs{{"exponent", b}});
}

Tensor atan2(const Tensor& y, const Tensor& x) {
  static const OpDef& d = op_def("atan2");
  auto [p, q] = promoted(y, x, /*inexact=*/true);
  return call1(d, {p, q});
}

Tensor maximum(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("maximum");
  auto [x, y] = promoted(a, b);
  return call1(d, {bool_as_int(x), bool_as_int(y)});
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("minimum");
  auto [x, y] = promoted(a, b);
  return call1(d, {bool_as_int(x), bool_as_int(y)});
}
Tensor maximum(const Tensor& a, Scalar b) { return maximum(a, scalar_like(a, b)); }
Tensor minimum(const Tensor& a, Scalar b) { return minimum(a, scalar_like(a, b)); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("where");
  auto [x, y] = promoted(a, b);
  return call1(d, {cond.dtype() == DType::Bool ? cond : ne(cond, zeros({}, cond.dtype(), cond.device())), x, y});
}
Tensor where(const Tensor& cond, const Tensor& a, Scalar b) { return where(cond, a, scalar_like(a, b)); }
Tensor where(const Tensor& cond, Scalar a, const Tensor& b) { return where(cond, scalar_like(b, a), b); }

namespace {
Tensor clamp_impl(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  static const OpDef& d = op_def("clamp");
  DType t = bool_as_int(x).dtype();
  Attrs attrs;
  for (auto [key, bound] : {std::pair{"lo", lo}, std::pair{"hi", hi}}) {
    if (!bound) continue;
    SPIRE_CHECK(bound->kind() != DType::Complex128, DTypeError, "clamp: complex bounds are not supported (",
                key, " = ", bound->str(), ")");
    t = promote(t, weak_dtype(x, *bound));
    attrs.set(key, *bound);
  }
  return call1(d, {x.dtype() == t ? x : cast(x, t)}, attrs);
}
}  // namespace

Tensor clamp(const Tensor& x, Scalar lo, Scalar hi) { return clamp_impl(x, lo, hi); }
Tensor clamp_min(const Tensor& x, Scalar lo) { return clamp_impl(x, lo, std::nullopt); }
Tensor clamp_max(const Tensor& x, Scalar hi) { return clamp_impl(x, std::nullopt, hi); }

}  // namespace spire
