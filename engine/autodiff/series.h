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
// sum_{j=lo}^{hi} f(a_j, b_{k-j}) with undefined terms skipped (f defaults to mul).
Tensor cauchy(const Jet& a, const Jet& b, int k, int lo, int hi, const Bilinear& f = {});

// Series of compositions; z0 is the already computed value of the result.
Jet mul(const Jet& a, const Jet& b, const Tensor& z0);
Jet div(const Jet& a, const Jet& b, const Tensor& z0);
Jet reciprocal(const Jet& a, const Tensor& z0);
Jet exp(const Jet& a, const Tensor& z0);
Jet log(const Jet& a, const Tensor& z0);        // z0 unused past the value; a0 != 0
Jet pow(const Jet& a, double p, const Tensor& z0);  // a0 != 0
Jet sqrt(const Jet& a, const Tensor& z0);
// sin and cos of a together (s0, c0 given); hyperbolic = true gives sinh and cosh.
std::pair<Jet, Jet> sincos(const Jet& a, const Tensor& s0, const Tensor& c0, bool hyperbolic = false);
// z with z' = g * a', where coefficient g_m may depend on z_0..z_m (tanh: g = 1 - z^2): solved
// order by order. `g(m, z)` is called once z_m is known.
Jet integrate(const Jet& a, const Tensor& z0, const std::function<Tensor(int m, const Jet& z)>& g);
// z with z' = g * a' for a known series g (of order >= K-1).
Jet integrate(const Jet& a, const Tensor& z0, const Jet& g);
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
