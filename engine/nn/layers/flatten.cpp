#include "engine/nn/layers/flatten.h"

#include "engine/ops/shape.h"

namespace spire::nn {

Flatten::Flatten(int64_t start_dim, int64_t end_dim)
    : Module("Flatten"), start_dim(start_dim), end_dim(end_dim) {}

Tensor Flatten::forward(const Tensor& x) { return flatten(x, start_dim, end_dim); }

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

}  // namespace spire::nn
