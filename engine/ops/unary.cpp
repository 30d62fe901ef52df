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
std::vector<Series> zero_series(const TaylorContext&) { return {}; }
const Scalar kI = std::complex<double>(0.0, 1.0);

// --- Taylor rules: jets in normalised coefficients (series.h) ----------------------------------
// The forward-Laplacian pass calls these at order 2 with x2 undefined and x1 batched over many
// directions, so every step skips zero terms, multiplications by one, and coefficients that are
// not needed (an auxiliary series is carried to order K-1 only).
using jets::Jet;

Jet truncated(const Jet& x, int order) { return Jet(x.begin(), x.begin() + order + 1); }

// Coefficient k >= 1 of sign * x^2: the cross terms x_j x_{k-j} come in equal pairs.
Tensor square_coefficient(const Jet& x, int k, double sign = 1.0) {
  Tensor pairs = jets::scale(jets::cauchy(x, x, k, 0, (k - 1) / 2), 2.0 * sign);
  const Tensor& mid = x[k / 2];
  Tensor middle = k % 2 == 0 && mid.defined() ? jets::scale(square(mid), sign) : Tensor();
  return jets::add(pairs, middle);
}

// The jet of c + sign * x^2 to `order`, its value v0 given.
Jet square_jet(const Jet& x, int order, const Tensor& v0, double sign = 1.0) {
  Jet q = jets::constant_jet(v0, order);
  for (int k = 1; k <= order; ++k) q[k] = square_coefficient(x, k, sign);
  return q;
}

// z' = g(z) x' with g a polynomial in z: tan (1 + z^2), tanh (1 - z^2), sigmoid (z - z^2),
// expm1 (1 + z). The jet of g follows z order by order.
Jet jet_tan(const Jet& x, const Tensor& z0) {
  return jets::integrate(x, z0, [](int m, const Jet& z) {
    return m == 0 ? add(square(z[0]), 1.0) : square_coefficient(z, m);
  });
}
Jet jet_tanh(const Jet& x, const Tensor& z0) {
  return jets::integrate(x, z0, [](int m, const Jet& z) {
    return m == 0 ? 1.0 - square(z[0]) : square_coefficient(z, m, -1.0);
  });
}
Jet jet_sigmoid(const Jet& x, const Tensor& z0) {
  return jets::integrate(x, z0, [](int m, const Jet& z) {
    return m == 0 ? mul(z[0], 1.0 - z[0]) : jets::add(z[m], square_coefficient(z, m, -1.0));
  });
}
Jet jet_expm1(const Jet& x, const Tensor& z0) {
  return jets::integrate(x, z0, [](int m, const Jet& z) { return m == 0 ? add(z[0], 1.0) : z[m]; });
}

Jet jet_exp(const Jet& x, const Tensor& z0) { return jets::exp(x, z0); }
Jet jet_log(const Jet& x, const Tensor& z0) { return jets::log(x, z0); }
Jet jet_log1p(const Jet& x, const Tensor& z0) {
  Jet a = x;
  a[0] = add(x[0], 1.0);
  return jets::log(a, z0);
}
Jet jet_sqrt(const Jet& x, const Tensor& z0) { return jets::sqrt(x, z0); }
Jet jet_rsqrt(const Jet& x, const Tensor& z0) { return jets::pow(x, -0.5, z0); }
Jet jet_reciprocal(const Jet& x, const Tensor& z0) { return jets::reciprocal(x, z0); }
Jet jet_square(const Jet& x, const Tensor& z0) { return square_jet(x, jets::order(x), z0); }

Jet jet_sin(const Jet& x, const Tensor& z0) { return jets::coupled(x, z0, cos(x[0]), -1.0); }
Jet jet_cos(const Jet& x, const Tensor& z0) { return jets::coupled(x, z0, neg(sin(x[0])), -1.0); }
Jet jet_sinh(const Jet& x, const Tensor& z0) { return jets::coupled(x, z0, cosh(x[0]), 1.0); }
Jet jet_cosh(const Jet& x, const Tensor& z0) { return jets::coupled(x, z0, sinh(x[0]), 1.0); }

