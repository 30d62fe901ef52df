// Unary math: exp, log, trig, ... Integer inputs of the transcendental functions are cast to a
// floating type first (as NumPy does); abs, sign and square keep integers.
//
// Most of these are holomorphic where they accept complex inputs, so one derivative f'(x) gives
// both rules: reverse g * conj(f'(x)) (op.h's conjugate convention) and forward t * f'(x).
#include <numbers>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

// Which dtypes a primitive accepts; the public wrapper has already cast what it casts.
enum class Domain {
  Inexact,   // float32/64, complex64/128
  Floating,  // float32/64
  Signed,    // int32/64, float32/64, complex64/128 (no bool)
  Real,      // int32/64, float32/64
};

bool accepts(Domain d, DType t) {
  switch (d) {
    case Domain::Inexact: return is_inexact(t);
    case Domain::Floating: return is_floating(t);
    case Domain::Signed: return t != DType::Bool;
    case Domain::Real: return is_integral(t) || is_floating(t);
  }
  return false;
}
const char* allowed(Domain d) {
  switch (d) {
    case Domain::Inexact: return "float32, float64, complex64 or complex128";
    case Domain::Floating: return "float32 or float64 (complex is not supported)";
    case Domain::Signed: return "int32, int64, float32, float64, complex64 or complex128";
    case Domain::Real: return "int32, int64, float32 or float64 (for complex z use z / abs(z))";
  }
  return "";
}

InferFn infer_unary(const char* op, Domain d, bool real_out = false) {
  return [op, d, real_out](const std::vector<Tensor>& in, const Attrs&) -> std::vector<TensorMeta> {
    DType t = in[0].dtype();
    SPIRE_CHECK(accepts(d, t), DTypeError, op, ": got a ", name(t), " tensor; allowed: ", allowed(d));
    return {{in[0].shape(), real_out ? real_dtype(t) : t}};
  };
}

// f'(x) from the input x and the output y.
using Derivative = Tensor (*)(const Tensor& x, const Tensor& y);

VjpRule vjp_from(Derivative d) {
  return [d](const VjpContext& c) -> std::vector<Tensor> {
    return {mul(c.grads[0], conj_if_complex(d(c.inputs[0], c.outputs[0])))};
  };
}
JvpRule jvp_from(Derivative d) {
  return [d](const JvpContext& c) -> std::vector<Tensor> {
    return {mul(c.tangents[0], d(c.inputs[0], c.outputs[0]))};
  };
}
// For f'(x) = 1 / h(x) a division saves forming the reciprocal.
VjpRule vjp_over(Derivative h) {
  return [h](const VjpContext& c) -> std::vector<Tensor> {
    return {div(c.grads[0], conj_if_complex(h(c.inputs[0], c.outputs[0])))};
  };
}
JvpRule jvp_over(Derivative h) {
  return [h](const JvpContext& c) -> std::vector<Tensor> {
    return {div(c.tangents[0], h(c.inputs[0], c.outputs[0]))};
  };
}

// Real samples in [lo, hi), plus complex ones with both parts in [clo, chi) when clo < chi.
std::function<std::vector<OpSample>()> samples_in(double lo, double hi, double clo = 0, double chi = 0) {
  return [=] {
    std::vector<OpSample> s{{{sample({3, 4}, lo, hi, 1)}, {}, "real"}};
    if (clo < chi) s.push_back({{sample({5}, clo, chi, 2, DType::Complex128)}, {}, "complex"});
    return s;
  };
}

Tensor zero_derivative(const Tensor& x, const Tensor& y) { return zeros_like(y); }
const Scalar kI = std::complex<double>(0.0, 1.0);

// --- exponentials and logarithms ---------------------------------------------------------------
Tensor d_exp(const Tensor&, const Tensor& y) { return y; }
Tensor d_expm1(const Tensor&, const Tensor& y) { return add(y, 1.0); }
Tensor h_log(const Tensor& x, const Tensor&) { return x; }
Tensor h_log1p(const Tensor& x, const Tensor&) { return add(x, 1.0); }
Tensor h_sqrt(const Tensor&, const Tensor& y) { return mul(y, 2.0); }
Tensor d_rsqrt(const Tensor& x, const Tensor& y) { return mul(div(y, x), -0.5); }
Tensor d_reciprocal(const Tensor&, const Tensor& y) { return neg(square(y)); }
Tensor d_square(const Tensor& x, const Tensor&) { return mul(x, 2.0); }

SPIRE_DEFINE_OP({.name = "exp", .infer = infer_unary("exp", Domain::Inexact), .vjp = vjp_from(d_exp),
                 .jvp = jvp_from(d_exp), .samples = samples_in(-2, 2, -1, 1)});
