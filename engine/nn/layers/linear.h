// torch.nn.Linear: y = x W^T + b, W [out_features, in_features].
#pragma once
#include "engine/nn/layers/common.h"
#include "engine/nn/module.h"

namespace spire::nn {

class Linear : public Module {
 public:
  // Weights from kaiming_uniform(a = sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)), bias likewise.
  Linear(int64_t in_features, int64_t out_features, bool bias = true, DType dtype = DType::Float32,
         Generator* gen = nullptr);
  void reset_parameters(Generator& gen);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t in_features, out_features;
  Tensor weight, bias;
};

}  // namespace spire::nn
