#include "engine/nn/layers/linear.h"

#include <cmath>

#include "engine/nn/functional/linear.h"
#include "engine/nn/init.h"

namespace spire::nn {

Linear::Linear(int64_t in, int64_t out, bool has_bias, DType dtype, Generator* gen)
    : Module("Linear"), in_features(in), out_features(out) {
  check_layer_dtype(dtype, "Linear");
  SPIRE_CHECK(in >= 0 && out >= 0, ValueError, "Linear: in_features and out_features must be >= 0, got ", in,
              " and ", out);
  weight = register_parameter("weight", empty({out, in}, dtype));
  bias = register_parameter("bias", has_bias ? empty({out}, dtype) : Tensor());
  reset_parameters(generator_or_default(gen));
}

void Linear::reset_parameters(Generator& gen) {
  init::kaiming_uniform_(weight, std::sqrt(5.0), "fan_in", "leaky_relu", gen);
  if (bias.defined()) {
    double bound = in_features > 0 ? 1.0 / std::sqrt(double(in_features)) : 0.0;
    init::uniform_(bias, -bound, bound, gen);
  }
}

Tensor Linear::forward(const Tensor& x) { return functional::linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + py_bool(bias.defined());
}

}  // namespace spire::nn