// asin' = 1 / sqrt(1 - x^2) and acos' = -1 / sqrt(1 - x^2); negating the value of a square root's
// jet negates every coefficient (it is the other root), which gives acos's h for free.
Jet jet_asin_acos(const Jet& x, const Tensor& z0, double root_sign) {
  int K = jets::order(x);
  Jet u = square_jet(x, K - 1, 1.0 - square(x[0]), -1.0);
  Jet h = jets::sqrt(u, jets::scale(sqrt(u[0]), root_sign));
  return jets::integrate_over(x, h, z0);
}
Jet jet_asin(const Jet& x, const Tensor& z0) { return jet_asin_acos(x, z0, 1.0); }
Jet jet_acos(const Jet& x, const Tensor& z0) { return jet_asin_acos(x, z0, -1.0); }
Jet jet_atan(const Jet& x, const Tensor& z0) {
  return jets::integrate_over(x, square_jet(x, jets::order(x) - 1, add(square(x[0]), 1.0)), z0);
}

// softplus' = sigmoid(x).
Jet jet_softplus(const Jet& x, const Tensor& z0) {
  int K = jets::order(x);
  return jets::integrate(x, z0, jet_sigmoid(truncated(x, K - 1), sigmoid(x[0])));
}
// erf' = 2/sqrt(pi) exp(-x^2). exp's recurrence is linear in its value, so starting it from
// 2/sqrt(pi) exp(-x0^2) gives the scaled series directly.
Jet jet_erf(const Jet& x, const Tensor& z0) {
  int K = jets::order(x);
  Jet u = square_jet(x, K - 1, neg(square(x[0])), -1.0);
  Jet g = jets::exp(u, mul(exp(u[0]), 2.0 / std::sqrt(std::numbers::pi)));
  return jets::integrate(x, z0, g);
}

// |x| of real x is locally linear: z_k = sign(x0) x_k. Complex |z| = sqrt(re^2 + im^2) is not
// holomorphic, so its jet comes from the jets of the two parts.
std::vector<Series> taylor_abs(const TaylorContext& c) {
  Jet x = jets::input(c, 0);
  const Tensor& z0 = c.outputs[0];
  int K = c.order;
  if (!is_complex(x[0].dtype())) {
    Tensor s = sign(x[0]);
    Series z(K);
    for (int k = 1; k <= K; ++k) z[k - 1] = jets::mul(x[k], s);
    return {z};
  }
  Jet re(K + 1), im(K + 1);
  for (int k = 0; k <= K; ++k)
    if (x[k].defined()) re[k] = real(x[k]), im[k] = imag(x[k]);
  Jet q = square_jet(re, K, square(z0));
  for (int k = 1; k <= K; ++k) q[k] = jets::add(q[k], square_coefficient(im, k));
  return {jets::tail(jets::sqrt(q, z0))};
}

// arg z = Im log z for complex z, away from the cut (the coefficients past the value do not depend
// on the branch). Real angles are piecewise constant: zero coefficients.
std::vector<Series> taylor_angle(const TaylorContext& c) {
  Jet x = jets::input(c, 0);
  if (!is_complex(x[0].dtype())) return zero_series(c);
  Jet l = jets::log(x, Tensor());  // log's recurrence never reads its value
  Series z(c.order);
  for (int k = 1; k <= c.order; ++k)
    if (l[k].defined()) z[k - 1] = imag(l[k]);
  return {z};
}

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
                 .jvp = jvp_from(d_exp), .taylor = jets::unary(jet_exp), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(-2, 2, -1, 1)});
