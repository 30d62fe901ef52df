#include "engine/autodiff/differential.h"

#include <cmath>

#include "engine/autodiff/taylor.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/ops/device.h"

namespace spire {
namespace {

void require_points(const Tensor& x, const char* what) {
  SPIRE_CHECK(x.dim() >= 1 && x.shape(-1) >= 1, ShapeError, what,
              ": x must have the coordinates on its last axis (shape [..., d]), got ", shape_str(x.shape()));
  SPIRE_CHECK(is_floating(x.dtype()), DTypeError, what, ": x must be float32 or float64, got ",
              name(x.dtype()));
}

// e_i at every point: [d, *x.shape] with out[i, ..., j] = (i == j), a broadcast view (a first layer
// multiplies its distinct rows once).
Tensor coordinate_directions(const Tensor& x) {
  int64_t d = x.shape(-1);
  Shape lifted(size_t(x.dim()) + 1, 1);
  lifted.front() = d;
  lifted.back() = d;
  Shape full = x.shape();
  full.insert(full.begin(), d);
  return expand(reshape(to(eye(d, x.dtype()), x.device()), lifted), full);
}

// [m, ...] -> [..., m]
Tensor directions_last(const Tensor& t) {
  std::vector<int64_t> perm;
  for (int64_t i = 1; i < t.dim(); ++i) perm.push_back(i);
  perm.push_back(0);
  return permute(t, perm);
}

}  // namespace

DirectionalJets directional_jets(const PointFunction& f, const Tensor& x, const Tensor& directions,
                                 int order, bool collapse) {
  SPIRE_CHECK(order == 1 || order == 2, ValueError, "directional_jets: order must be 1 or 2, got ", order);
  SPIRE_CHECK(directions.dim() == x.dim() + 1, ShapeError, "directional_jets: directions must have shape "
              "[m, *x.shape] = [m, ", shape_str(x.shape()), "], got ", shape_str(directions.shape()));
  taylor::Level level({.order = order, .directions = directions.shape(0), .collapse = collapse});
  Tensor y = f(taylor::make_jet(x, {directions}, level.get()));
  Series c = taylor::coefficients(y, level.get());
  Shape batched = y.shape();
  batched.insert(batched.begin(), directions.shape(0));
  DirectionalJets out{y, c[0].defined() ? c[0] : zeros(batched, y.dtype(), y.device()), Tensor()};
  if (order == 2) out.second = c[1].defined() ? c[1] : zeros(collapse ? y.shape() : batched, y.dtype(), y.device());
  return out;
}

PointFunction laplacian(const PointFunction& f) {
  return [f](const Tensor& x) {
    require_points(x, "laplacian");
    return mul(directional_jets(f, x, coordinate_directions(x), 2, true).second, 2.0);
  };
}

PointFunction laplacian(const PointFunction& f, LaplacianEstimator estimator, int64_t samples, uint64_t seed) {
  SPIRE_CHECK(samples >= 1, ValueError, "laplacian: samples must be at least 1, got ", samples);
  return [=](const Tensor& x) {
    require_points(x, "laplacian");
    Generator gen(seed);
    int64_t d = x.shape(-1);
    Shape shape = x.shape();
    shape.insert(shape.begin(), samples);
    Tensor v;
    if (estimator == LaplacianEstimator::Hutchinson) {
      v = sub(mul(cast(bernoulli(shape, 0.5, gen), x.dtype()), 2.0), 1.0);
    } else {
      shape.pop_back();
      Tensor coord = randint(shape, 0, d, DType::Int64, gen);
      v = mul(one_hot(coord, d, x.dtype()), std::sqrt(double(d)));
    }
    return mul(directional_jets(f, x, v, 2, true).second, 2.0 / double(samples));
  };
}

PointFunction hessian_diag(const PointFunction& f) {
  return [f](const Tensor& x) {
    require_points(x, "hessian_diag");
    return directions_last(mul(directional_jets(f, x, coordinate_directions(x), 2, false).second, 2.0));
  };
}

PointFunction input_grad(const PointFunction& f) {
  return [f](const Tensor& x) {
    require_points(x, "input_grad");
    return directions_last(directional_jets(f, x, coordinate_directions(x), 1, false).first);
  };
}

PointFunction divergence(const PointFunction& f) {
  return [f](const Tensor& x) {
    require_points(x, "divergence");
    Tensor jac = input_grad(f)(x);  // [..., out, d]
    SPIRE_CHECK(jac.dim() == x.dim() + 1 && jac.shape(-2) == x.shape(-1), ShapeError,
                "divergence: f must map [..., d] to [..., d], got ", shape_str(x.shape()), " -> ",
                shape_str(Shape(jac.shape().begin(), jac.shape().end() - 1)));
    return sum(diagonal(jac, 0, -2, -1), {-1});
  };
}

PointFunction curl(const PointFunction& f) {
  return [f](const Tensor& x) {
    require_points(x, "curl");
    SPIRE_CHECK(x.shape(-1) == 3, ShapeError, "curl: x must have 3 coordinates, got ", x.shape(-1));
    Tensor jac = input_grad(f)(x);  // jac[..., i, j] = df_i/dx_j
    SPIRE_CHECK(jac.dim() == x.dim() + 1 && jac.shape(-2) == 3, ShapeError,
                "curl: f must map [..., 3] to [..., 3], got ", shape_str(x.shape()), " -> ",
                shape_str(Shape(jac.shape().begin(), jac.shape().end() - 1)));
    auto d = [&](int i, int j) { return select(select(jac, -1, j), -1, i); };
    return stack({sub(d(2, 1), d(1, 2)), sub(d(0, 2), d(2, 0)), sub(d(1, 0), d(0, 1))}, -1);
  };
}

PointFunction derivative(const PointFunction& f, int order, const Tensor& direction) {
  SPIRE_CHECK(order >= 1, ValueError, "derivative: order must be at least 1, got ", order);
  return [=](const Tensor& x) {
    SPIRE_CHECK(direction.shape() == x.shape() || (x.dim() >= 1 && direction.dim() == 1 &&
                                                   direction.shape(0) == x.shape(-1)),
                ShapeError, "derivative: direction of shape ", shape_str(direction.shape()),
                " fits neither x ", shape_str(x.shape()), " nor its last axis");
    Tensor v = contiguous(expand(cast(direction, x.dtype()), x.shape()));
    taylor::Level level({.order = order});
    Tensor y = f(taylor::make_jet(x, {v}, level.get()));
    Tensor z = taylor::coefficients(y, level.get())[order - 1];
    double factorial = 1;
    for (int k = 2; k <= order; ++k) factorial *= k;
    return z.defined() ? mul(z, factorial) : zeros_like(y);
  };
}

}  // namespace spire
