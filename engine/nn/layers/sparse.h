// torch.nn.Embedding and Dropout.
#pragma once
#include <optional>

#include "engine/nn/layers/common.h"
#include "engine/nn/module.h"

namespace spire::nn {

// weight [num_embeddings, embedding_dim] ~ N(0, 1), the padding_idx row zero.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt,
            DType dtype = DType::Float32, Generator* gen = nullptr);
  void reset_parameters(Generator& gen);
  using Module::forward;
  Tensor forward(const Tensor& indices) override;
  std::string extra_repr() const override;

  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;  // normalised to [0, num_embeddings)
  Tensor weight;
};

// Inverted dropout in training mode, the identity in eval mode. Masks come from `gen` (kept by
// pointer: the caller keeps it alive) or the default generator.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5, Generator* gen = nullptr);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  double p;
  Generator* gen;
};

}  // namespace spire::nn