SPIRE_DEFINE_OP({.name = "expm1", .infer = infer_unary("expm1", Domain::Inexact),
                 .vjp = vjp_from(d_expm1), .jvp = jvp_from(d_expm1), .samples = samples_in(-2, 2, -1, 1)});
// Branch cut of complex log on the negative real axis: samples keep Re z > 0.
SPIRE_DEFINE_OP({.name = "log", .infer = infer_unary("log", Domain::Inexact), .vjp = vjp_over(h_log),
                 .jvp = jvp_over(h_log), .samples = samples_in(0.2, 3, 0.2, 2)});
SPIRE_DEFINE_OP({.name = "log1p", .infer = infer_unary("log1p", Domain::Inexact),
                 .vjp = vjp_over(h_log1p), .jvp = jvp_over(h_log1p), .samples = samples_in(-0.8, 2, -0.5, 1)});
SPIRE_DEFINE_OP({.name = "sqrt", .infer = infer_unary("sqrt", Domain::Inexact), .vjp = vjp_over(h_sqrt),
                 .jvp = jvp_over(h_sqrt), .samples = samples_in(0.2, 3, 0.2, 2)});
SPIRE_DEFINE_OP({.name = "rsqrt", .infer = infer_unary("rsqrt", Domain::Inexact),
                 .vjp = vjp_from(d_rsqrt), .jvp = jvp_from(d_rsqrt), .samples = samples_in(0.2, 3, 0.2, 2)});
SPIRE_DEFINE_OP({.name = "reciprocal", .infer = infer_unary("reciprocal", Domain::Inexact),
                 .vjp = vjp_from(d_reciprocal), .jvp = jvp_from(d_reciprocal),
                 .samples = samples_in(0.3, 3, 0.3, 2)});
SPIRE_DEFINE_OP({.name = "square", .infer = infer_unary("square", Domain::Signed),
                 .vjp = vjp_from(d_square), .jvp = jvp_from(d_square), .samples = samples_in(-2, 2, -1, 1)});

// --- trigonometric and hyperbolic ----------------------------------------------------------------
Tensor d_sin(const Tensor& x, const Tensor&) { return cos(x); }
Tensor d_cos(const Tensor& x, const Tensor&) { return neg(sin(x)); }
Tensor d_tan(const Tensor&, const Tensor& y) { return add(square(y), 1.0); }
Tensor h_asin(const Tensor& x, const Tensor&) { return sqrt(1.0 - square(x)); }
Tensor h_acos(const Tensor& x, const Tensor&) { return neg(sqrt(1.0 - square(x))); }
Tensor h_atan(const Tensor& x, const Tensor&) { return add(square(x), 1.0); }
Tensor d_sinh(const Tensor& x, const Tensor&) { return cosh(x); }
Tensor d_cosh(const Tensor& x, const Tensor&) { return sinh(x); }
Tensor d_tanh(const Tensor&, const Tensor& y) { return 1.0 - square(y); }

SPIRE_DEFINE_OP({.name = "sin", .infer = infer_unary("sin", Domain::Inexact), .vjp = vjp_from(d_sin),
                 .jvp = jvp_from(d_sin), .samples = samples_in(-3, 3, -1, 1)});
SPIRE_DEFINE_OP({.name = "cos", .infer = infer_unary("cos", Domain::Inexact), .vjp = vjp_from(d_cos),
                 .jvp = jvp_from(d_cos), .samples = samples_in(-3, 3, -1, 1)});
// Poles at pi/2 + k pi: samples stay inside (-1.2, 1.2).
SPIRE_DEFINE_OP({.name = "tan", .infer = infer_unary("tan", Domain::Inexact), .vjp = vjp_from(d_tan),
                 .jvp = jvp_from(d_tan), .samples = samples_in(-1.2, 1.2, -0.6, 0.6)});
// asin and acos are singular at +-1 and cut along the real axis beyond: samples stay inside.
SPIRE_DEFINE_OP({.name = "asin", .infer = infer_unary("asin", Domain::Inexact), .vjp = vjp_over(h_asin),
                 .jvp = jvp_over(h_asin), .samples = samples_in(-0.8, 0.8, -0.6, 0.6)});
SPIRE_DEFINE_OP({.name = "acos", .infer = infer_unary("acos", Domain::Inexact), .vjp = vjp_over(h_acos),
                 .jvp = jvp_over(h_acos), .samples = samples_in(-0.8, 0.8, -0.6, 0.6)});
