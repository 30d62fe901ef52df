// Embedding lookup and dropout.
#pragma once
#include <optional>

#include "engine/core/tensor.h"
#include "engine/ops/random.h"

namespace spire::nn::functional {

// Rows of weight [num_embeddings, dim] at the integer indices: input.shape + [dim]. Rows looked up
// at padding_idx give no gradient to the weight (as PyTorch's).
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx = std::nullopt);

// In training, zeroes each element with probability p and scales the rest by 1 / (1 - p) (inverted
// dropout), with a mask drawn from `gen` (the default generator when null); the identity otherwise.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true, Generator* gen = nullptr);

}  // namespace spire::nn::functional
