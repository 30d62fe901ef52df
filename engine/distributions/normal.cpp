#include "engine/distributions/normal.h"

#include <cmath>

#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::distributions {

Normal::Normal(const Tensor& loc, const Tensor& scale) {
  SPIRE_CHECK(loc.defined() && scale.defined(), ValueError, "Normal: loc and scale must be defined");
  SPIRE_CHECK(is_floating(loc.dtype()) && is_floating(scale.dtype()), DTypeError,
              "Normal: loc and scale must be float32 or float64, got ", name(loc.dtype()), " and ",
              name(scale.dtype()));
  // Values are only known outside vmap; inside it the check would need data that is not there.
  if (!scale.is_batched() && scale.numel() > 0) {
    NoGradGuard no_grad;
    double smallest = amin(scale).item<double>();
    SPIRE_CHECK(smallest > 0, ValueError, "Normal: scale must be > 0, got ", smallest);
  }
  DType t = promote(loc.dtype(), scale.dtype());
  Shape shape = broadcast_shapes(loc.shape(), scale.shape(), "Normal");
  // expand is a view whose gradient sums back to the original shapes.
  loc_ = expand(loc.dtype() == t ? loc : cast(loc, t), shape);
  scale_ = expand(scale.dtype() == t ? scale : cast(scale, t), shape);
}

Tensor Normal::variance() const { return square(scale_); }

Tensor Normal::rsample(const Shape& sample_shape, Generator& gen) const {
  Shape shape = sample_shape;
  shape.insert(shape.end(), batch_shape().begin(), batch_shape().end());
  return loc_ + normal(shape, 0.0, 1.0, loc_.dtype(), gen) * scale_;
}

Tensor Normal::sample(const Shape& sample_shape, Generator& gen) const {
  NoGradGuard no_grad;
  return rsample(sample_shape, gen);
}

Tensor Normal::log_prob(const Tensor& value) const {
  // As PyTorch writes it, so that values agree to the last bits.
  Tensor var = square(scale_);
  return -square(value - loc_) / (2.0 * var) - log(scale_) - std::log(std::sqrt(2.0 * M_PI));
}

Tensor Normal::entropy() const { return 0.5 + 0.5 * std::log(2.0 * M_PI) + log(scale_); }

Tensor Normal::cdf(const Tensor& value) const {
  return 0.5 * (1.0 + erf((value - loc_) * reciprocal(scale_) / std::sqrt(2.0)));
}

}  // namespace spire::distributions