// Complex atan has branch points at +-i: samples keep |Im z| < 0.6.
SPIRE_DEFINE_OP({.name = "atan", .infer = infer_unary("atan", Domain::Inexact), .vjp = vjp_over(h_atan),
                 .jvp = jvp_over(h_atan), .samples = samples_in(-3, 3, -0.6, 0.6)});
SPIRE_DEFINE_OP({.name = "sinh", .infer = infer_unary("sinh", Domain::Inexact), .vjp = vjp_from(d_sinh),
                 .jvp = jvp_from(d_sinh), .samples = samples_in(-2, 2, -1, 1)});
SPIRE_DEFINE_OP({.name = "cosh", .infer = infer_unary("cosh", Domain::Inexact), .vjp = vjp_from(d_cosh),
                 .jvp = jvp_from(d_cosh), .samples = samples_in(-2, 2, -1, 1)});
// tanh' = 1 - tanh^2: the jet of g = 1 - z^2 follows z order by order.
jets::Jet jet_tanh(const jets::Jet& x, const Tensor& z0) {
  return jets::integrate(x, z0, [](int m, const jets::Jet& z) {
    Tensor zz = jets::cauchy(z, z, m, 0, m);
    return m == 0 ? 1.0 - zz : neg(zz);
  });
}
SPIRE_DEFINE_OP({.name = "tanh", .infer = infer_unary("tanh", Domain::Inexact), .vjp = vjp_from(d_tanh),
                 .jvp = jvp_from(d_tanh), .taylor = jets::unary(jet_tanh),
                 .batch = batching::batch_elementwise, .samples = samples_in(-2, 2, -0.7, 0.7)});

// --- activations and special functions -----------------------------------------------------------
Tensor d_sigmoid(const Tensor&, const Tensor& y) { return mul(y, 1.0 - y); }
Tensor d_softplus(const Tensor& x, const Tensor&) { return sigmoid(x); }
Tensor d_erf(const Tensor& x, const Tensor&) {
  return mul(exp(neg(square(x))), 2.0 / std::sqrt(std::numbers::pi));
}

SPIRE_DEFINE_OP({.name = "sigmoid", .infer = infer_unary("sigmoid", Domain::Inexact),
                 .vjp = vjp_from(d_sigmoid), .jvp = jvp_from(d_sigmoid), .samples = samples_in(-3, 3, -1, 1)});
SPIRE_DEFINE_OP({.name = "softplus", .infer = infer_unary("softplus", Domain::Floating),
                 .vjp = vjp_from(d_softplus), .jvp = jvp_from(d_softplus), .samples = samples_in(-4, 4)});
SPIRE_DEFINE_OP({.name = "erf", .infer = infer_unary("erf", Domain::Floating), .vjp = vjp_from(d_erf),
                 .jvp = jvp_from(d_erf), .samples = samples_in(-2, 2)});

// --- modulus, sign, phase --------------------------------------------------------------------------
// |z| for complex z: dL/dRe + i dL/dIm = g z / |z|. Samples keep away from the kink at 0.
SPIRE_DEFINE_OP({
    .name = "abs",
    .infer = infer_unary("abs", Domain::Signed, /*real_out=*/true),
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& x = c.inputs[0];
      if (is_complex(x.dtype())) return {mul(c.grads[0], div(x, c.outputs[0]))};
      return {mul(c.grads[0], sign(x))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor& x = c.inputs[0];
      if (is_complex(x.dtype())) return {div(real(mul(conj(x), c.tangents[0])), c.outputs[0])};
      return {mul(c.tangents[0], sign(x))};
    },
    .samples = [] {
      Tensor x = sample({3, 4}, 0.2, 2, 1);
      Tensor flip = sign(sample({3, 4}, -1, 1, 7));
      return std::vector<OpSample>{{{mul(x, flip)}, {}, "real"},
                                   {{sample({5}, 0.2, 2, 2, DType::Complex128)}, {}, "complex"}};
    },
});

// Piecewise constant: a zero derivative (as PyTorch and JAX), not an error.
SPIRE_DEFINE_OP({.name = "sign", .infer = infer_unary("sign", Domain::Real),
                 .vjp = vjp_from(zero_derivative), .jvp = jvp_from(zero_derivative),
                 .samples = samples_in(-2, 2)});

