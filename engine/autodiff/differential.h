// Differential operators of a function of points, computed in Taylor mode (autodiff/taylor.h).
//
// A point function maps x of shape [..., d] (points along the leading axes, coordinates last) to y
// of shape [..., *out], each point on its own, as a network applied to a batch does. Derivatives are
// taken along directions shared by all points (e_i for every point at once), which is exact for
// such functions; a function that mixes points (a batch norm, a sum over points) gets the sum of
// the cross terms instead.
#pragma once
#include <cstdint>
#include <functional>

#include "engine/core/tensor.h"

namespace spire {

using PointFunction = std::function<Tensor(const Tensor&)>;

// f(x) and its normalised Taylor coefficients along m directions V ([m, *x.shape]) at once:
// first[j] = J V_j (shape [m, *y.shape]); second = sum_j V_j^T H V_j / 2 ([*y.shape]) when
// `collapse`, else its m terms ([m, *y.shape]). order 1 leaves `second` undefined.
struct DirectionalJets {
  Tensor value, first, second;
};
DirectionalJets directional_jets(const PointFunction& f, const Tensor& x, const Tensor& directions,
                                 int order, bool collapse);

// The Laplacian sum_i d2f/dx_i2 at every point, shaped like f(x): one forward-Laplacian pass
// carrying the value, d first-order tangents and one summed second-order term.
PointFunction laplacian(const PointFunction& f);

// Unbiased randomised Laplacians for large d, from `samples` directions drawn per point with a
// generator seeded by `seed` (so the same seed gives the same estimate).
//  - Hutchinson: Rademacher directions v, estimate mean(v^T H v). Variance per point
//    2 (||H||_F^2 - sum_i H_ii^2) / samples.
//  - Sparse (stochastic Taylor derivative estimator): coordinates i drawn uniformly, estimate
//    mean(d H_ii). Variance per point (d sum_i H_ii^2 - (tr H)^2) / samples.
enum class LaplacianEstimator { Hutchinson, Sparse };
PointFunction laplacian(const PointFunction& f, LaplacianEstimator estimator, int64_t samples,
                        uint64_t seed);

// d2f/dx_i2 for every i: shape [..., *out, d].
PointFunction hessian_diag(const PointFunction& f);
// df/dx_i for every i (the input gradient, or Jacobian for vector f): shape [..., *out, d]; one
// forward pass carrying d tangents.
PointFunction input_grad(const PointFunction& f);
// sum_i df_i/dx_i of f: [..., d] -> [..., d]: shape [...].
PointFunction divergence(const PointFunction& f);
// The curl of f: [..., 3] -> [..., 3].
PointFunction curl(const PointFunction& f);
// The k-th derivative d^k/dt^k f(x + t v) at t = 0, shaped like f(x); v is shaped like x or like
// its last axis (then the same direction at every point).
PointFunction derivative(const PointFunction& f, int order, const Tensor& direction);

}  // namespace spire
