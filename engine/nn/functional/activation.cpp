#include "engine/nn/functional/activation.h"

#include <cmath>

#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/relu.h"

namespace spire::nn::functional {

// One primitive each way (ops/relu.h); the gradient is 0 at 0 as in PyTorch (maximum(x, 0) would
// split it in halves there).
Tensor relu(const Tensor& x) { return spire::relu(x); }

Tensor gelu(const Tensor& x, const std::string& approximate) {
  if (approximate == "none") return x * (0.5 + 0.5 * spire::erf(x * M_SQRT1_2));
  SPIRE_CHECK(approximate == "tanh", ValueError, "gelu: approximate must be \"none\" or \"tanh\", got \"",
              approximate, "\"");
  const double k = std::sqrt(2.0 / M_PI);
  Tensor inner = (x + 0.044715 * x * x * x) * k;
  return x * (0.5 + 0.5 * spire::tanh(inner));
}

Tensor silu(const Tensor& x) { return x * spire::sigmoid(x); }

Tensor softplus(const Tensor& x, double beta, double threshold) {
  SPIRE_CHECK(beta != 0.0, ValueError, "softplus: beta must be nonzero");
  Tensor bx = x * beta;
  Tensor soft = beta == 1.0 ? spire::softplus(bx) : spire::softplus(bx) / beta;
  return where(gt(bx, threshold), x, soft);
}

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  return where(gt(x, 0.0), x, x * negative_slope);
}

Tensor elu(const Tensor& x, double alpha) {
  // The unused branch is evaluated at min(x, 0) so that exp cannot overflow into a NaN gradient.
  return where(gt(x, 0.0), x, alpha * spire::expm1(clamp_max(x, 0.0)));
}

Tensor sigmoid(const Tensor& x) { return spire::sigmoid(x); }
Tensor tanh(const Tensor& x) { return spire::tanh(x); }
Tensor sin(const Tensor& x) { return spire::sin(x); }

Tensor softmax(const Tensor& x, int64_t axis) {
  Tensor shifted = x - amax(x, {axis}, true).detach();
  Tensor e = spire::exp(shifted);
  return e / sum(e, {axis}, true);
}

Tensor log_softmax(const Tensor& x, int64_t axis) {
  Tensor shifted = x - amax(x, {axis}, true).detach();
  return shifted - spire::log(sum(spire::exp(shifted), {axis}, true));
}

}  // namespace spire::nn::functional