SPIRE_DEFINE_OP({.name = "expm1", .infer = infer_unary("expm1", Domain::Inexact), .vjp = vjp_from(d_expm1),
                 .jvp = jvp_from(d_expm1), .taylor = jets::unary(jet_expm1),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-2, 2, -1, 1)});
// Branch cut of complex log on the negative real axis: samples keep Re z > 0.
SPIRE_DEFINE_OP({.name = "log", .infer = infer_unary("log", Domain::Inexact), .vjp = vjp_over(h_log),
                 .jvp = jvp_over(h_log), .taylor = jets::unary(jet_log), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(0.2, 3, 0.2, 2)});
SPIRE_DEFINE_OP({.name = "log1p", .infer = infer_unary("log1p", Domain::Inexact), .vjp = vjp_over(h_log1p),
                 .jvp = jvp_over(h_log1p), .taylor = jets::unary(jet_log1p),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-0.8, 2, -0.5, 1)});
SPIRE_DEFINE_OP({.name = "sqrt", .infer = infer_unary("sqrt", Domain::Inexact), .vjp = vjp_over(h_sqrt),
                 .jvp = jvp_over(h_sqrt), .taylor = jets::unary(jet_sqrt),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(0.2, 3, 0.2, 2)});
SPIRE_DEFINE_OP({.name = "rsqrt", .infer = infer_unary("rsqrt", Domain::Inexact), .vjp = vjp_from(d_rsqrt),
                 .jvp = jvp_from(d_rsqrt), .taylor = jets::unary(jet_rsqrt),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(0.2, 3, 0.2, 2)});
SPIRE_DEFINE_OP({.name = "reciprocal", .infer = infer_unary("reciprocal", Domain::Inexact),
                 .vjp = vjp_from(d_reciprocal), .jvp = jvp_from(d_reciprocal),
                 .taylor = jets::unary(jet_reciprocal), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(0.3, 3, 0.3, 2)});
SPIRE_DEFINE_OP({.name = "square", .infer = infer_unary("square", Domain::Signed), .vjp = vjp_from(d_square),
                 .jvp = jvp_from(d_square), .taylor = jets::unary(jet_square),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-2, 2, -1, 1)});

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
                 .jvp = jvp_from(d_sin), .taylor = jets::unary(jet_sin), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(-3, 3, -1, 1)});
SPIRE_DEFINE_OP({.name = "cos", .infer = infer_unary("cos", Domain::Inexact), .vjp = vjp_from(d_cos),
                 .jvp = jvp_from(d_cos), .taylor = jets::unary(jet_cos), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(-3, 3, -1, 1)});
// Poles at pi/2 + k pi: samples stay inside (-1.2, 1.2).
SPIRE_DEFINE_OP({.name = "tan", .infer = infer_unary("tan", Domain::Inexact), .vjp = vjp_from(d_tan),
                 .jvp = jvp_from(d_tan), .taylor = jets::unary(jet_tan), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(-1.2, 1.2, -0.6, 0.6)});
// asin and acos are singular at +-1 and cut along the real axis beyond: samples stay inside.
SPIRE_DEFINE_OP({.name = "asin", .infer = infer_unary("asin", Domain::Inexact), .vjp = vjp_over(h_asin),
                 .jvp = jvp_over(h_asin), .taylor = jets::unary(jet_asin),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-0.8, 0.8, -0.6, 0.6)});
SPIRE_DEFINE_OP({.name = "acos", .infer = infer_unary("acos", Domain::Inexact), .vjp = vjp_over(h_acos),
                 .jvp = jvp_over(h_acos), .taylor = jets::unary(jet_acos),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-0.8, 0.8, -0.6, 0.6)});
// Complex atan has branch points at +-i: samples keep |Im z| < 0.6.
SPIRE_DEFINE_OP({.name = "atan", .infer = infer_unary("atan", Domain::Inexact), .vjp = vjp_over(h_atan),
                 .jvp = jvp_over(h_atan), .taylor = jets::unary(jet_atan),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-3, 3, -0.6, 0.6)});
