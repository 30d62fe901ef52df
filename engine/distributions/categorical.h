// The categorical distribution over {0, ..., K-1}, as torch.distributions.Categorical: the last
// axis of the parameter holds the K categories, the axes before it are the batch shape. Built from
// differentiable engine ops, so log_prob and entropy carry gradients of any order (reverse,
// forward, Taylor, vmap) to the logits or probabilities they came from.
#pragma once
#include "engine/core/tensor.h"
#include "engine/ops/random.h"

namespace spire::distributions {

class Categorical {
 public:
  // Unnormalised log-probabilities (any real values, -inf for impossible categories).
  static Categorical from_logits(const Tensor& logits);
  // Non-negative weights, normalised along the last axis (they need not sum to 1).
  static Categorical from_probs(const Tensor& probs);

  // Normalised: logits - logsumexp(logits); from probabilities, log(clamp(probs, eps, 1 - eps))
  // with eps the dtype's machine epsilon, as PyTorch (so probability 0 gives a finite logit).
  const Tensor& logits() const { return logits_; }
  const Tensor& probs() const { return probs_; }  // sums to 1 along the last axis
  Shape batch_shape() const;
  int64_t num_categories() const { return logits_.shape().back(); }

  // int64 draws of shape sample_shape + batch_shape, without history. Gumbel-max: the argmax of
  // logits plus Gumbel noise drawn from `gen`, so a seed gives the same draws everywhere.
  Tensor sample(const Shape& sample_shape = {}, Generator& gen = default_generator()) const;
  // log P(value); integer `value` (or integral floats) broadcasts against batch_shape. Values
  // outside [0, K) are a ValueError (checked eagerly, except inside vmap).
  Tensor log_prob(const Tensor& value) const;
  Tensor entropy() const;  // -sum p log p, of shape batch_shape
  Tensor mode() const;     // the most probable category (the first on ties), int64

 private:
  Categorical(Tensor logits, Tensor probs) : logits_(std::move(logits)), probs_(std::move(probs)) {}
  Tensor logits_, probs_;
};

}  // namespace spire::distributions
