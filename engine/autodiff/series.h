// Arithmetic on truncated Taylor series, for writing Taylor rules (core/op.h). A Jet holds the
// normalised coefficients x0..xK of one tensor; x0 is always defined, higher ones may be undefined
// (zero), and every function here skips the work a zero term would cost. The recurrences are the
// classic ones of automatic differentiation (Griewank & Walther, "Evaluating Derivatives", ch. 13).
#pragma once
#include <functional>

#include "engine/core/op.h"

namespace spire::jets {

using Jet = std::vector<Tensor>;

// {x0, x1, ..., xK} of input i of a rule.
Jet input(const TaylorContext& c, size_t i);
// The rule's answer for one output: z1..zK.
Series tail(const Jet& z);
// True when every coefficient past x0 is zero.
bool constant(const Jet& x);
int order(const Jet& x);

// Coefficient-wise helpers where undefined is zero.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor scale(const Tensor& a, double s);

using Bilinear = std::function<Tensor(const Tensor&, const Tensor&)>;
// sum_{j=lo}^{hi} f(a_j, b_{k-j}) with undefined terms skipped (f defaults to mul). Passing the same
// jet as a and b (a square) forms each symmetric product once.
Tensor cauchy(const Jet& a, const Jet& b, int k, int lo, int hi, const Bilinear& f = {});

// Series of compositions; z0 is the already computed value of the result.
Jet mul(const Jet& a, const Jet& b, const Tensor& z0);
Jet div(const Jet& a, const Jet& b, const Tensor& z0);
Jet reciprocal(const Jet& a, const Tensor& z0);
Jet exp(const Jet& a, const Tensor& z0);
Jet log(const Jet& a, const Tensor& z0);        // z0 unused past the value; a0 != 0
// a^p for a constant exponent p (a tensor broadcasting with a, or a number); a0 != 0 where a varies.
Jet pow(const Jet& a, const Tensor& p, const Tensor& z0);
Jet pow(const Jet& a, double p, const Tensor& z0);
Jet sqrt(const Jet& a, const Tensor& z0);
// u of the pair u' = v a', v' = sign u a' from u0 and v0 (sin: v0 = cos, sign -1; cos: v0 = -sin;
// sinh, cosh: sign +1). The partner v is carried to order K-1 only.
Jet coupled(const Jet& a, const Tensor& u0, const Tensor& v0, double sign);
// z with z' = g * a', where coefficient g_m may depend on z_0..z_m (tanh: g = 1 - z^2): solved
// order by order. `g(m, z)` is called once z_m is known.
Jet integrate(const Jet& a, const Tensor& z0, const std::function<Tensor(int m, const Jet& z)>& g);
// z with z' = g * a' for a known series g (of order >= K-1).
Jet integrate(const Jet& a, const Tensor& z0, const Jet& g);
// z with h * z' = a' for a known series h (of order >= K-1): for f' = 1/h it spares the series of 1/h.
Jet integrate_over(const Jet& a, const Jet& h, const Tensor& z0);
// sum_{j=1}^{k} j a_j b_{k-j}: the coefficient of t^(k-1) in a'(t) b(t), so z' = a' b gives
// z_k = weighted(a, b, k) / k. Undefined terms are skipped, so a b_k not yet known may be left out.
Tensor weighted(const Jet& a, const Jet& b, int k);
// The series of x'(t) (order K-1: coefficient i is (i+1) x_{i+1}), and the z with z' = w, z(0) = z0.
Jet derivative(const Jet& x);
Jet antiderivative(const Jet& w, const Tensor& z0);
// A jet with value x0 and all higher coefficients zero.
Jet constant_jet(const Tensor& x0, int order);

// --- generic rules ------------------------------------------------------------------------------
// For ops linear in their differentiable inputs (reshape, sum, fft, add, ...) and ops that are
// locally linear (abs, maximum, amax: piecewise linear): z_k is the forward rule applied to x_k.
std::vector<Series> linear(const TaylorContext& c);
// For ops bilinear in inputs 0 and 1 (mul, matmul, conv): z_k = sum_j op(x_j, y_{k-j}).
std::vector<Series> bilinear(const TaylorContext& c);
// For unary ops given as a function of the input jet and the output value.
TaylorRule unary(std::function<Jet(const Jet& x, const Tensor& z0)> f);

}  // namespace spire::jets
