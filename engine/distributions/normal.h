// The normal distribution N(loc, scale^2), as torch.distributions.Normal: loc and scale broadcast
// to the batch shape. Built from differentiable engine ops, so rsample, log_prob and entropy carry
// gradients of any order to loc and scale.
#pragma once
#include "engine/core/tensor.h"
#include "engine/ops/random.h"

namespace spire::distributions {

class Normal {
 public:
  // Both floating (promoted to a common dtype) and broadcastable. scale must be > 0: a ValueError
  // when it is not, checked eagerly except inside vmap, where values are not yet known.
  Normal(const Tensor& loc, const Tensor& scale);

  const Tensor& loc() const { return loc_; }      // broadcast to batch_shape
  const Tensor& scale() const { return scale_; }  // broadcast to batch_shape
  const Tensor& mean() const { return loc_; }
  const Tensor& mode() const { return loc_; }
  const Tensor& stddev() const { return scale_; }
  Tensor variance() const;
  const Shape& batch_shape() const { return loc_.shape(); }

  // Draws of shape sample_shape + batch_shape: loc + scale * eps with eps ~ N(0, 1) from `gen`.
  // sample carries no history; rsample (the reparameterisation trick) is differentiable in loc
  // and scale (d/dloc = 1, d/dscale = eps).
  Tensor sample(const Shape& sample_shape = {}, Generator& gen = default_generator()) const;
  Tensor rsample(const Shape& sample_shape = {}, Generator& gen = default_generator()) const;
  Tensor log_prob(const Tensor& value) const;  // value broadcasts against batch_shape
  Tensor entropy() const;                      // 1/2 + log(sqrt(2 pi) scale)
  Tensor cdf(const Tensor& value) const;

 private:
  Tensor loc_, scale_;
};

}  // namespace spire::distributions
