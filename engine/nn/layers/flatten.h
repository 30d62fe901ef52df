// torch.nn.Flatten: axes start_dim..end_dim merged into one (a view where the layout allows).
#pragma once
#include <cstdint>
#include <string>

#include "engine/nn/module.h"

namespace spire::nn {

class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t start_dim, end_dim;
};

}  // namespace spire::nn