// arg z = atan2(Im z, Re z): dL/dRe + i dL/dIm = g (-Im z + i Re z) / |z|^2 = g i z / |z|^2.
// On reals the angle is 0 or pi, piecewise constant.
SPIRE_DEFINE_OP({
    .name = "angle",
    .infer = infer_unary("angle", Domain::Inexact, /*real_out=*/true),
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& x = c.inputs[0];
      if (!is_complex(x.dtype())) return {zeros_like(x)};
      return {mul(c.grads[0], div(mul(x, kI), square(abs(x))))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor& x = c.inputs[0];
      if (!is_complex(x.dtype())) return {zeros_like(c.outputs[0])};
      return {div(imag(mul(conj(x), c.tangents[0])), square(abs(x)))};
    },
    .samples = [] {
      return std::vector<OpSample>{{{sample({3, 4}, -2, 2, 1)}, {}, "real"},
                                   {{sample({6}, 0.2, 2, 2, DType::Complex128)}, {}, "complex"},
                                   {{neg(sample({6}, 0.2, 2, 3, DType::Complex128))}, {}, "complex, Re < 0"}};
    },
});

// --- rounding: piecewise constant, and the issue asks that differentiating them be an error ----
std::function<std::vector<OpSample>()> rounding_samples() {
  return [] {
    // Values away from the integers and from the half-integers (round's jumps).
    Tensor x = from_vector<double>({-2.7, -1.2, -0.3, 0.2, 0.7, 1.3, 2.6, 3.9}, {2, 4});
    return std::vector<OpSample>{{{x}, {}, "real"}};
  };
}
SPIRE_DEFINE_OP({.name = "floor", .infer = infer_unary("floor", Domain::Floating), .differentiable = false,
                 .samples = rounding_samples()});
SPIRE_DEFINE_OP({.name = "ceil", .infer = infer_unary("ceil", Domain::Floating), .differentiable = false,
                 .samples = rounding_samples()});
SPIRE_DEFINE_OP({.name = "round", .infer = infer_unary("round", Domain::Floating), .differentiable = false,
                 .samples = rounding_samples()});

}  // namespace

// The public functions pick the primitive's dtype, then call it. Integer and bool inputs of the
// transcendental functions become floating (int -> float32); integers are already integral, so
// rounding returns them unchanged (as NumPy does).
#define SPIRE_UNARY(fn, prepare)                    \
  Tensor fn(const Tensor& x) {                      \
    static const OpDef& d = op_def(#fn);            \
    return call1(d, {prepare(x)});                  \
  }
#define SPIRE_INEXACT_UNARY(fn) SPIRE_UNARY(fn, rules::as_inexact)

namespace {
Tensor bool_as_int(const Tensor& x) { return x.dtype() == DType::Bool ? cast(x, DType::Int64) : x; }
bool is_integer_like(const Tensor& x) { return is_integral(x.dtype()) || x.dtype() == DType::Bool; }
}  // namespace

Tensor abs(const Tensor& x) {
  static const OpDef& d = op_def("abs");
  return x.dtype() == DType::Bool ? x : call1(d, {x});
}
SPIRE_UNARY(sign, bool_as_int)
SPIRE_UNARY(square, bool_as_int)
SPIRE_INEXACT_UNARY(exp)
SPIRE_INEXACT_UNARY(expm1)
SPIRE_INEXACT_UNARY(log)
SPIRE_INEXACT_UNARY(log1p)
SPIRE_INEXACT_UNARY(sqrt)
SPIRE_INEXACT_UNARY(rsqrt)
SPIRE_INEXACT_UNARY(reciprocal)
SPIRE_INEXACT_UNARY(sin)
SPIRE_INEXACT_UNARY(cos)
SPIRE_INEXACT_UNARY(tan)
SPIRE_INEXACT_UNARY(asin)
SPIRE_INEXACT_UNARY(acos)
SPIRE_INEXACT_UNARY(atan)
SPIRE_INEXACT_UNARY(sinh)
SPIRE_INEXACT_UNARY(cosh)
SPIRE_INEXACT_UNARY(tanh)
SPIRE_INEXACT_UNARY(sigmoid)
SPIRE_INEXACT_UNARY(softplus)
SPIRE_INEXACT_UNARY(erf)
SPIRE_INEXACT_UNARY(angle)

Tensor floor(const Tensor& x) {
  static const OpDef& d = op_def("floor");
  return is_integer_like(x) ? x : call1(d, {x});
}
Tensor ceil(const Tensor& x) {
  static const OpDef& d = op_def("ceil");
  return is_integer_like(x) ? x : call1(d, {x});
}
Tensor round(const Tensor& x) {
  static const OpDef& d = op_def("round");
  return is_integer_like(x) ? x : call1(d, {x});
}

#undef SPIRE_INEXACT_UNARY
#undef SPIRE_UNARY

}  // namespace spire
