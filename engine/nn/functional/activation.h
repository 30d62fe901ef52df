// Activation functions as PyTorch's torch.nn.functional defines them, composed of engine ops so
// that every autodiff mode (reverse, forward, Taylor, vmap) sees through them.
#pragma once
#include <string>

#include "engine/core/tensor.h"

namespace spire::nn::functional {

// max(x, 0), the primitive spire::relu (ops/relu.h): NaN stays NaN and the gradient at 0 is 0, as
// PyTorch's.
Tensor relu(const Tensor& x);
// x Phi(x). approximate = "none" (the erf form) or "tanh" (Hendrycks and Gimpel's approximation).
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor silu(const Tensor& x);  // x sigmoid(x), a.k.a. swish
// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (PyTorch's linear regime).
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
// x for x > 0, alpha (exp(x) - 1) otherwise.
Tensor elu(const Tensor& x, double alpha = 1.0);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sin(const Tensor& x);
// exp(x - max) / sum exp(x - max) along `axis` (the shift keeps exp finite; it cancels in value and
// gradient, so it is taken without history).
Tensor softmax(const Tensor& x, int64_t axis = -1);
Tensor log_softmax(const Tensor& x, int64_t axis = -1);

}  // namespace spire::nn::functional