SPIRE_DEFINE_OP({.name = "sinh", .infer = infer_unary("sinh", Domain::Inexact), .vjp = vjp_from(d_sinh),
                 .jvp = jvp_from(d_sinh), .taylor = jets::unary(jet_sinh),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-2, 2, -1, 1)});
SPIRE_DEFINE_OP({.name = "cosh", .infer = infer_unary("cosh", Domain::Inexact), .vjp = vjp_from(d_cosh),
                 .jvp = jvp_from(d_cosh), .taylor = jets::unary(jet_cosh),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-2, 2, -1, 1)});
SPIRE_DEFINE_OP({.name = "tanh", .infer = infer_unary("tanh", Domain::Inexact), .vjp = vjp_from(d_tanh),
                 .jvp = jvp_from(d_tanh), .taylor = jets::unary(jet_tanh),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-2, 2, -0.7, 0.7)});

// --- activations and special functions -----------------------------------------------------------
Tensor d_sigmoid(const Tensor&, const Tensor& y) { return mul(y, 1.0 - y); }
Tensor d_softplus(const Tensor& x, const Tensor&) { return sigmoid(x); }
Tensor d_erf(const Tensor& x, const Tensor&) {
  return mul(exp(neg(square(x))), 2.0 / std::sqrt(std::numbers::pi));
}

SPIRE_DEFINE_OP({.name = "sigmoid", .infer = infer_unary("sigmoid", Domain::Inexact),
                 .vjp = vjp_from(d_sigmoid), .jvp = jvp_from(d_sigmoid), .taylor = jets::unary(jet_sigmoid),
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-3, 3, -1, 1)});
SPIRE_DEFINE_OP({.name = "softplus", .infer = infer_unary("softplus", Domain::Floating),
                 .vjp = vjp_from(d_softplus), .jvp = jvp_from(d_softplus),
                 .taylor = jets::unary(jet_softplus), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(-4, 4)});
SPIRE_DEFINE_OP({.name = "erf", .infer = infer_unary("erf", Domain::Floating), .vjp = vjp_from(d_erf),
                 .jvp = jvp_from(d_erf), .taylor = jets::unary(jet_erf), .batch = batching::batch_elementwise, .pointwise = true,
                 .samples = samples_in(-2, 2)});

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
    .taylor = taylor_abs,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] {
      Tensor x = sample({3, 4}, 0.2, 2, 1);
      Tensor flip = sign(sample({3, 4}, -1, 1, 7));
      return std::vector<OpSample>{{{mul(x, flip)}, {}, "real"},
                                   {{sample({5}, 0.2, 2, 2, DType::Complex128)}, {}, "complex"}};
    },
});

// Piecewise constant: a zero derivative (as PyTorch and JAX), not an error.
SPIRE_DEFINE_OP({.name = "sign", .infer = infer_unary("sign", Domain::Real), .vjp = vjp_from(zero_derivative),
                 .jvp = jvp_from(zero_derivative), .taylor = zero_series,
                 .batch = batching::batch_elementwise, .pointwise = true, .samples = samples_in(-2, 2)});

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
    .taylor = taylor_angle,
    .batch = batching::batch_elementwise, .pointwise = true,
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
SPIRE_DEFINE_OP({.name = "floor", .infer = infer_unary("floor", Domain::Floating),
                 .batch = batching::batch_elementwise, .pointwise = true, .differentiable = false,
                 .samples = rounding_samples()});
SPIRE_DEFINE_OP({.name = "ceil", .infer = infer_unary("ceil", Domain::Floating),
                 .batch = batching::batch_elementwise, .pointwise = true, .differentiable = false,
                 .samples = rounding_samples()});
SPIRE_DEFINE_OP({.name = "round", .infer = infer_unary("round", Domain::Floating),
                 .batch = batching::batch_elementwise, .pointwise = true, .differentiable = false,
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
